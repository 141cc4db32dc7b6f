/**
 * The one permission function. Every access to a repository (API, web, raw, archive, LFS, smart
 * HTTP, SSH, attachments) asks `repoPermission`/`can`; every look at a user or organization asks
 * `canSeeOwner`. Grants combine: site admin, owner, organization owners, teams (maximum across
 * teams, per unit), collaborators, and public read; then disabled units and token scopes cut them down.
 */
import type { DbContext } from '../../db';
import { UserType, Visibility, type UserModel } from '../../models/user.model';
import type { RepositoryModel } from '../../models/repository.model';
import { AccessMode, UnitType } from '../../models/perm';
import { enabledUnits, collaboratorMode, teamGrants, orgMembership } from '../../models/access';
import { hasScope, ScopeLevel, type ScopeCategory } from '../auth/scope';
import type { Principal } from '../auth/principal';

/** A caller's access to one repository: a mode per enabled unit. */
export class RepoPermission {
  constructor(public readonly units: Map<UnitType, AccessMode>, public readonly isOwnerOrAdmin: boolean) {}
  /** The access mode on one unit (None when the unit is disabled). */
  unitMode(unit: UnitType): AccessMode {
    return this.units.get(unit) ?? AccessMode.None;
  }
  /** The highest mode on any unit: what "can see the repository at all" and "admin of it" mean. */
  get mode(): AccessMode {
    let m = AccessMode.None;
    for (const v of this.units.values()) if (v > m) m = v;
    return m;
  }
  /** Can the caller reach `unit` with at least `mode`? */
  can(unit: UnitType, mode: AccessMode): boolean {
    return this.unitMode(unit) >= mode;
  }
}

/** The token scope category that guards a unit. */
export function scopeCategoryOf(unit: UnitType): ScopeCategory {
  return unit === UnitType.Issues || unit === UnitType.PullRequests ? 'issue' : 'repository';
}

/**
 * May `viewer` see this user or organization at all? Public: everyone. Limited: any signed-in
 * user. Private: site admins, the user itself, and members of the organization.
 */
export async function canSeeOwner(ctx: DbContext, viewer: Principal, owner: UserModel): Promise<boolean> {
  const u = viewer.user;
  if (viewer.scopes?.publicOnly && owner.visibility !== Visibility.Public) return false;
  if (owner.visibility === Visibility.Public) return true;
  if (!u) return false;
  if (u.isAdmin || u.id === owner.id) return true;
  if (owner.type === UserType.Organization) {
    const membership = await orgMembership(ctx, owner.id, u.id);
    if (membership !== 'none') return true;
    return owner.visibility === Visibility.Limited && !u.isRestricted;
  }
  return owner.visibility === Visibility.Limited && !u.isRestricted;
}

/** Compute the caller's permission on a repository owned by `owner`. */
export async function repoPermission(ctx: DbContext, p: Principal, repo: RepositoryModel, owner: UserModel): Promise<RepoPermission> {
  const units = await enabledUnits(ctx, repo.id);
  const grant = (mode: AccessMode, ownerOrAdmin = false) => new RepoPermission(new Map(units.map((u) => [u, mode])), ownerOrAdmin);
  const none = grant(AccessMode.None);
  if (p.scopes?.publicOnly && (repo.isPrivate || owner.visibility !== Visibility.Public)) return none;

  let perm: RepoPermission;
  if (p.deployKey) {
    perm = p.deployKey.repoId === repo.id ? grant(Math.min(p.deployKey.mode, AccessMode.Write)) : none;
    // why: as Gitea, a deploy key reaches the repository's git data, code and wiki, and nothing else.
    perm.units.forEach((_, u) => u !== UnitType.Code && u !== UnitType.Wiki && perm.units.set(u, AccessMode.None));
  } else if (p.actionsTask) {
    // why: as Gitea 1.24, a job's token writes every unit of its own repository (reads, for a fork's pull request) and reaches no other.
    perm = p.actionsTask.repoId === repo.id ? grant(p.actionsTask.readOnly ? AccessMode.Read : AccessMode.Write) : none;
  } else {
    perm = await grantsOf(ctx, p, repo, owner, units, grant);
  }
  return applyScopes(p, perm);
}

async function grantsOf(
  ctx: DbContext, p: Principal, repo: RepositoryModel, owner: UserModel, units: UnitType[],
  grant: (mode: AccessMode, ownerOrAdmin?: boolean) => RepoPermission,
): Promise<RepoPermission> {
  const u = p.user;
  const ownerVisible = await canSeeOwner(ctx, p, owner);
  const publicRead = !repo.isPrivate && ownerVisible && !(u?.isRestricted);
  if (!u) return grant(publicRead ? AccessMode.Read : AccessMode.None);
  if (u.isAdmin || u.id === owner.id) return grant(AccessMode.Owner, true);

  const modes = new Map<UnitType, AccessMode>(units.map((x) => [x, publicRead ? AccessMode.Read : AccessMode.None]));
  const raise = (unit: UnitType, m: AccessMode) => {
    if (modes.has(unit) && m > (modes.get(unit) ?? AccessMode.None)) modes.set(unit, m);
  };
  const collab = await collaboratorMode(ctx, repo.id, u.id);
  if (collab !== null) for (const x of units) raise(x, collab);

  if (owner.type === UserType.Organization) {
    for (const t of await teamGrants(ctx, owner.id, u.id, repo.id)) {
      // why: as in Gitea, a team with admin (or owner) mode makes its members owners of the repository, on every unit.
      if (t.authorize >= AccessMode.Admin) return grant(AccessMode.Owner, true);
      // otherwise each unit has the team's per-unit mode (Gitea 1.24 units_map).
      for (const x of units) raise(x, t.units.get(x) ?? AccessMode.None);
    }
  }
  return new RepoPermission(modes, false);
}

function applyScopes(p: Principal, perm: RepoPermission): RepoPermission {
  if (!p.scopes) return perm;
  const scopes = p.scopes;
  const units = new Map<UnitType, AccessMode>();
  for (const [unit, mode] of perm.units) {
    const cat = scopeCategoryOf(unit);
    const cap = hasScope(scopes, cat, ScopeLevel.Write) ? mode : hasScope(scopes, cat, ScopeLevel.Read) ? Math.min(mode, AccessMode.Read) : AccessMode.None;
    units.set(unit, cap as AccessMode);
  }
  return new RepoPermission(units, perm.isOwnerOrAdmin);
}

/** Can the caller reach `unit` of the repository with at least `mode`? */
export async function can(ctx: DbContext, p: Principal, repo: RepositoryModel, owner: UserModel, unit: UnitType, mode: AccessMode): Promise<boolean> {
  return (await repoPermission(ctx, p, repo, owner)).can(unit, mode);
}
