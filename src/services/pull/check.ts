/**
 * What keeps a pull request in step with its branches: `refs/pull/<n>/head` in the base
 * repository follows the head branch (fetched from a fork), and the mergeability check (Gitea's
 * TestPullRequest) runs in the base repository's object database with `git merge-tree`, never in
 * a worktree. Checks are outbox jobs (PULL_CHECK_TOPIC), so none is lost to a restart; a check
 * whose refs moved while it ran stores nothing, since the move queued a newer one.
 */
import { withTx, type DbContext } from '../../db';
import { mergeBase } from '../../git/history';
import { aheadBehind, treeOf, tryMerge } from '../../git/merge';
import { repoPath } from '../../git/paths';
import { refId } from '../../git/ref-info';
import { fetchRef, updateRefs } from '../../git/ref-write';
import { findIssueById } from '../../models/issue.model';
import { findPullById, savePull, PullStatus, type PullRequestModel } from '../../models/pull-request.model';
import { findRepoById, type RepositoryModel } from '../../models/repository.model';
import { findUserById, type UserModel } from '../../models/user.model';
import { enqueue } from '../../queue/outbox';
import { withRepoLock } from '../../lock';
import { queueAutoMerges } from './auto-merge.service';

/** The outbox topic of one pull request's mergeability check; payload `{ pullId }`. */
export const PULL_CHECK_TOPIC = 'pull.check';

/** Gitea keeps at most this many conflicted paths. */
const MAX_CONFLICTS = 10;

/** A repository by id with its owner and bare repository directory, or null when it is gone. */
export async function repoWithOwner(ctx: DbContext, repoId: number): Promise<{ repo: RepositoryModel; owner: UserModel; dir: string } | null> {
  const repo = await findRepoById(ctx, repoId);
  const owner = repo && (await findUserById(ctx, repo.ownerId));
  return repo && owner ? { repo, owner, dir: repoPath(owner.name, repo.name) } : null;
}

/** The bare repository of a repository id, or null when it is gone. */
export async function repoDirById(ctx: DbContext, repoId: number): Promise<string | null> {
  return (await repoWithOwner(ctx, repoId))?.dir ?? null;
}

/** The ref in the base repository that holds a pull request's head. */
export const headRefOf = (pr: { index: number }) => `refs/pull/${pr.index}/head`;

/**
 * Point `refs/pull/<n>/head` at the head branch's commit (for a fork, fetching it into the base
 * repository); the caller holds the base repository's lock. Returns the ref's id before and after
 * (after is null when the head branch or its repository is gone; the ref then keeps the last head).
 */
export async function syncHeadRef(ctx: DbContext, pr: PullRequestModel, baseDir: string): Promise<{ before: string | null; after: string | null }> {
  const ref = headRefOf(pr);
  const before = await refId(baseDir, ref);
  const headDir = pr.headRepoId === pr.baseRepoId ? baseDir : await repoDirById(ctx, pr.headRepoId);
  const tip = headDir ? await refId(headDir, `refs/heads/${pr.headBranch}`) : null;
  if (!tip) return { before, after: null };
  if (tip !== before) {
    if (headDir === baseDir) await updateRefs(baseDir, [ref, tip]);
    else await fetchRef(baseDir, headDir!, `refs/heads/${pr.headBranch}`, ref);
  }
  return { before, after: tip };
}

/** The outcome of a check. */
export interface CheckOutcome { status: PullStatus; mergeBase: string; conflicts: string[]; ahead: number; behind: number }

/** Check `head` against `base` (full commit ids, both in `dir`). */
export async function checkHeads(dir: string, base: string, head: string): Promise<CheckOutcome> {
  const { ahead, behind } = await aheadBehind(dir, base, head);
  const common = await mergeBase(dir, base, head);
  // why: histories without a common commit cannot be merged; Gitea records the base tip as the merge base.
  if (!common) return { status: PullStatus.Error, mergeBase: base, conflicts: [], ahead, behind };
  if (common === head) return { status: PullStatus.Ancestor, mergeBase: common, conflicts: [], ahead, behind };
  const trial = await tryMerge(dir, base, head);
  if (trial.conflicts.length) return { status: PullStatus.Conflict, mergeBase: common, conflicts: trial.conflicts.slice(0, MAX_CONFLICTS), ahead, behind };
  const status = trial.tree === (await treeOf(dir, base)) ? PullStatus.Empty : PullStatus.Mergeable;
  return { status, mergeBase: common, conflicts: [], ahead, behind };
}

/** Store an outcome on the row (in the caller's transaction or alone). */
export async function storeOutcome(ctx: DbContext, pr: PullRequestModel, o: CheckOutcome): Promise<void> {
  Object.assign(pr, { status: o.status, mergeBase: o.mergeBase, conflictedFiles: JSON.stringify(o.conflicts), commitsAhead: o.ahead, commitsBehind: o.behind });
  await savePull(ctx, pr);
}

/** Mark a pull request as being checked and queue its check (in the caller's transaction). */
export async function queueCheck(tx: DbContext, pr: PullRequestModel): Promise<void> {
  if (pr.status !== PullStatus.Checking) {
    pr.status = PullStatus.Checking;
    await savePull(tx, pr);
  }
  await enqueue(tx, PULL_CHECK_TOPIC, { pullId: pr.id });
}

/** The outbox job: check one open pull request and store the outcome. */
export async function runPullCheck(ctx: DbContext, pullId: number): Promise<void> {
  const pr = await findPullById(ctx, pullId);
  const issue = pr && (await findIssueById(ctx, pr.issueId));
  if (!pr || !issue || pr.hasMerged || issue.isClosed) return;
  const dir = await repoDirById(ctx, pr.baseRepoId);
  if (!dir) return;
  const refs = async () => Promise.all([refId(dir, `refs/heads/${pr.baseBranch}`), refId(dir, headRefOf(pr))]);
  let [base, head] = await refs();
  // why: a pull request being opened commits its row and this queued check before it writes its head ref, under
  // the base repository's lock; a check that runs in between reads again under that lock before calling a ref missing
  // (else it could store "error" over the opener's own answer).
  if (!base || !head) [base, head] = await withRepoLock(pr.baseRepoId, refs);
  if (!base || !head) {
    // why: without its base branch or any head there is nothing to test; Gitea shows such a pull request as not mergeable.
    await storeOutcome(ctx, pr, { status: PullStatus.Error, mergeBase: pr.mergeBase, conflicts: [], ahead: 0, behind: 0 });
    return;
  }
  const outcome = await checkHeads(dir, base, head);
  const [base2, head2] = await refs();
  if (base2 !== base || head2 !== head) return;
  await withTx(ctx, async (tx) => {
    const row = await findPullById(tx, pullId);
    if (!row || row.hasMerged) return;
    await storeOutcome(tx, row, outcome);
    // why: a scheduled merge may have waited for this answer.
    if (outcome.status === PullStatus.Mergeable) await queueAutoMerges(tx, [row.id]);
  });
}
