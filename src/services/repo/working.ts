/**
 * The repositories a user works on, as Gitea's dashboard calls them "your repositories": those it
 * owns, collaborates on, or reaches through an organization it belongs to, not archived, whose
 * units it can read by the one permission function. The dashboard's issue, pull request and
 * milestone lists start from them.
 */
import type { DbContext } from '../../db';
import { repoCandidatesOf } from '../../models/repository.model';
import { findUsersByIds } from '../../models/user.model';
import { AccessMode, type UnitType } from '../../models/perm';
import { TableCache } from '../../models/table-cache';
import { formatScopes } from '../auth/scope';
import type { Principal } from '../auth/principal';
import { repoPermission } from '../perm/permission';

// why: deciding it runs the permission function on each candidate, so the answer is kept until a
// table it depends on is written (or for the TTL), as the list of readable repositories is.
const workingCache = new TableCache<number[]>('repo-working-ids', [
  'repository', 'users', 'org_user', 'collaboration', 'team', 'team_user', 'team_unit', 'team_repo', 'repo_unit',
], 30_000);

/**
 * Ids of the repositories the signed-in caller works on whose `units` it can read (any one of
 * them); none for anonymous callers.
 */
export function workingRepoIds(ctx: DbContext, p: Principal, units: UnitType[]): Promise<number[]> {
  const user = p.user;
  if (!user) return Promise.resolve([]);
  const key = `${user.id}:${p.scopes ? formatScopes(p.scopes) : 'password'}:${[...units].sort().join(',')}`;
  return workingCache.get(ctx, key, async () => {
    const candidates = (await repoCandidatesOf(ctx, user.id, true)).filter((r) => !r.isArchived);
    const owners = new Map((await findUsersByIds(ctx, [...new Set(candidates.map((r) => r.ownerId))])).map((u) => [u.id, u]));
    const ids: number[] = [];
    for (const r of candidates) {
      const owner = owners.get(r.ownerId);
      if (!owner) continue;
      const perm = await repoPermission(ctx, p, r, owner);
      if (units.some((u) => perm.can(u, AccessMode.Read))) ids.push(r.id);
    }
    return ids.sort((a, b) => a - b);
  });
}
