/**
 * Repository collaborators: listing, adding or changing (repository admins), removing, and the
 * permission a given user has on the repository.
 */
import { withTx, type DbContext } from '../../db';
import { Forbidden, NotFound, Validation } from '../../errors';
import { findUserByName, findUsersByIds, UserType, type UserModel } from '../../models/user.model';
import { isBlockedEitherWay } from '../../models/user-blocking.model';
import { listCollaborations, upsertCollaboration, deleteCollaboration } from '../../models/collaboration.model';
import { collaboratorMode } from '../../models/access';
import { listRepoAssignees } from '../../models/assignee';
import { AccessMode, parseAccessMode } from '../../models/perm';
import { repoPermission } from '../perm/permission';
import type { Principal } from '../auth/principal';
import type { RepoContext } from './context';
import { usersInOrder } from './visible';

/** 403 unless the caller administers the repository (Gitea's reqAdmin). */
export function assertRepoAdmin(rc: RepoContext): void {
  if (rc.perm.mode < AccessMode.Admin) throw new Forbidden('user should be an owner or a collaborator with admin write of a repository');
}

/**
 * The individual user named by a collaborator path segment.
 * why: Gitea answers an unknown collaborator with 422 on these routes (the user is an argument, not the resource).
 */
export async function collaboratorUser(ctx: DbContext, name: string): Promise<UserModel> {
  const u = await findUserByName(ctx, name);
  if (!u || u.type !== UserType.Individual) throw new Validation(`user does not exist [name: ${name}]`);
  return u;
}

/** One page of the repository's collaborators, with the access each was given. */
export async function listCollaborators(ctx: DbContext, rc: RepoContext, limit: number, offset: number): Promise<{ rows: UserModel[]; count: number; modes: Map<number, AccessMode> }> {
  const { rows, count } = await listCollaborations(ctx, rc.repo.id, limit, offset);
  return { rows: await usersInOrder(ctx, rows.map((r) => r.userId), findUsersByIds), count, modes: new Map(rows.map((r) => [r.userId, r.mode as AccessMode])) };
}

/** Is `user` a collaborator of the repository? */
export async function isCollaborator(ctx: DbContext, rc: RepoContext, user: UserModel): Promise<boolean> {
  return (await collaboratorMode(ctx, rc.repo.id, user.id)) !== null;
}

/** Add `user` as collaborator with `permission` (default write) or change its mode; repository admins only. */
export async function addOrUpdateCollaborator(ctx: DbContext, rc: RepoContext, user: UserModel, permission?: string): Promise<void> {
  assertRepoAdmin(rc);
  const mode = permission === undefined ? AccessMode.Write : parseAccessMode(permission);
  if (mode === undefined || mode < AccessMode.Read || mode > AccessMode.Admin) throw new Validation('permission must be one of read, write, admin');
  if (!user.isActive) throw new Validation('user account is inactive');
  if (await isBlockedEitherWay(ctx, rc.owner.id, user.id)) throw new Forbidden('user is blocked');
  // why: read-then-write in one transaction so two concurrent adds end as one row.
  await withTx(ctx, (tx) => upsertCollaboration(tx, rc.repo.id, user.id, mode));
}

/** Remove `user` from the collaborators (no-op when it is none); repository admins only. */
export async function removeCollaborator(ctx: DbContext, rc: RepoContext, user: UserModel): Promise<void> {
  assertRepoAdmin(rc);
  await deleteCollaboration(ctx, rc.repo.id, user.id);
}

/**
 * The access mode `user` has on the repository. Site admins and repository admins may ask about
 * anyone; others only about themselves.
 */
export async function permissionOf(ctx: DbContext, p: Principal, rc: RepoContext, name: string): Promise<{ user: UserModel; mode: AccessMode }> {
  const doer = p.user;
  if (!doer || (!doer.isAdmin && doer.lowerName !== name.toLowerCase() && rc.perm.mode < AccessMode.Admin)) {
    throw new Forbidden('Only admins can query all permissions, repo admins can query all repo permissions, collaborators can query only their own');
  }
  const user = await findUserByName(ctx, name);
  if (!user || user.type !== UserType.Individual) throw new NotFound(`user does not exist [name: ${name}]`);
  const perm = await repoPermission(ctx, { user, scopes: null, tokenId: null, method: 'basic-password' }, rc.repo, rc.owner);
  return { user, mode: perm.mode };
}

/** The users who may be assigned to the repository's issues (write access), by name. */
export function assigneesOf(ctx: DbContext, rc: RepoContext): Promise<UserModel[]> {
  return listRepoAssignees(ctx, rc.repo.id, rc.owner.id, rc.owner.type === UserType.Organization);
}
