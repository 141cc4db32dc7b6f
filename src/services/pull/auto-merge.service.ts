/**
 * Scheduled merges (`merge_when_checks_succeed`): a pull request merged by the outbox as soon as
 * its head's commit statuses succeed and its branch protection lets the scheduler merge it. Every
 * event that can make it ready (a commit status, a verdict, a finished mergeability check) queues
 * one AUTO_MERGE_TOPIC job for it in its own transaction, so no schedule waits on a poll and a
 * restart loses none. `DELETE /pulls/{index}/merge` cancels a schedule.
 */
import { systemCtx, withTx, type DbContext } from '../../db';
import { Forbidden, HttpError, NotFound } from '../../errors';
import { repoPath } from '../../git/paths';
import { refId } from '../../git/ref-info';
import { deleteAutoMerge, findAutoMerge, insertAutoMerge, scheduledPullIds } from '../../models/auto-merge.model';
import { CommentType } from '../../models/comment.model';
import { findIssueById, type IssueModel } from '../../models/issue.model';
import { findPullById, type PullRequestModel } from '../../models/pull-request.model';
import { findUserById, type UserModel } from '../../models/user.model';
import type { MergePullRequestOption } from '../../api/pull';
import { enqueue, notifyEnqueued } from '../../queue/outbox';
import { asUser } from '../auth/principal';
import { record } from '../issue/history';
import { repoAssignment, type RepoContext } from '../repo/context';
import { isRepoAdmin } from '../repo/access';
import { ruleForBranch } from '../refs/branch-protection.service';
import { headRefOf, repoWithOwner } from './check';
import { mergePull, statusChecksState } from './merge.service';
import { assertPullsReadable, pullByIndex } from './pull.service';

/** The outbox topic of "try the scheduled merge of this pull request now". */
export const AUTO_MERGE_TOPIC = 'pull.auto-merge';

/** Queue a try of every scheduled merge among `pullIds` (in the caller's transaction). */
export async function queueAutoMerges(tx: DbContext, pullIds: number[]): Promise<void> {
  for (const pullId of await scheduledPullIds(tx, { pullIds })) await enqueue(tx, AUTO_MERGE_TOPIC, { pullId });
}

/** A commit status on `sha` in the repository (in its transaction): queue a try of the scheduled merges whose head it is. */
export async function queueAutoMergesOfHead(tx: DbContext, repoId: number, sha: string): Promise<void> {
  const ids = await scheduledPullIds(tx, { baseRepoId: repoId });
  const base = ids.length ? await repoWithOwner(tx, repoId) : null;
  if (!base) return;
  for (const id of ids) {
    const pr = await findPullById(tx, id);
    if (pr && (await refId(base.dir, headRefOf(pr))) === sha) await enqueue(tx, AUTO_MERGE_TOPIC, { pullId: id });
  }
}

/** Schedule the merge (201 in the caller): 409 when one is scheduled already; a try is queued at once. */
export async function scheduleMerge(ctx: DbContext, doer: UserModel, issue: IssueModel, pr: PullRequestModel, o: MergePullRequestOption): Promise<void> {
  const title = (o.MergeTitleField ?? '').trim();
  const body = (o.MergeMessageField ?? '').trim();
  await withTx(ctx, async (tx) => {
    if (await findAutoMerge(tx, pr.id)) throw new HttpError(409, `pull request is already scheduled to auto merge when checks succeed [pull_id: ${pr.id}]`);
    await insertAutoMerge(tx, { pullId: pr.id, doerId: doer.id, mergeStyle: o.Do, message: body ? `${title}\n\n${body}` : title, deleteBranchAfterMerge: !!o.delete_branch_after_merge });
    await record(tx, { type: CommentType.PullScheduledMerge, issueId: issue.id, posterId: doer.id });
    await enqueue(tx, AUTO_MERGE_TOPIC, { pullId: pr.id });
  });
  notifyEnqueued();
}

/** `DELETE /pulls/{index}/merge`: cancel the scheduled merge (its scheduler or a repository admin). */
export async function cancelScheduledMerge(ctx: DbContext, doer: UserModel, rc: RepoContext, index: number): Promise<void> {
  assertPullsReadable(rc);
  const { issue, pr } = await pullByIndex(ctx, rc, index);
  const schedule = await findAutoMerge(ctx, pr.id);
  if (!schedule) throw new NotFound();
  if (schedule.doerId !== doer.id && !isRepoAdmin(rc)) throw new Forbidden('user has no permission to cancel the scheduled auto merge');
  await withTx(ctx, async (tx) => {
    if (await deleteAutoMerge(tx, pr.id)) await record(tx, { type: CommentType.PullCancelScheduledMerge, issueId: issue.id, posterId: doer.id });
  });
}

/**
 * The AUTO_MERGE_TOPIC handler: merge when the head's statuses (the rule's contexts, else all of
 * them; none at all is pending) succeed and the merge is allowed for the scheduler now; otherwise
 * leave the schedule for the next event. A schedule of a closed or merged pull request, or of a
 * scheduler who is gone, is dropped.
 */
export async function processAutoMerge(payload: unknown): Promise<void> {
  const ctx = systemCtx;
  const { pullId } = payload as { pullId: number };
  const schedule = await findAutoMerge(ctx, pullId);
  if (!schedule) return;
  const pr = await findPullById(ctx, pullId);
  const issue = pr && (await findIssueById(ctx, pr.issueId));
  const base = pr && (await repoWithOwner(ctx, pr.baseRepoId));
  const doer = await findUserById(ctx, schedule.doerId);
  if (!pr || !issue || !base || !doer || pr.hasMerged || issue.isClosed) {
    await deleteAutoMerge(ctx, pullId);
    return;
  }
  const head = await refId(repoPath(base.owner.name, base.repo.name), headRefOf(pr));
  const rule = await ruleForBranch(ctx, base.repo.id, pr.baseBranch);
  if (!head || (await statusChecksState(ctx, base.repo.id, head, rule?.statusCheckContexts ?? '[]')) !== 'success') return;
  const [title, ...rest] = schedule.message.split('\n\n');
  const p = asUser(doer);
  try {
    const rc = await repoAssignment(ctx, p, base.owner.name, base.repo.name);
    await mergePull(ctx, doer, p, rc, Number(pr.index), {
      Do: schedule.mergeStyle as MergePullRequestOption['Do'], MergeTitleField: title, MergeMessageField: rest.join('\n\n'),
      delete_branch_after_merge: schedule.deleteBranchAfterMerge, head_commit_id: head,
    });
  } catch (err) {
    // why: a refusal (not allowed yet, conflicts, a head that moved) waits for the next event; anything else is retried by the outbox.
    if (err instanceof HttpError && err.status < 500) return;
    throw err;
  }
}
