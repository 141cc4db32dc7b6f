/**
 * Resolving `{username}` path segments the way Gitea's UserAssignmentAPI does: a user or an
 * organization by name, hidden (404) from callers who may not see it.
 */
import type { DbContext } from '../../db';
import { NotFound } from '../../errors';
import { findUserByName, UserType, type UserModel } from '../../models/user.model';
import { canSeeOwner } from '../perm/permission';
import type { Principal } from '../auth/principal';

/** A user or organization named `name` that `p` may see; 404 otherwise. */
export async function lookupOwner(ctx: DbContext, p: Principal, name: string): Promise<UserModel> {
  const u = await findUserByName(ctx, name);
  if (!u || !(await canSeeOwner(ctx, p, u))) throw new NotFound(`user redirect does not exist [name: ${name}]`);
  return u;
}

/** An individual user (not an organization) named `name` that `p` may see; 404 otherwise. */
export async function lookupUser(ctx: DbContext, p: Principal, name: string): Promise<UserModel> {
  const u = await lookupOwner(ctx, p, name);
  if (u.type !== UserType.Individual) throw new NotFound(`user redirect does not exist [name: ${name}]`);
  return u;
}

/** An organization named `name` that `p` may see; 404 otherwise. */
export async function lookupOrg(ctx: DbContext, p: Principal, name: string): Promise<UserModel> {
  const u = await findUserByName(ctx, name);
  if (!u || u.type !== UserType.Organization || !(await canSeeOwner(ctx, p, u))) throw new NotFound(`org does not exist [name: ${name}]`);
  return u;
}
