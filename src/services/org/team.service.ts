/**
 * Teams: creation and editing with Gitea 1.24's permission rules (units_map wins over the
 * deprecated units; a team below admin gets the lowest mode of its units), deletion, members and
 * repositories. The Owners team keeps its mode, its name and at least one member.
 */
import { withTx, isUniqueViolation, type DbContext } from '../../db';
import { Forbidden, NotFound, Validation } from '../../errors';
import type { UserModel } from '../../models/user.model';
import type { RepositoryModel } from '../../models/repository.model';
import { findRepoByOwnerAndName } from '../../models/repository.model';
import { TeamModel, findTeamByName, insertTeam, saveTeam, deleteTeamRow, OWNER_TEAM_NAME } from '../../models/team.model';
import { insertTeamUser, deleteTeamUser, deleteTeamUsersOfTeam, countTeamsOfUserInOrg, isTeamMember } from '../../models/team-user.model';
import { unitsOfTeams, replaceTeamUnits } from '../../models/team-unit.model';
import { insertTeamRepo, deleteTeamRepo, deleteTeamReposOfTeam, hasTeamRepo } from '../../models/team-repo.model';
import { ensureOrgUser, deleteOrgUser } from '../../models/org-user.model';
import { isBlocked } from '../../models/user-blocking.model';
import { AccessMode, UnitType, parseAccessMode, unitFromKey } from '../../models/perm';
import { assertTeamName } from '../user/validate';
import { repoPermission } from '../perm/permission';
import { highTeamUnits } from './org.service';
import { assertNotLastOwner } from './member.service';
import type { Principal } from '../auth/principal';

/** Team fields as the API names them (create and edit). */
export interface TeamFields {
  name?: string;
  description?: string;
  includes_all_repositories?: boolean;
  permission?: string;
  units?: string[];
  units_map?: Record<string, string>;
  can_create_org_repo?: boolean;
}

/** Is this the organization's Owners team? */
export function isOwnerTeam(team: TeamModel): boolean {
  return team.authorize >= AccessMode.Owner && team.lowerName === OWNER_TEAM_NAME.toLowerCase();
}

function parseUnitsMap(map: Record<string, string>): Map<UnitType, AccessMode> {
  const out = new Map<UnitType, AccessMode>();
  for (const [key, value] of Object.entries(map)) {
    const unit = unitFromKey(key);
    if (unit === undefined) throw new Validation(`[UnitsMap]: unknown unit "${key}"`);
    const mode = parseAccessMode(value);
    if (mode === undefined || mode > AccessMode.Admin) throw new Validation(`[UnitsMap]: "${value}" is not an access mode for ${key} (none, read, write or admin)`);
    // why: external trackers and wikis can only be read, as in Gitea.
    out.set(unit, unit === UnitType.ExternalTracker || unit === UnitType.ExternalWiki ? Math.min(mode, AccessMode.Read) : mode);
  }
  return out;
}

/** The lowest mode above none among the units (external ones aside); none when all are none. */
function minUnitMode(units: Map<UnitType, AccessMode>): AccessMode {
  let res = AccessMode.None;
  for (const [u, m] of units) {
    if (u === UnitType.ExternalTracker || u === UnitType.ExternalWiki) continue;
    if (m > AccessMode.None && (res === AccessMode.None || m < res)) res = m;
  }
  return res;
}

/** The team mode and unit rows the fields ask for; `units` null means "keep the current rows". */
function resolveAccess(f: TeamFields, current: AccessMode | null): { authorize: AccessMode; units: Map<UnitType, AccessMode> | null } {
  let authorize = f.permission ? parseAccessMode(f.permission) ?? AccessMode.None : current ?? AccessMode.None;
  const map = f.units_map && Object.keys(f.units_map).length ? parseUnitsMap(f.units_map) : null;
  if (authorize >= AccessMode.Admin) return { authorize, units: highTeamUnits(AccessMode.Admin) };
  if (map) return { authorize: minUnitMode(map), units: map };
  if (f.units?.length) {
    // why: the deprecated list gives each named unit the team's mode; Gitea drops unknown names.
    const known = f.units.map(unitFromKey).filter((u): u is UnitType => u !== undefined);
    authorize = authorize === AccessMode.None ? AccessMode.Read : authorize;
    return { authorize, units: new Map(known.map((u) => [u, u === UnitType.ExternalTracker || u === UnitType.ExternalWiki ? AccessMode.Read : authorize])) };
  }
  if (current === null) throw new Validation('units permission should not be empty');
  return { authorize, units: null };
}

function checkName(name: string): void {
  assertTeamName(name);
  if (name.toLowerCase() === 'new') throw new Validation('name is reserved [name: new]');
}

/** Create a team in `org`. */
export async function createTeam(ctx: DbContext, org: UserModel, f: TeamFields & { name: string }): Promise<TeamModel> {
  checkName(f.name);
  const access = resolveAccess(f, null);
  const exists = () => new Validation(`team already exists [org_id: ${org.id}, name: ${f.name.toLowerCase()}]`);
  try {
    return await withTx(ctx, async (tx) => {
      if (await findTeamByName(tx, org.id, f.name)) throw exists();
      const team = await insertTeam(tx, {
        orgId: org.id, name: f.name, description: f.description ?? '', authorize: access.authorize,
        includesAllRepositories: f.includes_all_repositories ?? false, canCreateOrgRepo: f.can_create_org_repo ?? false,
      });
      await replaceTeamUnits(tx, org.id, team.id, access.units!);
      return team;
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw exists();
    throw err;
  }
}

/**
 * Edit a team: only fields that are present change. The Owners team keeps its name, mode, units
 * and includes_all_repositories, and can always create repositories.
 */
export async function editTeam(ctx: DbContext, team: TeamModel, f: TeamFields): Promise<TeamModel> {
  const owners = isOwnerTeam(team);
  if (f.name !== undefined && f.name !== '' && f.name !== team.name) {
    checkName(f.name);
    if (owners) throw new Validation('the Owners team cannot be renamed');
  }
  const access = owners ? null : resolveAccess(f, team.authorize as AccessMode);
  const exists = () => new Validation(`team already exists [org_id: ${team.orgId}, name: ${(f.name ?? '').toLowerCase()}]`);
  try {
    return await withTx(ctx, async (tx) => {
      if (f.name && f.name !== team.name) {
        const other = await findTeamByName(tx, team.orgId, f.name);
        if (other && other.id !== team.id) throw exists();
        team.name = f.name;
      }
      if (f.description !== undefined) team.description = f.description;
      if (f.can_create_org_repo !== undefined) team.canCreateOrgRepo = owners || f.can_create_org_repo;
      if (access) {
        if (f.includes_all_repositories !== undefined) team.includesAllRepositories = f.includes_all_repositories;
        let units = access.units;
        if (!units && access.authorize !== team.authorize) {
          // why: a new mode without new units applies to the units the team already has.
          const cur = (await unitsOfTeams(tx, [team.id])).get(team.id)!;
          units = new Map([...cur.keys()].map((u) => [u, u === UnitType.ExternalTracker || u === UnitType.ExternalWiki ? AccessMode.Read : access.authorize]));
        }
        team.authorize = access.authorize;
        if (units) await replaceTeamUnits(tx, team.orgId, team.id, units);
      }
      await saveTeam(tx, team);
      return team;
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw exists();
    throw err;
  }
}

/** Members left in no team of the organization leave it. */
async function dropIfTeamless(ctx: DbContext, orgId: number, uid: number): Promise<void> {
  if ((await countTeamsOfUserInOrg(ctx, orgId, uid)) === 0) await deleteOrgUser(ctx, orgId, uid);
}

/** Delete a team, its units, members and repository links; the Owners team cannot be deleted (422). */
export async function deleteTeam(ctx: DbContext, team: TeamModel): Promise<void> {
  if (isOwnerTeam(team)) throw new Validation('the Owners team cannot be deleted');
  await withTx(ctx, async (tx) => {
    await deleteTeamReposOfTeam(tx, team.id);
    await replaceTeamUnits(tx, team.orgId, team.id, new Map());
    const members = await deleteTeamUsersOfTeam(tx, team.id);
    await deleteTeamRow(tx, team.id);
    for (const uid of members) await dropIfTeamless(tx, team.orgId, uid);
  });
}

/** Add a user to a team (and so to the organization); 403 when the organization blocks the user. */
export async function addTeamMember(ctx: DbContext, team: TeamModel, user: UserModel): Promise<void> {
  await withTx(ctx, async (tx) => {
    if (await isBlocked(tx, team.orgId, user.id)) throw new Forbidden('user is blocked');
    await insertTeamUser(tx, team.orgId, team.id, user.id);
    await ensureOrgUser(tx, team.orgId, user.id);
  });
}

/** Remove a user from a team; the last owner stays (422). A user left in no team leaves the organization. */
export async function removeTeamMember(ctx: DbContext, team: TeamModel, user: UserModel): Promise<void> {
  await withTx(ctx, async (tx) => {
    if (!(await isTeamMember(tx, team.id, user.id))) return;
    if (isOwnerTeam(team)) await assertNotLastOwner(tx, team.orgId, user.id);
    await deleteTeamUser(tx, team.id, user.id);
    await dropIfTeamless(tx, team.orgId, user.id);
  });
}

/** A repository of the team's organization by name; 404 when missing. */
export async function orgRepoByName(ctx: DbContext, org: UserModel, name: string): Promise<RepositoryModel> {
  const repo = await findRepoByOwnerAndName(ctx, org.id, name);
  if (!repo) throw new NotFound(`repository does not exist [name: ${name}]`);
  return repo;
}

/** Does the team reach this repository (linked, or through includes_all_repositories)? */
export async function teamHasRepo(ctx: DbContext, team: TeamModel, repo: RepositoryModel): Promise<boolean> {
  return (team.includesAllRepositories && repo.ownerId === team.orgId) || hasTeamRepo(ctx, team.id, repo.id);
}

async function assertRepoAdmin(ctx: DbContext, p: Principal, repo: RepositoryModel, org: UserModel): Promise<void> {
  if ((await repoPermission(ctx, p, repo, org)).mode < AccessMode.Admin) throw new Forbidden('Must have admin-level access to the repository');
}

/** Link a repository to a team; the caller needs admin access to the repository. */
export async function addTeamRepo(ctx: DbContext, p: Principal, team: TeamModel, org: UserModel, repo: RepositoryModel): Promise<void> {
  await assertRepoAdmin(ctx, p, repo, org);
  await insertTeamRepo(ctx, team.orgId, team.id, repo.id);
}

/** Unlink a repository from a team; the caller needs admin access to the repository. */
export async function removeTeamRepo(ctx: DbContext, p: Principal, team: TeamModel, org: UserModel, repo: RepositoryModel): Promise<void> {
  await assertRepoAdmin(ctx, p, repo, org);
  if (team.includesAllRepositories) throw new Validation('the team includes all repositories of the organization; turn includes_all_repositories off first');
  await deleteTeamRepo(ctx, team.id, repo.id);
}

/** The unit rows of these teams, by team id. */
export function teamUnits(ctx: DbContext, teams: TeamModel[]): Promise<Map<number, Map<UnitType, AccessMode>>> {
  return unitsOfTeams(ctx, teams.map((t) => t.id));
}
