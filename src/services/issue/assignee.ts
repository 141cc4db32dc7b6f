/** Who may be assigned to an issue, as Gitea's CanBeAssigned decides it. */
import type { DbContext } from '../../db';
import { Forbidden, Validation } from '../../errors';
import { findUserByName, UserType, type UserModel } from '../../models/user.model';
import { isBlocked } from '../../models/user-blocking.model';
import { AccessMode, UnitType } from '../../models/perm';
import { repoPermission } from '../perm/permission';
import { asUser } from '../auth/principal';
import type { RepoContext } from '../repo/context';

/** May `user` be assigned in the repository: an individual with write on a unit, or read on pull requests. */
export async function canBeAssigned(ctx: DbContext, rc: RepoContext, user: UserModel): Promise<boolean> {
  if (user.type !== UserType.Individual || !user.isActive) return false;
  const perm = await repoPermission(ctx, asUser(user), rc.repo, rc.owner);
  return perm.mode >= AccessMode.Write || perm.can(UnitType.PullRequests, AccessMode.Read);
}

/**
 * Users named as assignees, each checked: 422 for an unknown user or one who cannot be assigned,
 * 403 for one the repository's owner blocked.
 */
export async function resolveAssignees(ctx: DbContext, rc: RepoContext, names: string[]): Promise<UserModel[]> {
  const out = new Map<number, UserModel>();
  for (const name of new Set(names.filter((n) => n !== ''))) {
    const user = await findUserByName(ctx, name);
    if (!user) throw new Validation(`Assignee does not exist: [name: ${name}]`);
    if (!(await canBeAssigned(ctx, rc, user))) throw new Validation(`user doesn't have access to repo [user_id: ${user.id}, repo_name: ${rc.repo.name}]`);
    if (rc.repo.ownerId !== user.id && (await isBlocked(ctx, rc.repo.ownerId, user.id))) throw new Forbidden('user is blocked');
    out.set(user.id, user);
  }
  return [...out.values()];
}
