/**
 * Organization members: listing (public members to outsiders), removal (from every team, never
 * the last owner) and showing or hiding one's own membership.
 */
import { withTx, type DbContext } from '../../db';
import { Forbidden, NotFound, Validation } from '../../errors';
import type { UserModel } from '../../models/user.model';
import { listOrgMembers, findOrgUser, deleteOrgUser, setOrgUserPublic } from '../../models/org-user.model';
import { findOwnerTeam } from '../../models/team.model';
import { isTeamMember, countTeamMembers, deleteTeamUsersInOrg } from '../../models/team-user.model';
import { membershipOf } from './guard';
import type { Principal } from '../auth/principal';

/** May `p` see every member (not only public ones)? Site admins and members may. */
export async function seesAllMembers(ctx: DbContext, p: Principal, org: UserModel): Promise<boolean> {
  if (!p.user) return false;
  return p.user.isAdmin || (await membershipOf(ctx, org.id, p.user.id)) !== 'none';
}

/** One page of members: all of them for members and site admins, public ones for everyone else. */
export async function listMembers(ctx: DbContext, p: Principal, org: UserModel, publicOnly: boolean, limit: number, offset: number): Promise<{ rows: UserModel[]; count: number }> {
  const all = !publicOnly && (await seesAllMembers(ctx, p, org));
  return listOrgMembers(ctx, org.id, !all, limit, offset);
}

/** Is `user` a member of `org` (publicly, when `publicOnly`)? */
export async function isMember(ctx: DbContext, org: UserModel, user: UserModel, publicOnly: boolean): Promise<boolean> {
  const row = await findOrgUser(ctx, org.id, user.id);
  return !!row && (!publicOnly || row.isPublic);
}

/** Refuse (422) when `uid` is the only member of the Owners team; nothing changes. */
export async function assertNotLastOwner(ctx: DbContext, orgId: number, uid: number): Promise<void> {
  const owners = await findOwnerTeam(ctx, orgId);
  if (owners && (await isTeamMember(ctx, owners.id, uid)) && (await countTeamMembers(ctx, owners.id)) <= 1) {
    throw new Validation(`user is the last member of owner team [uid: ${uid}]`);
  }
}

/** Remove a user from the organization and all its teams; a no-op for non-members. */
export async function removeMember(ctx: DbContext, org: UserModel, user: UserModel): Promise<void> {
  await withTx(ctx, async (tx) => {
    await assertNotLastOwner(tx, org.id, user.id);
    await deleteTeamUsersInOrg(tx, org.id, user.id);
    await deleteOrgUser(tx, org.id, user.id);
  });
}

/** Show (`isPublic`) or hide the doer's own membership; 403 for anyone else's. */
export async function setMembershipPublic(ctx: DbContext, doer: UserModel, org: UserModel, user: UserModel, isPublic: boolean): Promise<void> {
  if (doer.id !== user.id) throw new Forbidden(isPublic ? 'Cannot publicize another member' : 'Cannot conceal another member');
  if (!(await setOrgUserPublic(ctx, org.id, user.id, isPublic))) throw new NotFound(`user is not a member of the organization [name: ${user.name}]`);
}
