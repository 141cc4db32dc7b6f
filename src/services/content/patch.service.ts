/**
 * `POST /repos/{owner}/{repo}/diffpatch` (Gitea's ApplyDiffPatch): a unified diff applied to a
 * branch in one commit. The patch's paths are read by git's own parser first and must pass the same
 * checks as the contents API's (no `.git`, no `..`, nothing absolute) and the branch's protection
 * (push rights, protected file patterns); then, under the repository's lock, `git apply --cached`
 * runs against a temporary index over the branch head in the object database (no worktree), the
 * tree is committed, and the branch moves with a compare-and-swap. A patch that does not apply
 * leaves the branch, its objects and the database as they were.
 */
import type { DbContext } from '../../db';
import { HttpError, NotFound, Validation } from '../../errors';
import { GitError } from '../../git/run';
import { RefConflict } from '../../git/ref-write';
import { IndexEditor, patchPaths, updateRef } from '../../git/tree-edit';
import { withRepoLock } from '../../lock';
import type { UserModel } from '../../models/user.model';
import { syncRepoRefsLocked } from '../git-push/sync.service';
import { assertCanCommitFiles } from '../refs/branch-guard';
import type { CodeRepo } from './access';
import { checkBranch, type ChangeRequest, type ChangeResult } from './change.service';
import { commitPeople, finalMessage } from './identity';
import { checkWritePath } from './paths';
import { branchHead } from './refs';

/** What a patch request carries (ApplyDiffPatchFileOptions). */
export type PatchRequest = Omit<ChangeRequest, 'files'> & { content: string };

/** The last lines git said, without the temporary paths of the server. */
function gitWords(err: GitError): string {
  return err.stderr.split('\n').map((l) => l.trim()).filter(Boolean).slice(-3).join('; ');
}

/** The paths the patch touches, each checked as a write path (422 for a hostile or unreadable patch). */
async function checkedPaths(gitDir: string, patch: Buffer): Promise<string[]> {
  let paths: string[];
  try {
    paths = await patchPaths(gitDir, patch);
  } catch (err) {
    if (err instanceof GitError) throw new Validation(`patch cannot be read: ${gitWords(err)}`);
    throw err;
  }
  if (paths.length === 0) throw new Validation('patch cannot be read: it changes no file');
  return [...new Set(paths.map((p) => checkWritePath(p)))];
}

/** Apply `req.content` to a branch of the repository as `doer`. */
export async function applyDiffPatch(ctx: DbContext, cr: CodeRepo, doer: UserModel, req: PatchRequest): Promise<ChangeResult> {
  checkBranch(req.branch, 'BranchName');
  checkBranch(req.newBranch, 'NewBranchName');
  if (typeof req.content !== 'string' || req.content === '') throw new Validation('[Content]: Required');
  const patch = Buffer.from(req.content, 'utf8');
  const people = commitPeople(doer, req.author, req.committer, req.dates);
  // why: Gitea's default message for a patch is "apply-patch".
  const message = finalMessage((req.message ?? '').trim() || 'apply-patch', !!req.signoff, people.committer);
  const { gitDir, repo } = cr;
  const paths = await checkedPaths(gitDir, patch);
  // why: the lock makes this the only server-side writer of the repository; the ref move is still a compare-and-swap against pushes.
  return withRepoLock(repo.id, async () => {
    const branch = req.branch || repo.defaultBranch;
    const newBranch = req.newBranch || branch;
    await assertCanCommitFiles(ctx, cr, doer, newBranch, paths);
    const base = await branchHead(gitDir, branch);
    if (!base) throw new NotFound(`branch does not exist [repo_id: ${repo.id} name: ${branch}]`);
    if (newBranch !== branch && (await branchHead(gitDir, newBranch))) throw new Validation(`branch already exists [name: ${newBranch}]`);
    const ed = await IndexEditor.open(gitDir, base);
    let commit: string;
    try {
      try {
        await ed.applyPatch(patch);
      } catch (err) {
        if (err instanceof GitError) throw new Validation(`patch does not apply: ${gitWords(err)}`);
        throw err;
      }
      commit = await ed.commit([base], message, people.author, people.committer);
    } finally {
      await ed.close();
    }
    const ref = `refs/heads/${newBranch}`;
    const expected = newBranch === branch ? base : null;
    try {
      await updateRef(gitDir, ref, commit, expected);
    } catch (err) {
      if (err instanceof RefConflict) throw new HttpError(409, `branch ${newBranch} was changed meanwhile, try again`);
      throw err;
    }
    await syncRepoRefsLocked(repo.id, { pusherId: doer.id, transport: 'api', updates: [{ old: expected ?? '0'.repeat(40), new: commit, ref }] }, ctx);
    return { ref: { inputRef: newBranch, kind: 'branch', name: newBranch, commitId: commit }, paths: [] };
  });
}
