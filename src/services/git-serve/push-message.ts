/**
 * The lines `git push` prints about pull requests after a branch is pushed, as Gitea's post-receive
 * does (routers/private/hook_post_receive.go): "Create a new pull request for 'x':" with the new
 * pull request page, or "Visit the existing pull request:" with its page. Decided with the push in
 * pre-receive, printed by post-receive once git moved the refs.
 */
import { settings } from '../../config';
import { type DbContext } from '../../db';
import { ZERO_ID } from '../../git/refs';
import type { RefUpdate } from '../../git/hooks';
import { enabledUnits } from '../../models/access';
import { UnitType } from '../../models/perm';
import { findOpenPullFor } from '../../models/pull-request.model';
import { findRepoById, type RepositoryModel } from '../../models/repository.model';
import { findUserById, type UserModel } from '../../models/user.model';
import { pathEscapeSegments } from '../content/refs';

const HEADS = 'refs/heads/';

async function allowsPulls(ctx: DbContext, repo: RepositoryModel): Promise<boolean> {
  return (await enabledUnits(ctx, repo.id)).includes(UnitType.PullRequests);
}

function htmlUrl(owner: UserModel, repo: RepositoryModel): string {
  return `${settings().server.rootUrl}${pathEscapeSegments(owner.name)}/${pathEscapeSegments(repo.name)}`;
}

/**
 * The pull request lines for the branches a push creates or moves ('' for none): pull requests go
 * to the repository itself or, for a fork, to its parent when the parent takes them; the default
 * branch of a repository that is not a fork has none. Off with `[git] PULL_REQUEST_PUSH_MESSAGE = false`.
 */
export async function pullRequestPushMessage(ctx: DbContext, repo: RepositoryModel, owner: UserModel, updates: RefUpdate[]): Promise<string> {
  const branches = updates.filter((u) => u.ref.startsWith(HEADS) && u.new !== ZERO_ID).map((u) => u.ref.slice(HEADS.length));
  if (branches.length === 0 || !settings().git.pullRequestPushMessage) return '';
  let base = repo;
  let baseOwner = owner;
  if (repo.isFork) {
    const parent = await findRepoById(ctx, repo.forkId);
    const parentOwner = parent && (await findUserById(ctx, parent.ownerId));
    if (parent && parentOwner && (await allowsPulls(ctx, parent))) [base, baseOwner] = [parent, parentOwner];
  }
  if (!(await allowsPulls(ctx, base))) return '';
  const out: string[] = [];
  for (const branch of branches) {
    if (branch === base.defaultBranch && !repo.isFork) continue;
    const pr = await findOpenPullFor(ctx, { repoId: repo.id, branch }, { repoId: base.id, branch: base.defaultBranch });
    if (pr) out.push('', 'Visit the existing pull request:', `  ${htmlUrl(baseOwner, base)}/pulls/${pr.index}`, '');
    else out.push('', `Create a new pull request for '${branch}':`, `  ${htmlUrl(owner, repo)}/pulls/new/${pathEscapeSegments(branch)}`, '');
  }
  return out.join('\n');
}
