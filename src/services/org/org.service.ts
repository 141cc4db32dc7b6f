/**
 * Organizations: creation (with the Owners team), editing, deletion, listings and a member's
 * permissions. Names follow the user name rules and share the users' namespace.
 */
import { withTx, isUniqueViolation, type DbContext } from '../../db';
import { Forbidden, Validation } from '../../errors';
import { findUserById, findUserByName, updateUserSettings, Visibility, type UserModel, type UserSettingsPatch } from '../../models/user.model';
import { insertOrg, listOrgs, listOrgsOfMember, deleteOrgRow } from '../../models/org';
import { deleteLabelsOf } from '../../models/label.model';
import { deleteProjectsOf } from '../../models/project.model';
import { ensureOrgUser, deleteOrgUsersOf } from '../../models/org-user.model';
import { insertTeam, OWNER_TEAM_NAME, deleteTeamsOfOrg, teamsOfUserInOrg } from '../../models/team.model';
import { insertTeamUser, deleteTeamUsersOfOrg } from '../../models/team-user.model';
import { replaceTeamUnits, deleteTeamUnitsOfOrg } from '../../models/team-unit.model';
import { deleteTeamReposOfOrg } from '../../models/team-repo.model';
import { deleteUserRedirect, deleteRedirectsTo } from '../../models/user-redirect.model';
import { deleteBlocksOf } from '../../models/user-blocking.model';
import { countReposOfOwner } from '../../models/repository.model';
import { AccessMode, ALL_UNITS, UnitType } from '../../models/perm';
import { assertUsername, assertEmail } from '../user/validate';
import { renameAccount } from '../user/rename.service';
import { parseVisibility } from '../user/user.service';
import { canSeeOwner } from '../perm/permission';
import { removeAvatar } from '../storage/avatar-store';
import type { Principal } from '../auth/principal';

/** Fields of a new or edited organization, as the API names them. */
export interface OrgFields {
  full_name?: string;
  email?: string;
  description?: string;
  website?: string;
  location?: string;
  visibility?: string;
  repo_admin_change_team_access?: boolean;
}

function assertWebsite(website: string | undefined): void {
  if (!website) return;
  let ok = false;
  try {
    const u = new URL(website);
    ok = u.protocol === 'http:' || u.protocol === 'https:';
  } catch { /* not a URL */ }
  if (!ok) throw new Validation('[Website]: Url');
}

function checkFields(f: OrgFields): void {
  assertWebsite(f.website);
  if (f.email) assertEmail(f.email);
}

/** The unit modes of an admin-or-higher team: every unit at `mode`, external trackers and wikis read-only. */
export function highTeamUnits(mode: AccessMode): Map<UnitType, AccessMode> {
  return new Map(ALL_UNITS.map((u) => [u, u === UnitType.ExternalTracker || u === UnitType.ExternalWiki ? AccessMode.Read : mode]));
}

/**
 * Create an organization owned by `owner`: an Owners team (owner mode, every unit, all
 * repositories) with `owner` as its only member. `checkAllowed` applies allow_create_organization
 * (the admin route creates for a user without it).
 */
export async function createOrg(ctx: DbContext, owner: UserModel, name: string, f: OrgFields, checkAllowed: boolean): Promise<UserModel> {
  if (checkAllowed && !owner.isAdmin && !owner.allowCreateOrganization) throw new Forbidden('not allowed to create org');
  assertUsername(name, 'UserName');
  checkFields(f);
  const visibility = f.visibility ? parseVisibility(f.visibility, 'public') : Visibility.Public;
  try {
    return await withTx(ctx, async (tx) => {
      if (await findUserByName(tx, name)) throw new Validation(`user already exists [name: ${name}]`);
      const org = await insertOrg(tx, {
        name, fullName: f.full_name ?? '', email: f.email ?? '', description: f.description ?? '', website: f.website ?? '',
        location: f.location ?? '', visibility, repoAdminChangeTeamAccess: f.repo_admin_change_team_access ?? false,
      });
      const team = await insertTeam(tx, {
        orgId: org.id, name: OWNER_TEAM_NAME, description: '', authorize: AccessMode.Owner, includesAllRepositories: true, canCreateOrgRepo: true,
      });
      await replaceTeamUnits(tx, org.id, team.id, highTeamUnits(AccessMode.Owner));
      await insertTeamUser(tx, org.id, team.id, owner.id);
      await ensureOrgUser(tx, org.id, owner.id);
      // why: the name is taken again, so an old name of a renamed account no longer leads there.
      await deleteUserRedirect(tx, name);
      return org;
    });
  } catch (err) {
    // why: two creations racing for one name meet the unique index; that is the same 422 as a taken name.
    if (isUniqueViolation(err)) throw new Validation(`user already exists [name: ${name}]`);
    throw err;
  }
}

/** Apply the fields that are present; omitted fields keep their value (email and visibility also ignore ""). */
export async function editOrg(ctx: DbContext, org: UserModel, f: OrgFields): Promise<UserModel> {
  checkFields(f);
  const patch: UserSettingsPatch = {};
  if (f.full_name !== undefined) patch.fullName = f.full_name;
  if (f.description !== undefined) patch.description = f.description;
  if (f.website !== undefined) patch.website = f.website;
  if (f.location !== undefined) patch.location = f.location;
  if (f.email) patch.email = f.email;
  if (f.visibility) patch.visibility = parseVisibility(f.visibility, 'public');
  if (f.repo_admin_change_team_access !== undefined) patch.repoAdminChangeTeamAccess = f.repo_admin_change_team_access;
  return withTx(ctx, async (tx) => {
    await updateUserSettings(tx, org.id, patch);
    return (await findUserById(tx, org.id))!;
  });
}

/**
 * Rename an organization (Gitea's RenameUser on the organization): its repositories follow, and the
 * old name keeps leading to it (API, pages and clone URLs answer 307) until another account takes it.
 */
export function renameOrg(ctx: DbContext, org: UserModel, newName: string): Promise<void> {
  return renameAccount(ctx, org, newName);
}

/** Delete an organization with its teams, memberships and avatar; refused (422) while it owns repositories. */
export async function deleteOrg(ctx: DbContext, org: UserModel): Promise<void> {
  await withTx(ctx, async (tx) => {
    if ((await countReposOfOwner(tx, org.id)) > 0) throw new Validation(`user still has ownership of repositories [uid: ${org.id}]`);
    await deleteTeamReposOfOrg(tx, org.id);
    await deleteTeamUnitsOfOrg(tx, org.id);
    await deleteTeamUsersOfOrg(tx, org.id);
    await deleteTeamsOfOrg(tx, org.id);
    await deleteOrgUsersOf(tx, org.id);
    await deleteBlocksOf(tx, org.id);
    await deleteRedirectsTo(tx, org.id);
    // why: an organization with no repositories has no issues left, so its labels have no links either.
    await deleteLabelsOf(tx, { orgId: org.id });
    await deleteProjectsOf(tx, { ownerId: org.id });
    await deleteOrgRow(tx, org.id);
  });
  // why: the file goes after the row, so a failure in between leaves an unused file, never a row naming a missing one.
  if (org.avatar) await removeAvatar(org.avatar);
}

/** Which organization visibilities a caller may list. */
function visibleModes(p: Principal): Visibility[] {
  const u = p.user;
  if (p.scopes?.publicOnly || !u) return [Visibility.Public];
  if (u.isAdmin) return [Visibility.Public, Visibility.Limited, Visibility.Private];
  return u.isRestricted ? [Visibility.Public] : [Visibility.Public, Visibility.Limited];
}

/** One page of the organizations a caller may see (GET /orgs), those whose name or full name holds `keyword` when given. */
export function listVisibleOrgs(ctx: DbContext, p: Principal, limit: number, offset: number, keyword = ''): Promise<{ rows: UserModel[]; count: number }> {
  return listOrgs(ctx, visibleModes(p), limit, offset, keyword);
}

/**
 * One page of the organizations the explore page lists to a caller: those GET /orgs lists, and,
 * as Gitea's web explore, the private ones the caller is a member of.
 */
export function listExploreOrgs(ctx: DbContext, p: Principal, limit: number, offset: number, keyword = ''): Promise<{ rows: UserModel[]; count: number }> {
  const member = p.user && !p.scopes?.publicOnly ? p.user.id : undefined;
  return listOrgs(ctx, visibleModes(p), limit, offset, keyword, member);
}

/** One page of every organization (site administrators), those whose name or full name holds `keyword` when given. */
export function listAllOrgs(ctx: DbContext, limit: number, offset: number, keyword = ''): Promise<{ rows: UserModel[]; count: number }> {
  return listOrgs(ctx, [Visibility.Public, Visibility.Limited, Visibility.Private], limit, offset, keyword);
}

/**
 * One page of the organizations of `member` as `p` may see them: the member itself and site
 * admins see every membership; others only public memberships of organizations visible to them.
 */
export function listOrgsOf(ctx: DbContext, p: Principal, member: UserModel, limit: number, offset: number): Promise<{ rows: UserModel[]; count: number }> {
  const self = !!p.user && (p.user.isAdmin || p.user.id === member.id) && !p.scopes?.publicOnly;
  if (self) return listOrgsOfMember(ctx, member.id, { publicMembershipOnly: false, visibilities: [Visibility.Public, Visibility.Limited, Visibility.Private] }, limit, offset);
  return listOrgsOfMember(ctx, member.id, { publicMembershipOnly: true, visibilities: visibleModes(p) }, limit, offset);
}

/** What a user may do in an organization, from the highest mode of its teams. */
export interface OrgPermissions { isOwner: boolean; isAdmin: boolean; canWrite: boolean; canRead: boolean; canCreateRepository: boolean }

/** The permissions of `user` in `org`; 404 (null) when the organization is hidden from that user. */
export async function orgPermissionsOf(ctx: DbContext, org: UserModel, user: UserModel): Promise<OrgPermissions | null> {
  const asUser: Principal = { user, scopes: null, tokenId: null, method: 'token' };
  if (!(await canSeeOwner(ctx, asUser, org))) return null;
  const teams = await teamsOfUserInOrg(ctx, org.id, user.id);
  const level = teams.reduce((m, t) => Math.max(m, t.authorize), AccessMode.None);
  return {
    canRead: level > AccessMode.None,
    canWrite: level > AccessMode.Read,
    isAdmin: level > AccessMode.Write,
    isOwner: level > AccessMode.Admin,
    canCreateRepository: level >= AccessMode.Owner || teams.some((t) => t.canCreateOrgRepo),
  };
}
