/** Organization and team rows -> API objects. */
import type { Organization, Team } from '../api/org';
import { VISIBILITY_NAMES, type UserModel } from '../models/user.model';
import type { TeamModel } from '../models/team.model';
import { ACCESS_MODE_NAMES, AccessMode, ALL_UNITS, UNIT_KEYS, type UnitType } from '../models/perm';
import { avatarUrl, type Viewer } from './user';

/** Convert an organization; its email is hidden from anonymous viewers, as Gitea does. */
export function toOrganization(org: UserModel, viewer: Viewer | null, rootUrl: string): Organization {
  return {
    id: org.id,
    name: org.name,
    full_name: org.fullName,
    email: viewer ? org.email : '',
    avatar_url: avatarUrl(org, rootUrl),
    description: org.description,
    website: org.website,
    location: org.location,
    visibility: VISIBILITY_NAMES[org.visibility] ?? 'public',
    repo_admin_change_team_access: org.repoAdminChangeTeamAccess,
    username: org.name,
  };
}

/**
 * Convert a team with its unit rows. An admin or owner team has every unit at its own mode; a
 * lower team lists its unit rows, each with its mode (Gitea's units / units_map).
 */
export function toTeam(team: TeamModel, units: Map<UnitType, AccessMode>, org: Organization | null): Team {
  const high = team.authorize >= AccessMode.Admin;
  const entries: [UnitType, AccessMode][] = high ? ALL_UNITS.map((u) => [u, team.authorize as AccessMode]) : [...units].sort((a, b) => a[0] - b[0]);
  return {
    id: team.id,
    name: team.name,
    description: team.description,
    organization: org,
    includes_all_repositories: team.includesAllRepositories,
    permission: ACCESS_MODE_NAMES[team.authorize as AccessMode] ?? 'none',
    units: entries.map(([u]) => UNIT_KEYS[u]),
    units_map: Object.fromEntries(entries.map(([u, m]) => [UNIT_KEYS[u], ACCESS_MODE_NAMES[m] ?? 'none'])),
    can_create_org_repo: team.canCreateOrgRepo,
  };
}
