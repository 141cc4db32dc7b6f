/**
 * Pull requests following their branches. A ref sync (after a push or a server-side write) that
 * moved a branch which some open pull request has as base or head queues one PULL_BRANCHES_TOPIC
 * job in the sync's own transaction. The job moves `refs/pull/<n>/head` of the pull requests
 * whose head moved, writes their push entry of the timeline, and queues a check of every affected
 * pull request. All of it is carried by the outbox, so a restart loses none of it.
 */
import { systemCtx, withTx, type DbContext } from '../../db';
import { listCommitIds, sameChanges } from '../../git/history';
import { dropsCommits } from '../../git/push-range';
import { refId } from '../../git/ref-info';
import { ZERO_ID } from '../../git/refs';
import { withRepoLock } from '../../lock';
import { CommentType } from '../../models/comment.model';
import { findPullById, openPullsOn, type PullRequestModel } from '../../models/pull-request.model';
import { liveApprovals, markStale, saveReview } from '../../models/review.model';
import { enqueue } from '../../queue/outbox';
import { HttpError } from '../../errors';
import { lockIssue } from '../../models/issue.model';
import { findUserById, standIn } from '../../models/user.model';
import { changeState } from '../issue/state';
import { ruleForBranch } from '../refs/branch-protection.service';
import { record } from '../issue/history';
import { queueCheck, repoDirById, syncHeadRef } from './check';
import { notify } from '../notify/notifier';

/** The outbox topic of branches moved under open pull requests. */
export const PULL_BRANCHES_TOPIC = 'pull.branches-moved';

/** One moved branch (full ref name). */
interface Move { refName: string; oldCommitId: string; newCommitId: string }

/** The payload of a PULL_BRANCHES_TOPIC job. */
export interface BranchesMoved { repoId: number; pusherId: number; moves: Move[] }

const HEADS = 'refs/heads/';
const branchOf = (m: Move) => m.refName.slice(HEADS.length);

/**
 * In a ref sync's transaction: queue the job when a moved branch is the base or head of an open
 * pull request. Returns whether it did (the caller then calls notifyEnqueued after the commit).
 */
export async function notePullBranchesMoved(tx: DbContext, repoId: number, pusherId: number, changes: Move[]): Promise<boolean> {
  const moves = changes.filter((c) => c.refName.startsWith(HEADS));
  const branches = moves.map(branchOf);
  if (branches.length === 0) return false;
  const touched = (await openPullsOn(tx, 'base', repoId, branches)).length + (await openPullsOn(tx, 'head', repoId, branches)).length;
  if (touched === 0) return false;
  await enqueue(tx, PULL_BRANCHES_TOPIC, { repoId, pusherId, moves } satisfies BranchesMoved);
  return true;
}

/** The push entry of a head that moved from `before` to `after`: the new commits oldest first, or a force push. */
async function pushEntry(dir: string, pr: PullRequestModel, before: string, after: string): Promise<string> {
  if (await dropsCommits(dir, before, after, {})) return JSON.stringify({ is_force_push: true, commit_ids: [before, after] });
  // why: as Gitea, commits the base branch already has are not listed as added.
  const base = await refId(dir, `refs/heads/${pr.baseBranch}`);
  return addedCommitsEntry(dir, after, base ? [before, base] : [before]);
}

/** A push entry listing the commits of `head` that none of `not` has, oldest first (a new pull request's lists all of them). */
export async function addedCommitsEntry(dir: string, head: string, not: string[]): Promise<string> {
  const ids = (await listCommitIds(dir, { rev: head, not })).reverse();
  return JSON.stringify({ is_force_push: false, commit_ids: ids });
}

/**
 * What a pull request's head moving from `before` to `after` (its pull ref already moved) brings:
 * the timeline's push entry, stale reviews (and dismissed approvals where the rule says so) when
 * the changes differ, a new check.
 */
export async function recordHeadMove(ctx: DbContext, pr: PullRequestModel, dir: string, before: string, after: string, pusherId: number): Promise<void> {
  const entry = await pushEntry(dir, pr, before, after);
  const baseTip = await refId(dir, `refs/heads/${pr.baseBranch}`);
  // why: as Gitea, reviews go stale (and approvals are dismissed where the rule says so) only when the push changed what the pull request brings.
  const changed = !baseTip || !(await sameChanges(dir, baseTip, before, after));
  const rule = changed ? await ruleForBranch(ctx, pr.baseRepoId, pr.baseBranch) : null;
  await withTx(ctx, async (tx) => {
    const row = await findPullById(tx, pr.id);
    if (!row || row.hasMerged) return;
    const pushed = await record(tx, { type: CommentType.PullPush, issueId: row.issueId, posterId: pusherId, content: entry });
    if (changed) await reviewsAfterPush(tx, row, after, pusherId, !!rule?.dismissStaleApprovals);
    await queueCheck(tx, row);
    const pusher = (await findUserById(tx, pusherId)) ?? standIn(pusherId);
    await notify.pullRequestSynchronized(tx, { pusher, issue: { id: row.issueId, isPull: true, repoId: row.baseRepoId }, entryId: pushed.id });
  });
}

/** Follow a head branch that moved: the pull ref, then what the move brings (or only a new check when the ref already followed). */
async function followHead(ctx: DbContext, pr: PullRequestModel, pusherId: number): Promise<void> {
  const dir = await repoDirById(ctx, pr.baseRepoId);
  if (!dir) return;
  await withRepoLock(pr.baseRepoId, async () => {
    const { before, after } = await syncHeadRef(ctx, pr, dir);
    if (after && before && after !== before) return recordHeadMove(ctx, pr, dir, before, after, pusherId);
    await withTx(ctx, async (tx) => {
      const row = await findPullById(tx, pr.id);
      if (row && !row.hasMerged) await queueCheck(tx, row);
    });
  });
}

const STALE_DISMISSAL = 'New commits pushed, approval review dismissed automatically according to repository settings';

/** After a push that changed a pull request: its reviews of other commits are stale, and with the rule's dismiss_stale_approvals its approvals are dismissed. */
async function reviewsAfterPush(tx: DbContext, pr: PullRequestModel, head: string, pusherId: number, dismiss: boolean): Promise<void> {
  await markStale(tx, pr.issueId, head);
  if (!dismiss) return;
  for (const review of await liveApprovals(tx, pr.issueId)) {
    review.dismissed = true;
    await saveReview(tx, review);
    await record(tx, { type: CommentType.DismissReview, issueId: pr.issueId, posterId: pusherId, content: STALE_DISMISSAL, reviewId: review.id });
  }
}

/**
 * Close the open pull requests whose head or base branch was deleted (Gitea's CloseBranchPulls),
 * as the deleter; one an open dependency keeps open stays open.
 */
async function closeBranchPulls(ctx: DbContext, repoId: number, deleterId: number, branches: string[]): Promise<void> {
  const doer = (await findUserById(ctx, deleterId)) ?? standIn(deleterId);
  const pulls = [...(await openPullsOn(ctx, 'head', repoId, branches)), ...(await openPullsOn(ctx, 'base', repoId, branches))];
  for (const pr of pulls) {
    await withTx(ctx, async (tx) => {
      const row = await findPullById(tx, pr.id);
      const issue = row && !row.hasMerged ? await lockIssue(tx, row.issueId) : null;
      if (!issue || issue.isClosed) return;
      const gone = row!.headRepoId === repoId && branches.includes(row!.headBranch) ? row!.headBranch : row!.baseBranch;
      const dir = await repoDirById(tx, repoId);
      // why: a branch made again since the deletion closes nothing.
      if (dir && (await refId(dir, `refs/heads/${gone}`))) return;
      await changeState(tx, issue, doer, true).catch((err: unknown) => {
        if (!(err instanceof HttpError && err.status === 412)) throw err;
      });
    });
  }
}

/** The PULL_BRANCHES_TOPIC handler (idempotent: a replay finds the pull refs already moved and only queues checks again). */
export async function processBranchesMoved(payload: unknown): Promise<void> {
  const ctx = systemCtx;
  const job = payload as BranchesMoved;
  const pushed = job.moves.filter((m) => m.newCommitId !== ZERO_ID).map(branchOf);
  const deleted = job.moves.filter((m) => m.newCommitId === ZERO_ID).map(branchOf);
  for (const pr of await openPullsOn(ctx, 'head', job.repoId, pushed)) await followHead(ctx, pr, job.pusherId);
  if (deleted.length) await closeBranchPulls(ctx, job.repoId, job.pusherId, deleted);
  const onBase = await openPullsOn(ctx, 'base', job.repoId, pushed);
  if (onBase.length === 0) return;
  // why: one transaction for all of them; a base with hundreds of open pull requests is common.
  await withTx(ctx, async (tx) => {
    for (const pr of onBase) {
      const row = await findPullById(tx, pr.id);
      if (row && !row.hasMerged) await queueCheck(tx, row);
    }
  });
}
