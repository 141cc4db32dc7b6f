/**
 * Creating repositories: name rules, creation limits, who may create in an organization, the row
 * with its default units, the bare repository on disk and the optional first commit.
 */
import { withTx, isUniqueViolation, type DbContext } from '../../db';
import { Conflict, Forbidden, Validation } from '../../errors';
import { settings } from '../../config';
import { repoPath, assertStorageName } from '../../git/paths';
import { initBare, commitInitialFiles, dirExists, removeRepoDir, validBranchName } from '../../git/init';
import { ZERO_ID } from '../../git/refs';
import { syncRepoRefs } from '../git-push/sync.service';
import { UserType, type UserModel } from '../../models/user.model';
import {
  findRepoById, findRepoByOwnerAndName, insertRepoWithUnits, deleteRepoRows, adjustNumRepos, type RepositoryModel,
} from '../../models/repository.model';
import { teamsOfUserInOrg } from '../../models/team.model';
import { insertTeamRepo } from '../../models/team-repo.model';
import { orgMembership } from '../../models/access';
import { UnitType } from '../../models/perm';
import type { CreateRepoOption } from '../../api/repo';
import { initialFiles } from './templates';

/** Units a new repository starts with. */
export const DEFAULT_UNITS: UnitType[] = [
  UnitType.Code, UnitType.Issues, UnitType.PullRequests, UnitType.Releases, UnitType.Wiki,
  UnitType.Projects, UnitType.Packages, UnitType.Actions,
];

const RESERVED = new Set(['.', '..', '-']);
const RESERVED_SUFFIXES = ['.git', '.rss', '.atom', '.wiki'];

/** Throw 422 unless `name` may name a repository (storage rules plus Gitea's reserved names and patterns). */
export function assertRepoName(name: string): void {
  assertStorageName(name, 'Name');
  if (RESERVED.has(name)) throw new Validation(`name is reserved [name: ${name}]`);
  const suffix = RESERVED_SUFFIXES.find((s) => name.toLowerCase().endsWith(s));
  if (suffix) throw new Validation(`name pattern is not allowed [pattern: *${suffix}]`);
}

/** Throw 403 when `owner` reached its repository limit (site admins are not limited, as in Gitea). */
export function assertCanCreateIn(doer: UserModel, owner: UserModel): void {
  if (doer.isAdmin) return;
  const limit = owner.maxRepoCreation >= 0 ? owner.maxRepoCreation : settings().repository.maxCreationLimit;
  if (limit >= 0 && owner.numRepos >= limit) {
    throw new Forbidden(`user has reached maximum limit of repositories [limit: ${limit}]`);
  }
}

/** Throw 403 unless `doer` may create repositories in organization `org`: owners, or teams with can_create_org_repo. */
export async function assertCanCreateInOrg(ctx: DbContext, doer: UserModel, org: UserModel): Promise<void> {
  if (doer.isAdmin || (await orgMembership(ctx, org.id, doer.id)) === 'owner') return;
  const teams = await teamsOfUserInOrg(ctx, org.id, doer.id);
  if (!teams.some((t) => t.canCreateOrgRepo)) throw new Forbidden('Given user is not allowed to create repository in organization.');
}

const TAKEN = 'The repository with the same name already exists.';

/** Create a repository of `owner` for `doer` (authorization already checked by the caller). */
export async function createRepo(ctx: DbContext, doer: UserModel, owner: UserModel, opt: CreateRepoOption): Promise<RepositoryModel> {
  assertRepoName(opt.name);
  if ((opt.object_format_name ?? 'sha1') !== 'sha1') throw new Validation('object format sha256 is not supported yet');
  const branch = opt.default_branch?.trim() || 'main';
  if (!(await validBranchName(branch))) throw new Validation(`invalid default branch name: ${JSON.stringify(branch)}`);
  const files = opt.auto_init ? initialFiles({ name: opt.name, description: opt.description ?? '', owner: owner.name, gitignores: opt.gitignores, license: opt.license, readme: opt.readme }) : null;
  const dir = repoPath(owner.name, opt.name);

  // why: the row (with the owner's counter) is committed first and the disk work follows outside the
  // transaction; a failure on disk removes the row again, so no half-made repository stays registered.
  const repo = await withTx(ctx, async (tx) => {
    if (await findRepoByOwnerAndName(tx, owner.id, opt.name)) throw new Conflict(TAKEN);
    assertCanCreateIn(doer, owner);
    const row = await insertRepoWithUnits(tx, {
      ownerId: owner.id, ownerName: owner.name, name: opt.name, description: opt.description ?? '', defaultBranch: branch,
      isPrivate: !!opt.private, isTemplate: !!opt.template, objectFormatName: 'sha1',
    }, DEFAULT_UNITS);
    await adjustNumRepos(tx, owner.id, 1);
    if (owner.type === UserType.Organization && !doer.isAdmin && (await orgMembership(tx, owner.id, doer.id)) !== 'owner') {
      // why: a member who creates through a team's can_create_org_repo must be able to reach the new repository.
      for (const t of await teamsOfUserInOrg(tx, owner.id, doer.id)) if (t.canCreateOrgRepo) await insertTeamRepo(tx, owner.id, t.id, row.id);
    }
    return row;
  }).catch((err: unknown) => {
    if (isUniqueViolation(err)) throw new Conflict(TAKEN);
    throw err;
  });

  try {
    // why: a leftover directory without a row (a crash between disk and database) is not anyone's repository; it is replaced.
    if (await dirExists(dir)) await removeRepoDir(dir);
    await initBare(dir, branch);
    if (files) {
      await commitInitialFiles(dir, branch, files, { name: doer.name, email: doer.email || `${doer.name}@noreply.localhost` }, 'Initial commit');
      // why: the first commit is written by the server without hooks; the sync records its branch like a push.
      await syncRepoRefs(repo.id, { pusherId: doer.id, transport: '', updates: [{ old: ZERO_ID, new: ZERO_ID, ref: `refs/heads/${branch}` }] }, ctx);
    }
  } catch (err) {
    await removeRepoDir(dir).catch(() => undefined);
    await withTx(ctx, async (tx) => {
      await deleteRepoRows(tx, repo.id);
      await adjustNumRepos(tx, owner.id, -1);
    });
    throw err;
  }
  return (await findRepoById(ctx, repo.id)) ?? repo;
}
