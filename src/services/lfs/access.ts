/**
 * Who may use the LFS endpoints of a repository. Callers come with Basic/token credentials (the
 * usual `authenticate` middleware) or with an LFS bearer token bound to one repository and one
 * operation. Download needs code read, upload and locks need code write, decided by the one
 * permission function. Anonymous callers are asked for credentials (401) whenever they are refused,
 * so a private repository and a missing one answer alike.
 */
import type { DbContext } from '../../db';
import { Forbidden, NotFound, OwnerRenamed, Unauthorized } from '../../errors';
import { AccessMode, UnitType } from '../../models/perm';
import { findUserById, UserType } from '../../models/user.model';
import { findDeployKeyById } from '../../models/deploy-key.model';
import type { Principal } from '../auth/principal';
import { repoAssignment, type RepoContext } from '../repo/context';
import type { LfsGrant } from './token';

/**
 * The challenge on every LFS 401. why: Gitea sends `WWW-Authenticate: Basic realm="gitea-lfs"`; the
 * LFS spec names `LFS-Authenticate`; git-lfs reads either, so both go out with the same value.
 */
export const LFS_AUTH_HEADERS = { 'WWW-Authenticate': 'Basic realm="gitea-lfs"', 'LFS-Authenticate': 'Basic realm="gitea-lfs"' };

/** What the caller wants to do with the repository's LFS data. */
export type LfsNeed = 'read' | 'write';

/** Refusal messages of one endpoint (the lock endpoints use Gitea's wording). */
export interface LfsDenial { unauthorized?: string; forbidden?: string }

/** A 401 that makes git-lfs ask for (or retry with) credentials. */
export function askCredentials(message = 'Unauthorized'): Unauthorized {
  return new Unauthorized(message, LFS_AUTH_HEADERS);
}

/**
 * The caller an LFS token stands for, or null when the token's user or deploy key can no longer act.
 * why: as Gitea does, the token only names the caller; the caller's current permission still decides.
 */
export async function principalForLfsToken(ctx: DbContext, g: LfsGrant): Promise<Principal | null> {
  if (g.deployKeyId > 0) {
    // why: deployKeyId is the deploy_key row (one repository's use of a key, with its own mode); the key
    // must still be linked to the token's repository, and that link's mode caps what the token may do.
    const dk = await findDeployKeyById(ctx, g.deployKeyId);
    if (!dk || dk.repoId !== g.repoId) return null;
    const mode = g.op === 'upload' && dk.mode >= AccessMode.Write ? AccessMode.Write : AccessMode.Read;
    return { user: null, scopes: null, tokenId: null, method: 'lfs-token', deployKey: { id: dk.id, repoId: dk.repoId, mode } };
  }
  const user = await findUserById(ctx, g.userId);
  if (!user || user.type !== UserType.Individual || !user.isActive || user.prohibitLogin) return null;
  return { user, scopes: null, tokenId: null, method: 'lfs-token' };
}

/** Resolve owner/repo and check that `p` (with its LFS grant, if it came with one) may `need`; throws 401/403/404. */
export async function authorizeLfs(
  ctx: DbContext, p: Principal, grant: LfsGrant | null, ownerName: string, repoName: string, need: LfsNeed, deny: LfsDenial = {},
): Promise<RepoContext> {
  const anonymous = !p.user && !p.deployKey;
  const ask = () => askCredentials(deny.unauthorized);
  const notFound = () => new NotFound('Not Found');
  if (anonymous && need === 'write') throw ask();
  let rc: RepoContext;
  try {
    rc = await repoAssignment(ctx, p, ownerName, repoName);
  } catch (err) {
    // why: an old owner name is answered with its redirect (to the same path under the new name) before credentials are asked.
    if (err instanceof OwnerRenamed) throw err;
    if (err instanceof NotFound) throw anonymous || grant ? ask() : notFound();
    throw err;
  }
  // why: a token is good for its one repository and operation only (upload implies download); anything else
  // is a failed authentication, as in Gitea, so git-lfs asks for other credentials.
  if (grant && (grant.repoId !== rc.repo.id || (need === 'write' && grant.op !== 'upload'))) throw ask();
  if (!rc.perm.units.has(UnitType.Code)) throw notFound();
  if (!rc.perm.can(UnitType.Code, AccessMode.Read)) throw anonymous || grant ? ask() : notFound();
  if (need === 'write') {
    if (!rc.perm.can(UnitType.Code, AccessMode.Write)) throw new Forbidden(deny.forbidden ?? 'User permission denied');
    if (rc.repo.isArchived) throw new Forbidden('repo is archived');
  }
  return rc;
}
