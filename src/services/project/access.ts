/**
 * Who may see and change project boards, as Gitea 1.24 decides it. A repository's projects: readers
 * of its Projects unit see them while the unit's mode allows repository projects (`repo` or `all`),
 * writers of the unit change them (not in an archived repository). An owner's projects: whoever may
 * see the user or organization sees them; the user itself, the organization's owners and the members
 * of its teams with write on the Projects unit change them (site administrators always). A card is
 * shown only to those who may read its issue in its own repository.
 */
import type { DbContext } from '../../db';
import { Forbidden, NotFound } from '../../errors';
import { orgPackageModes } from '../../models/access';
import { AccessMode, UnitType } from '../../models/perm';
import type { ProjectPlace } from '../../models/project.model';
import { parseProjectsMode, unitConfigOf, type ProjectsMode } from '../../models/repo-unit.model';
import { findReposByIds, type RepositoryModel } from '../../models/repository.model';
import { findUserByName, findUsersByIds, UserType, type UserModel } from '../../models/user.model';
import type { Principal } from '../auth/principal';
import { canSeeOwner, repoPermission } from '../perm/permission';
import type { RepoContext } from '../repo/context';

/** The projects a page or form works on: a repository's, or an owner's. */
export interface ProjectScope {
  place: ProjectPlace;
  /** The repository of a repository's projects; null for an owner's. */
  rc: RepoContext | null;
  /** The repository's owner, or the owner of the projects. */
  owner: UserModel;
  /** May the caller create, edit, close and delete projects, change columns and move cards? */
  canWrite: boolean;
}

/** The projects unit's mode of a repository, or null while the unit is off. */
export async function projectsModeOf(ctx: DbContext, repoId: number): Promise<ProjectsMode | null> {
  const config = await unitConfigOf(ctx, repoId, UnitType.Projects);
  return config === null ? null : parseProjectsMode(config);
}

/** Does `mode` let the repository's issues join projects of `kind` (Gitea's IsProjectsAllowed)? */
export function projectsAllowed(mode: ProjectsMode | null, kind: 'repo' | 'owner'): boolean {
  return mode === kind || mode === 'all';
}

/** A repository's projects for the caller; 404 unless they may read the Projects unit and it allows repository projects. */
export async function repoProjects(ctx: DbContext, rc: RepoContext, p: Principal): Promise<ProjectScope> {
  if (!rc.perm.can(UnitType.Projects, AccessMode.Read) || !projectsAllowed(await projectsModeOf(ctx, rc.repo.id), 'repo')) throw new NotFound();
  return {
    place: { repoId: rc.repo.id }, rc, owner: rc.owner,
    canWrite: !!p.user && !rc.repo.isArchived && rc.perm.can(UnitType.Projects, AccessMode.Write),
  };
}

/**
 * The caller's mode on an owner's projects: Owner for the user itself and site administrators, an
 * organization's owners (a team of owner mode) and teams with the Projects unit give their mode, and
 * whoever may see the owner reads.
 */
export async function ownerProjectMode(ctx: DbContext, p: Principal, owner: UserModel): Promise<AccessMode> {
  const u = p.user;
  if (u && (u.isAdmin || u.id === owner.id)) return AccessMode.Owner;
  let mode = AccessMode.None;
  if (u && owner.type === UserType.Organization) {
    const { team, unit } = await orgPackageModes(ctx, owner.id, u.id, UnitType.Projects);
    // why: as Gitea's Organization.UnitPermission: an owners' team rules every unit; other teams give their Projects unit's mode.
    mode = team >= AccessMode.Admin ? AccessMode.Owner : unit;
  }
  if (mode === AccessMode.None && (await canSeeOwner(ctx, p, owner))) mode = AccessMode.Read;
  return mode;
}

/** The projects of the user or organization named `name` for the caller; 404 when there is none they may see. */
export async function ownerProjects(ctx: DbContext, p: Principal, name: string): Promise<ProjectScope> {
  const owner = await findUserByName(ctx, name);
  if (!owner || (owner.type !== UserType.Individual && owner.type !== UserType.Organization)) throw new NotFound();
  const mode = await ownerProjectMode(ctx, p, owner);
  if (mode < AccessMode.Read) throw new NotFound();
  return { place: { ownerId: owner.id }, rc: null, owner, canWrite: !!p.user && mode >= AccessMode.Write };
}

/** 403 unless the caller may change the projects of `scope`. */
export function assertProjectWriter(scope: ProjectScope): void {
  if (!scope.canWrite) throw new Forbidden('Only authorized users are allowed to perform this action.');
}

/** What the caller may read in one repository holding cards: its issues, its pull requests. */
export interface CardRepo { repo: RepositoryModel; owner: UserModel; issues: boolean; pulls: boolean }

/**
 * The repositories among `repoIds` whose issues or pull requests the caller may read, with which.
 * why: an owner's board gathers cards from many repositories; one the viewer cannot read must not
 * show even a title. One query for the rows, then the permission function once per repository
 * (its answers cached), never once per card.
 */
export async function readableCardRepos(ctx: DbContext, p: Principal, scope: ProjectScope, repoIds: number[]): Promise<Map<number, CardRepo>> {
  const out = new Map<number, CardRepo>();
  const rc = scope.rc;
  if (rc) {
    out.set(rc.repo.id, { repo: rc.repo, owner: rc.owner, issues: rc.perm.can(UnitType.Issues, AccessMode.Read), pulls: rc.perm.can(UnitType.PullRequests, AccessMode.Read) });
    return out;
  }
  const repos = await findReposByIds(ctx, [...new Set(repoIds)]);
  const others = repos.filter((r) => r.ownerId !== scope.owner.id).map((r) => r.ownerId);
  const owners = new Map([[scope.owner.id, scope.owner], ...(await findUsersByIds(ctx, others)).map((u): [number, UserModel] => [u.id, u])]);
  for (const repo of repos) {
    const owner = owners.get(repo.ownerId);
    if (!owner || !(await canSeeOwner(ctx, p, owner))) continue;
    const perm = await repoPermission(ctx, p, repo, owner);
    const issues = perm.can(UnitType.Issues, AccessMode.Read);
    const pulls = perm.can(UnitType.PullRequests, AccessMode.Read);
    if (issues || pulls) out.set(repo.id, { repo, owner, issues, pulls });
  }
  return out;
}

/** May the caller see this card (its issue, in its repository)? */
export function cardVisible(repos: Map<number, CardRepo>, card: { repoId: number; isPull: boolean }): boolean {
  const r = repos.get(card.repoId);
  return !!r && (card.isPull ? r.pulls : r.issues);
}
