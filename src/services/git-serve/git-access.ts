/**
 * Who may run git-upload-pack (clone/fetch) or git-receive-pack (push) on a repository or its wiki,
 * decided with the one permission function on the code unit (or the wiki unit). Anonymous callers
 * are asked for credentials (401) whenever they are refused, so a private repository and a missing
 * one answer alike.
 */
import type { DbContext } from '../../db';
import { Forbidden, NotFound, OwnerRenamed, Unauthorized } from '../../errors';
import { AccessMode, UnitType } from '../../models/perm';
import type { Principal } from '../auth/principal';
import { repoAssignment, type RepoContext } from '../repo/context';
import type { GitService } from './git-serve';
import { prepareWikiForGit } from '../wiki/wiki-repo';
import { maintainerMayPush } from '../refs/maintainer-edit';
import { hasScope, ScopeLevel } from '../auth/scope';
import { scopeCategoryOf } from '../perm/permission';

export type { GitService } from './git-serve';

/** Gitea's Basic realm, so git prompts for (or retries with) credentials. */
export const GIT_AUTH_HEADERS = { 'WWW-Authenticate': 'Basic realm="Gitea"' };

const askCredentials = () => new Unauthorized('Unauthorized', GIT_AUTH_HEADERS);

/**
 * Resolve owner/repo and check the caller may run `service` on the repository, or with `wiki` on its
 * wiki (created here on first access by a caller who may write it); throws 401/403/404. With
 * `lfsUpload`, a receive-pack check is for LFS objects, which only writers store.
 */
export async function authorizeGitService(ctx: DbContext, p: Principal, ownerName: string, repoName: string, service: GitService, wiki = false, lfsUpload = false): Promise<RepoContext> {
  const anonymous = !p.user && !p.deployKey;
  // why: pushes always need an identity; asking first reveals nothing about the repository.
  if (anonymous && service === 'receive-pack') throw askCredentials();
  let rc: RepoContext;
  try {
    rc = await repoAssignment(ctx, p, ownerName, repoName);
  } catch (err) {
    // why: an old owner name is answered with its redirect before anything else, as Gitea's owner lookup runs before sign-in.
    if (anonymous && err instanceof NotFound && !(err instanceof OwnerRenamed)) throw askCredentials();
    throw err;
  }
  const notFound = new NotFound(`repository does not exist [owner: ${ownerName}, name: ${repoName}]`);
  const unit = wiki ? UnitType.Wiki : UnitType.Code;
  // why: a disabled code (wiki) unit means there is no git repository (wiki) to serve.
  if (!rc.perm.units.has(unit)) throw notFound;
  if (!rc.perm.can(unit, AccessMode.Read)) {
    if (anonymous) throw askCredentials();
    throw notFound;
  }
  if (service === 'receive-pack') {
    // why: as Gitea, a reader of pull requests may push refs/for/<branch> (AGit) and a maintainer of a pull request's base its head branch here; pre-receive holds them to those refs.
    const writes = rc.perm.can(unit, AccessMode.Write);
    // why: a token whose scopes do not write the repository pushes nothing, whatever its owner may do.
    const scoped = !!p.scopes && !hasScope(p.scopes, scopeCategoryOf(unit), ScopeLevel.Write);
    const proposes = !writes && !wiki && !lfsUpload && !scoped && !!p.user
      && (rc.perm.can(UnitType.PullRequests, AccessMode.Read) || (await maintainerMayPush(ctx, p.user, rc.repo.id, 'any')));
    if (!writes && !proposes) throw new Forbidden('User permission denied');
    if (rc.repo.isArchived) throw new Forbidden('repo is archived');
    // why: a pull mirror's branches follow its source; a push would be undone by the next sync (Gitea's words).
    if (rc.repo.isMirror && !wiki) throw new Forbidden('mirror repository is read-only');
  }
  if (wiki) await prepareWikiForGit(rc, () => (anonymous ? askCredentials() : notFound));
  return rc;
}
