/**
 * Resolving `{org}` and `{id}` (team) path segments and the organization guards of Gitea's API:
 * membership and ownership checks, always after the caller is known to be signed in.
 */
import type { DbContext } from '../../db';
import { Forbidden, NotFound, Unauthorized } from '../../errors';
import { findUserById, findUserByName, UserType, Visibility, type UserModel } from '../../models/user.model';
import { findTeamById, type TeamModel } from '../../models/team.model';
import { isTeamMember } from '../../models/team-user.model';
import { orgMembership } from '../../models/access';
import { canSeeOwner } from '../perm/permission';
import { missingOwner } from '../user/lookup';
import type { Principal } from '../auth/principal';

/** Membership of a user in an organization. */
export type Membership = 'none' | 'member' | 'owner';

/**
 * The organization named `name` as `p` may see it: 404 when missing or hidden (OwnerRenamed for an
 * old name), 403 when the caller's token is limited to public organizations and this one is not public.
 */
export async function resolveOrg(ctx: DbContext, p: Principal, name: string): Promise<UserModel> {
  const org = await findUserByName(ctx, name);
  if (!org) throw await missingOwner(ctx, p, name, new NotFound(`org does not exist [name: ${name}]`));
  if (org.type !== UserType.Organization) throw new NotFound(`org does not exist [name: ${name}]`);
  if (p.scopes?.publicOnly && org.visibility !== Visibility.Public) throw new Forbidden('token scope is limited to public orgs');
  if (!(await canSeeOwner(ctx, p, org))) throw new NotFound(`org does not exist [name: ${name}]`);
  return org;
}

/** Membership of `uid` in `orgId`. */
export function membershipOf(ctx: DbContext, orgId: number, uid: number): Promise<Membership> {
  return orgMembership(ctx, orgId, uid);
}

function signed(p: Principal): UserModel {
  if (!p.user) throw new Unauthorized('token is required');
  return p.user;
}

/** Site admins and organization owners pass; others get 403 "Must be an organization owner". */
export async function assertOrgOwner(ctx: DbContext, p: Principal, org: UserModel): Promise<void> {
  const u = signed(p);
  if (u.isAdmin) return;
  if ((await membershipOf(ctx, org.id, u.id)) !== 'owner') throw new Forbidden('Must be an organization owner');
}

/** Site admins and organization members pass; others get 403 "Must be an organization member". */
export async function assertOrgMember(ctx: DbContext, p: Principal, org: UserModel): Promise<void> {
  const u = signed(p);
  if (u.isAdmin) return;
  if ((await membershipOf(ctx, org.id, u.id)) === 'none') throw new Forbidden('Must be an organization member');
}

/** A team with its organization, and how the caller relates to it. */
export interface TeamContext { team: TeamModel; org: UserModel; isOwner: boolean; isOrgMember: boolean }

/**
 * Resolve `/teams/{id}` as Gitea's reqTeamMembership does: site admins and organization owners
 * pass, a member of the organization outside the team gets 403 "Must be a team member", anyone
 * else 404. Any id that is not a known team (not a number, out of range) is a 404, never a 500.
 */
export async function resolveTeam(ctx: DbContext, p: Principal, rawId: string): Promise<TeamContext> {
  const u = signed(p);
  const id = /^\d{1,10}$/.test(rawId) ? Number(rawId) : 0;
  // why: the id column is a 32-bit integer on PostgreSQL; a larger literal would be a database error.
  const team = id > 0 && id <= 2_147_483_647 ? await findTeamById(ctx, id) : null;
  const org = team ? await findOrgById(ctx, team.orgId) : null;
  if (!team || !org) throw new NotFound(`team does not exist [id: ${rawId}]`);
  if (p.scopes?.publicOnly && org.visibility !== Visibility.Public) throw new Forbidden('token scope is limited to public orgs');
  const m = await membershipOf(ctx, org.id, u.id);
  const ctxOut = { team, org, isOwner: u.isAdmin || m === 'owner', isOrgMember: u.isAdmin || m !== 'none' };
  if (ctxOut.isOwner) return ctxOut;
  if (m === 'none') throw new NotFound(`team does not exist [id: ${rawId}]`);
  if (!(await isTeamMember(ctx, team.id, u.id))) throw new Forbidden('Must be a team member');
  return ctxOut;
}

/** In team context Gitea's ownership guard answers 404 to non-owners. */
export function assertTeamOwner(t: TeamContext): void {
  if (!t.isOwner) throw new NotFound();
}

async function findOrgById(ctx: DbContext, id: number): Promise<UserModel | null> {
  const u = await findUserById(ctx, id);
  return u && u.type === UserType.Organization ? u : null;
}
