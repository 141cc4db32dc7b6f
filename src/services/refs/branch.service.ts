/**
 * Branches (`/repos/{owner}/{repo}/branches`): list and get (readers of the code unit), create,
 * delete and rename (writers). The branch table gives the order and the page (as in Gitea: newest
 * commit first, then by name); git gives the truth about each branch. Writes move refs in the object
 * database under the repository lock with the expected old value, then sync (ref-ops.ts).
 */
import { withTx, type DbContext } from '../../db';
import { Conflict, Forbidden, NotFound, Validation } from '../../errors';
import { ZERO_ID } from '../../git/refs';
import { objectInfo } from '../../git/objects';
import { refId, refsUnder } from '../../git/ref-info';
import { storedRef } from '../../git/ref-files';
import { setHeadBranch } from '../../git/init';
import { withRepoLock } from '../../lock';
import { runTask } from '../../pool';
import { listLiveBranches, pushedBranchesSince } from '../../models/branch.model';
import { findOpenPullFor } from '../../models/pull-request.model';
import { TableCache } from '../../models/table-cache';
import { AccessMode } from '../../models/perm';
import { findRepoById, saveRepo } from '../../models/repository.model';
import type { UserModel } from '../../models/user.model';
import type { CreateBranchRepoOption, UpdateBranchRepoOption } from '../../api/refs';
import type { RepoContext } from '../repo/context';
import { syncRepoRefs } from '../git-push/sync.service';
import { assertNotArchived, assertUnitReadable, assertUnitWriter, gitDirOf, isRepoAdmin, UnitType } from '../repo/access';
import { assertBranchDeletable, protectionStates, type BranchProtectionState } from './branch-guard';
import { ruleForBranch } from './branch-protection.service';
import { findProtectedBranch, renameProtectedBranch, type ProtectedBranchModel } from '../../models/protected-branch.model';
import { assertOptionalRefName, assertRefName, isValidRefName } from './names';
import { commitsWithUsers, moveRefsAndSync, resolveRev, type VerifiedCommit } from './ref-ops';

/** A branch with its head commit and its protection as the caller sees it. */
export interface BranchView { name: string; commit: VerifiedCommit; usernames: Map<string, string>; protection: BranchProtectionState }

const HEADS = 'refs/heads/';

async function views(ctx: DbContext, rc: RepoContext, viewer: UserModel | null, names: [string, string][], commits: Map<string, VerifiedCommit>, usernames: Map<string, string>): Promise<BranchView[]> {
  const found = names.filter(([, id]) => commits.has(id));
  const states = await protectionStates(ctx, rc, viewer, found.map(([name]) => name));
  return found.map(([name, id]) => ({ name, commit: commits.get(id)!, usernames, protection: states.get(name)! }));
}

/**
 * What a branch page shows depends on: the branch rows (and, through them, the refs), the users
 * and keys behind its commits' authors and signatures, the protection rules and whom they allow,
 * and the pull requests open to maintainer edits. It is kept per repository, page and viewer until
 * one of those tables is written, or 2 s (a ref moved behind the server's back shows by then).
 * why: CI systems and bots list branches all day; rebuilding the answer (commit texts, users,
 * signatures, rules) was most of the request.
 */
const pages = new TableCache<{ items: BranchView[]; total: number }>('branch-list', [
  'branch', 'users', 'email_address', 'gpg_key', 'gpg_key_import', 'public_key', 'protected_branch', 'team', 'team_user', 'pull_request', 'issue',
], 2_000, 1_000);

/** One page of branches and the total (branches that vanished from git meanwhile are left out of both). */
export async function listBranches(ctx: DbContext, rc: RepoContext, viewer: UserModel | null, opts: { limit: number; offset: number }): Promise<{ items: BranchView[]; total: number }> {
  assertUnitReadable(rc, UnitType.Code);
  if (rc.repo.isEmpty) return { items: [], total: 0 };
  const writesCode = rc.perm.can(UnitType.Code, AccessMode.Write);
  const key = `${rc.repo.id}:${opts.limit}:${opts.offset}:${viewer?.id ?? 0}:${writesCode ? 1 : 0}:${rc.perm.mode}`;
  return pages.get(ctx, key, () => branchPage(ctx, rc, viewer, opts));
}

async function branchPage(ctx: DbContext, rc: RepoContext, viewer: UserModel | null, opts: { limit: number; offset: number }): Promise<{ items: BranchView[]; total: number }> {
  let page = await listLiveBranches(ctx, rc.repo.id, opts.limit, opts.offset);
  if (page.count === 0) {
    // why: a repository that is not empty has a branch; an empty table means the push is not processed yet.
    await syncRepoRefs(rc.repo.id, undefined, ctx);
    page = await listLiveBranches(ctx, rc.repo.id, opts.limit, opts.offset);
  }
  const dir = gitDirOf(rc);
  // why: git says where each branch is. A ref file that holds the commit the row recorded needs
  // nothing more; the rest are asked of the repository's long-running cat-file in one round trip
  // (listing every ref with for-each-ref started a git process per request).
  const stored = page.rows.map((b) => (isValidRefName(b.name) ? storedRef(dir, HEADS + b.name) : undefined));
  const unsure = page.rows.filter((b, i) => stored[i] !== b.commitId && stored[i] !== null);
  const asked = await objectInfo(dir, unsure.map((b) => `${HEADS}${b.name}^{commit}`));
  const peeled = new Map(unsure.map((b, i) => [b.name, asked[i]?.oid ?? null]));
  const found = page.rows.flatMap((b, i): [string, string][] => {
    const id = stored[i] === b.commitId ? b.commitId : peeled.get(b.name);
    return id ? [[b.name, id]] : [];
  });
  const { commits, usernames } = await commitsWithUsers(ctx, dir, found.map(([, id]) => id));
  const items = await views(ctx, rc, viewer, found, commits, usernames);
  return { items, total: page.count - (page.rows.length - items.length) };
}

/** One branch; 404 when git has no such branch. */
export async function getBranch(ctx: DbContext, rc: RepoContext, viewer: UserModel | null, name: string): Promise<BranchView> {
  assertUnitReadable(rc, UnitType.Code);
  const dir = gitDirOf(rc);
  const id = isValidRefName(name) ? await refId(dir, HEADS + name) : null;
  if (!id) throw new NotFound();
  const { commits, usernames } = await commitsWithUsers(ctx, dir, [id]);
  const [view] = await views(ctx, rc, viewer, [[name, id]], commits, usernames);
  if (!view) throw new NotFound();
  return view;
}

function assertWritable(rc: RepoContext): void {
  assertUnitWriter(rc, UnitType.Code);
  assertNotArchived(rc);
}

function assertHasGit(rc: RepoContext): void {
  if (rc.repo.isEmpty) throw new NotFound('Git Repository is empty.');
  if (rc.repo.isMirror) throw new Forbidden('Git Repository is a mirror.');
}

/** Gitea's checkBranchName: the name must not exist, clash with a branch path, or be a tag's name. */
async function assertFreeBranchName(dir: string, name: string): Promise<void> {
  for (const ref of (await refsUnder(dir, HEADS)).keys()) {
    const b = ref.slice(HEADS.length);
    if (b === name) throw new Conflict('The branch already exists.');
    if (b.startsWith(`${name}/`) || name.startsWith(`${b}/`)) throw new Conflict('The branch with the same name already exists.');
  }
  if (await refId(dir, `refs/tags/${name}`)) throw new Conflict('The branch with the same tag already exists.');
}

/** Create a branch from a branch, tag or commit (the default branch when none is given). */
export async function createBranch(ctx: DbContext, doer: UserModel, rc: RepoContext, o: CreateBranchRepoOption): Promise<BranchView> {
  assertWritable(rc);
  const name = assertRefName(o.new_branch_name, 'BranchName', 100);
  const oldRef = assertOptionalRefName(o.old_ref_name, 'OldRefName', 100);
  const oldBranch = assertOptionalRefName(o.old_branch_name, 'OldBranchName', 100);
  assertHasGit(rc);
  const dir = gitDirOf(rc);
  const missing = () => new NotFound('The old branch does not exist');
  let start: string | null;
  if (oldRef) start = await resolveRev(dir, oldRef);
  else if (oldBranch) start = await refId(dir, HEADS + oldBranch).then((id) => (id ? resolveRev(dir, id) : null));
  else start = await refId(dir, HEADS + rc.repo.defaultBranch);
  if (!start) throw missing();
  const commit = start;
  await withRepoLock(rc.repo.id, async () => {
    await assertFreeBranchName(dir, name);
    await moveRefsAndSync(ctx, rc.repo.id, dir, doer.id, [{ ref: HEADS + name, old: ZERO_ID, new: commit }], 'The branch already exists.');
  });
  return getBranch(ctx, rc, doer, name);
}

/** Refuse (403, 423) deleting `name` when the caller lacks write, the repository is archived, or it is the default or a protected branch. */
export async function assertBranchRemovable(ctx: DbContext, rc: RepoContext, name: string): Promise<void> {
  assertWritable(rc);
  assertHasGit(rc);
  if (name === rc.repo.defaultBranch) throw new Forbidden('can not delete default branch');
  await assertBranchDeletable(ctx, rc.repo.id, name);
}

/** Delete a branch (never the default branch). */
export async function deleteBranch(ctx: DbContext, doer: UserModel, rc: RepoContext, name: string): Promise<void> {
  await assertBranchRemovable(ctx, rc, name);
  const dir = gitDirOf(rc);
  await withRepoLock(rc.repo.id, async () => {
    const id = isValidRefName(name) ? await refId(dir, HEADS + name) : null;
    if (!id) throw new NotFound(`branch does not exist [name: ${name}]`);
    await moveRefsAndSync(ctx, rc.repo.id, dir, doer.id, [{ ref: HEADS + name, old: id, new: ZERO_ID }], `branch does not exist [name: ${name}]`);
  });
}

const TARGET_EXISTS = 'Cannot rename a branch using the same name or rename to a branch that already exists.';
const RENAME_REFUSED = 'User must be a repo or site admin to rename default or protected branches.';

/**
 * Rename a branch (Gitea 1.24 UpdateBranch): one ref transaction creates the new name and deletes
 * the old one; renaming the default branch (repository admins only) makes the new name the default,
 * and protection rules are respected (protectionRename).
 */
export async function renameBranch(ctx: DbContext, doer: UserModel, rc: RepoContext, from: string, o: UpdateBranchRepoOption): Promise<void> {
  assertWritable(rc);
  const to = assertRefName(o.name, 'Name', 100);
  assertHasGit(rc);
  const isDefault = from === rc.repo.defaultBranch;
  if (isDefault && !isRepoAdmin(rc)) throw new Forbidden(RENAME_REFUSED);
  const dir = gitDirOf(rc);
  await withRepoLock(rc.repo.id, async () => {
    if (from === to || (await refId(dir, HEADS + to))) throw new Validation(TARGET_EXISTS);
    const id = isValidRefName(from) ? await refId(dir, HEADS + from) : null;
    if (!id) throw new NotFound("Branch doesn't exist.");
    for (const ref of (await refsUnder(dir, HEADS)).keys()) {
      const b = ref.slice(HEADS.length);
      if (b !== from && (b.startsWith(`${to}/`) || to.startsWith(`${b}/`))) throw new Conflict('The branch with the same name already exists.');
    }
    const rule = await protectionRename(ctx, rc, from, to);
    const moves = [{ ref: HEADS + to, old: ZERO_ID, new: id }, { ref: HEADS + from, old: id, new: ZERO_ID }];
    // why: the default branch moves with its ref: HEAD and the row change before the sync, so the sync keeps the new name as default.
    const afterMove = async () => {
      if (rule) await withTx(ctx, (tx) => renameProtectedBranch(tx, rule, to));
      if (!isDefault) return;
      await setHeadBranch(dir, to);
      await withTx(ctx, async (tx) => {
        const row = await findRepoById(tx, rc.repo.id);
        if (!row) return;
        row.defaultBranch = to;
        await saveRepo(tx, row);
      });
    };
    await moveRefsAndSync(ctx, rc.repo.id, dir, doer.id, moves, TARGET_EXISTS, afterMove);
  });
}

/**
 * How a rename meets branch protection (Gitea's RenameBranch): a rule named exactly like either
 * branch lets only repository admins rename, and the rule named like the old branch follows it to
 * the new name (returned); a branch protected by any other rule (a glob) cannot be renamed.
 */
async function protectionRename(ctx: DbContext, rc: RepoContext, from: string, to: string): Promise<ProtectedBranchModel | null> {
  const [fromRule, toRule] = await Promise.all([findProtectedBranch(ctx, rc.repo.id, from), findProtectedBranch(ctx, rc.repo.id, to)]);
  if ((fromRule || toRule) && !isRepoAdmin(rc)) throw new Forbidden(RENAME_REFUSED);
  if (fromRule && toRule) throw new Conflict(`a branch protection rule named ${to} exists already`);
  if (fromRule) return fromRule;
  if (await ruleForBranch(ctx, rc.repo.id, from)) throw new Forbidden('Branch is protected by glob-based protection rules.');
  return null;
}

/**
 * Branches the doer pushed in the last six hours that are not the default branch and have no open
 * pull request, newest first (Gitea's "recently pushed" banner on the repository home).
 */
export async function recentlyPushedBranches(ctx: DbContext, rc: RepoContext, doer: UserModel): Promise<{ name: string; at: Date }[]> {
  if (rc.repo.isEmpty || !rc.perm.can(UnitType.Code, AccessMode.Read)) return [];
  const since = new Date(Date.now() - 6 * 3600_000);
  const rows = (await pushedBranchesSince(ctx, rc.repo.id, doer.id, since)).filter((b) => b.name !== rc.repo.defaultBranch);
  const out: { name: string; at: Date }[] = [];
  for (const b of rows.slice(0, 3)) {
    if (!(await findOpenPullFor(ctx, { repoId: rc.repo.id, branch: b.name }, { repoId: rc.repo.id, branch: rc.repo.defaultBranch }))) out.push({ name: b.name, at: b.updatedAt });
  }
  return out;
}

/**
 * How far each branch is ahead of and behind the default branch (the branches page's counts), by
 * name; one walk in the worker pool for the whole list. The default branch itself is left out.
 */
export async function divergence(rc: RepoContext, branches: BranchView[]): Promise<Map<string, { ahead: number; behind: number }>> {
  const base = await refId(gitDirOf(rc), `refs/heads/${rc.repo.defaultBranch}`);
  const others = branches.filter((b) => b.name !== rc.repo.defaultBranch);
  if (!base || others.length === 0) return new Map();
  const counts = await runTask('aheadBehind', { gitDir: gitDirOf(rc), base, heads: others.map((b) => b.commit.id) });
  return new Map(others.flatMap((b, k) => (counts[k] ? [[b.name, { ahead: counts[k]![0], behind: counts[k]![1] }] as const] : [])));
}
