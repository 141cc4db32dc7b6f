/**
 * Resolving `{username}` path segments the way Gitea's UserAssignmentAPI does: a user or an
 * organization by name, hidden (404) from callers who may not see it.
 */
import type { DbContext } from '../../db';
import { NotFound, OwnerRenamed } from '../../errors';
import { findUserById, findUserByName, UserType, type UserModel } from '../../models/user.model';
import { findUserRedirect } from '../../models/user-redirect.model';
import { canSeeOwner } from '../perm/permission';
import type { Principal } from '../auth/principal';

/**
 * `notFound` for a name no account has, or OwnerRenamed when the name is an old name of an account
 * `p` may see (one it may not see stays a plain 404, so a redirect reveals nothing).
 */
export async function missingOwner(ctx: DbContext, p: Principal, name: string, notFound: NotFound): Promise<NotFound> {
  const id = await findUserRedirect(ctx, name);
  const target = id === null ? null : await findUserById(ctx, id);
  if (!target || !(await canSeeOwner(ctx, p, target))) return notFound;
  return new OwnerRenamed(notFound.message, name, target.name);
}

/** A user or organization named `name` that `p` may see; 404 otherwise (OwnerRenamed for an old name). */
export async function lookupOwner(ctx: DbContext, p: Principal, name: string): Promise<UserModel> {
  const u = await findUserByName(ctx, name);
  const notFound = new NotFound(`user redirect does not exist [name: ${name}]`);
  if (!u) throw await missingOwner(ctx, p, name, notFound);
  if (!(await canSeeOwner(ctx, p, u))) throw notFound;
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
  const notFound = new NotFound(`org does not exist [name: ${name}]`);
  if (!u) throw await missingOwner(ctx, p, name, notFound);
  if (u.type !== UserType.Organization || !(await canSeeOwner(ctx, p, u))) throw notFound;
  return u;
}
