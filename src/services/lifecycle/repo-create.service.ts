/**
 * Creating repositories: name rules, creation limits, who may create in an organization, the row
 * with its default units, the bare repository on disk and the optional first commit. Forks and
 * generated repositories insert their rows through the same insertOwnedRepo.
 */
import { withTx, isUniqueViolation, type DbContext } from '../../db';
import { Conflict, Validation } from '../../errors';
import { settings } from '../../config';
import { repoPath } from '../../git/paths';
import { initBare, commitInitialFiles, dirExists, removeRepoDir, validBranchName } from '../../git/init';
import { recordInitialRefs } from '../git-push/sync.service';
import { findUserById, UserType, type UserModel } from '../../models/user.model';
import {
  findRepoById, findRepoByOwnerAndName, insertRepoWithUnits, deleteRepoRows, adjustNumRepos, type NewRepoRow, type RepositoryModel,
} from '../../models/repository.model';
import { teamsOfUserInOrg } from '../../models/team.model';
import { insertTeamRepo } from '../../models/team-repo.model';
import { orgMembership } from '../../models/access';
import { UnitType } from '../../models/perm';
import type { CreateRepoOption } from '../../api/repo';
import { applyLabelTemplate, labelTemplate } from '../issue/label.service';
import { initialFiles } from '../repo/templates';
import { copyDefaultWebhooks } from '../../models/webhook.model';
import { insertWatch } from '../../models/watch.model';
import { notify } from '../notify/notifier';
import { RepoLimitKind, assertRepoLimit, assertRepoName } from '../repo/rules';

/** Units a new repository starts with. */
export const DEFAULT_UNITS: UnitType[] = [
  UnitType.Code, UnitType.Issues, UnitType.PullRequests, UnitType.Releases, UnitType.Wiki,
  UnitType.Projects, UnitType.Packages, UnitType.Actions,
];

const TAKEN = 'The repository with the same name already exists.';

/** How insertOwnedRepo answers a taken name and a reached limit, and what else belongs in its transaction. */
export interface InsertRules {
  kind: RepoLimitKind;
  taken: (owner: UserModel, name: string) => string;
  /** More checks and writes that must commit (or fail) with the row, run before it is inserted. */
  check?: (tx: DbContext) => Promise<void>;
}

/**
 * Insert the row of a new repository of `owner` (name unused, limit not reached, re-checked inside
 * the transaction on a fresh owner row), count it, and give a creator who is not an organization
 * owner access through its can_create_org_repo teams. Nothing is on disk yet.
 */
export async function insertOwnedRepo(
  ctx: DbContext, doer: UserModel, owner: UserModel, row: Omit<NewRepoRow, 'ownerId' | 'ownerName'>, units: UnitType[], rules: InsertRules,
): Promise<RepositoryModel> {
  const taken = () => new Conflict(rules.taken(owner, row.name));
  return withTx(ctx, async (tx) => {
    if (await findRepoByOwnerAndName(tx, owner.id, row.name)) throw taken();
    // why: read the owner inside the transaction (not the request's cached copy) so the count is current.
    assertRepoLimit(doer, (await findUserById(tx, owner.id)) ?? owner, rules.kind);
    if (rules.check) await rules.check(tx);
    const created = await insertRepoWithUnits(tx, { ...row, ownerId: owner.id, ownerName: owner.name }, units);
    await adjustNumRepos(tx, owner.id, 1);
    await copyDefaultWebhooks(tx, created.id);
    // why: as Gitea's AUTO_WATCH_NEW_REPOS, the creator follows what happens in it.
    if (settings().service.autoWatchNewRepos && doer.id > 0) await insertWatch(tx, doer.id, created.id);
    if (owner.type === UserType.Organization && !doer.isAdmin && (await orgMembership(tx, owner.id, doer.id)) !== 'owner') {
      // why: a member who creates through a team's can_create_org_repo must be able to reach the new repository.
      for (const t of await teamsOfUserInOrg(tx, owner.id, doer.id)) if (t.canCreateOrgRepo) await insertTeamRepo(tx, owner.id, t.id, created.id);
    }
    return created;
  }).catch((err: unknown) => {
    if (isUniqueViolation(err)) throw taken();
    throw err;
  });
}

/**
 * Gitea's ErrRepoFilesAlreadyExist: a directory of that name is on disk without a row. It is an
 * unadopted repository for a site administrator to adopt or delete, never replaced by a new one.
 */
export function filesAlreadyExist(owner: string, name: string): Conflict {
  return new Conflict(`repository files already exist [uname: ${owner}, name: ${name}]`);
}

/** Remove a repository that failed to come into being: its directory (when this attempt made it), its rows and its count. */
export async function discardNewRepo(ctx: DbContext, repo: RepositoryModel, dir: string | null): Promise<void> {
  if (dir) await removeRepoDir(dir).catch(() => undefined);
  await withTx(ctx, async (tx) => {
    await deleteRepoRows(tx, repo.id);
    await adjustNumRepos(tx, repo.ownerId, -1);
  });
}

/** Create a repository of `owner` for `doer` (authorization already checked by the caller). */
export async function createRepo(ctx: DbContext, doer: UserModel, owner: UserModel, opt: CreateRepoOption): Promise<RepositoryModel> {
  assertRepoName(opt.name);
  if ((opt.object_format_name ?? 'sha1') !== 'sha1') throw new Validation('object format sha256 is not supported yet');
  const branch = opt.default_branch?.trim() || 'main';
  if (!(await validBranchName(branch))) throw new Validation(`invalid default branch name: ${JSON.stringify(branch)}`);
  // why: an unknown label template is refused before anything is created.
  if (opt.issue_labels) labelTemplate(opt.issue_labels);
  const files = opt.auto_init ? initialFiles({ name: opt.name, description: opt.description ?? '', owner: owner.name, gitignores: opt.gitignores, license: opt.license, readme: opt.readme }) : null;
  const dir = repoPath(owner.name, opt.name);

  // why: the row (with the owner's counter) is committed first and the disk work follows outside the
  // transaction; a failure on disk removes the row again, so no half-made repository stays registered.
  const repo = await insertOwnedRepo(ctx, doer, owner, {
    name: opt.name, description: opt.description ?? '', defaultBranch: branch,
    isPrivate: !!opt.private || settings().repository.forcePrivate, isTemplate: !!opt.template, objectFormatName: 'sha1',
  }, DEFAULT_UNITS, { kind: 'create', taken: () => TAKEN });

  if (await dirExists(dir)) {
    // why: checked once the row holds the name (a taken name answers first, as Gitea checks the row
    // before the files): files there are an unadopted repository; they stay, the new row goes.
    await discardNewRepo(ctx, repo, null);
    throw filesAlreadyExist(owner.name, opt.name);
  }
  try {
    await initBare(dir, branch);
    if (files) {
      await commitInitialFiles(dir, branch, files, { name: doer.name, email: doer.email || `${doer.name}@noreply.localhost` }, 'Initial commit');
      // why: the first commit is written by the server without hooks; the sync records its branch like a push.
      await recordInitialRefs(repo.id, doer.id, branch, ctx);
    }
    if (opt.issue_labels) await applyLabelTemplate(ctx, repo.id, opt.issue_labels);
  } catch (err) {
    await discardNewRepo(ctx, repo, dir);
    throw err;
  }
  // why: the repository exists once its directory does; a creation that failed on disk announces nothing.
  await withTx(ctx, (tx) => notify.repositoryCreated(tx, { doer, repo, owner }));
  return (await findRepoById(ctx, repo.id)) ?? repo;
}
