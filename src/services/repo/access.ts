/**
 * The unit guards of the branch, tag and release routes, as Gitea's reqRepoReader, reqRepoWriter
 * and mustNotBeArchived answer them; every decision comes from the one permission function
 * (RepoContext.perm).
 */
import { HttpError, Forbidden, NotFound } from '../../errors';
import { repoPath } from '../../git/paths';
import { AccessMode, UnitType } from '../../models/perm';
import type { RepoContext } from './context';

/**
 * 404 when the unit is disabled on the repository (so a disabled releases unit looks like no
 * releases at all), 403 when it is enabled but the caller cannot read it.
 */
export function assertUnitReadable(rc: RepoContext, unit: UnitType): void {
  if (!rc.perm.units.has(unit)) throw new NotFound();
  if (!rc.perm.can(unit, AccessMode.Read)) throw new Forbidden('user should have specific read permission or be a repo admin or a site admin');
}

/** 403 unless the caller may write the unit (after it is known to be readable). */
export function assertUnitWriter(rc: RepoContext, unit: UnitType): void {
  assertUnitReadable(rc, unit);
  if (!rc.perm.can(unit, AccessMode.Write)) throw new Forbidden('user should have a permission to write to a repo');
}

/** 423 for writes to an archived repository. */
export function assertNotArchived(rc: RepoContext): void {
  if (rc.repo.isArchived) throw new HttpError(423, `repo ${rc.owner.name}/${rc.repo.name} is archived`);
}

/** May the caller write the unit? (for the user_can_* flags) */
export function canWrite(rc: RepoContext, unit: UnitType): boolean {
  return rc.perm.can(unit, AccessMode.Write);
}

/** Is the caller an admin of the repository? */
export function isRepoAdmin(rc: RepoContext): boolean {
  return rc.perm.mode >= AccessMode.Admin;
}

/** The bare repository directory. */
export function gitDirOf(rc: RepoContext): string {
  return repoPath(rc.owner.name, rc.repo.name);
}

export { UnitType };
