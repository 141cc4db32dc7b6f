/**
 * What every change of an issue's labels, milestone or state must keep in step: the counts of the
 * repository, its labels and its milestones, the timeline and the hook event. All run inside the caller's
 * transaction, on an issue row it locked (lockIssue).
 * why: counts move by increments in the same transaction as the change, so concurrent writers on
 * any node never lose an update and a rolled-back change moves nothing.
 */
import type { DbContext } from '../../db';
import { HttpError } from '../../errors';
import { openBlockerCount } from '../../models/issue-dependency';
import { CommentType } from '../../models/comment.model';
import { nowUnix, saveIssue, type IssueModel } from '../../models/issue.model';
import { adjustLabelCounts, labelIdsOfIssues, linkLabels, unlinkLabels } from '../../models/label.model';
import { adjustMilestoneCounts } from '../../models/milestone.model';
import { adjustIssueCounts } from '../../models/repo-issue-counter.model';
import { indexIssueState } from '../../models/issue-search';
import type { UserModel } from '../../models/user.model';
import { findStopwatch } from '../../models/stopwatch.model';
import { record } from './history';
import { finishStopwatch } from './stopwatch';
import { dependenciesEnabled } from '../repo/tracker-settings';
import { notify } from '../notify/notifier';

/** The open/closed increments an issue contributes to a counter. */
const weight = (closed: boolean) => ({ open: closed ? 0 : 1, closed: closed ? 1 : 0 });

/**
 * Attach and detach labels of a locked issue, with label counts, one history entry per change and
 * one hook event (`label_cleared` when the caller cleared them, else `label_updated`).
 */
export async function changeLabels(tx: DbContext, issue: IssueModel, doer: UserModel, add: number[], remove: number[], cleared = false): Promise<void> {
  const current = new Set((await labelIdsOfIssues(tx, [issue.id])).get(issue.id));
  const adding = [...new Set(add)].filter((id) => !current.has(id));
  const removing = [...new Set(remove)].filter((id) => current.has(id));
  const w = weight(issue.isClosed);
  if (removing.length) {
    await unlinkLabels(tx, issue.id, removing);
    await adjustLabelCounts(tx, [...removing].sort((a, b) => a - b), -w.open, -w.closed);
    for (const labelId of removing) await record(tx, { type: CommentType.Label, issueId: issue.id, posterId: doer.id, labelId, content: '' });
  }
  if (adding.length) {
    await linkLabels(tx, issue.id, adding);
    await adjustLabelCounts(tx, [...adding].sort((a, b) => a - b), w.open, w.closed);
    for (const labelId of adding) await record(tx, { type: CommentType.Label, issueId: issue.id, posterId: doer.id, labelId, content: '1' });
  }
  if (adding.length || removing.length) await notify.issueLabelsChanged(tx, { doer, issue, cleared });
}

/** Move a locked issue to another milestone (0: none), with both milestones' counts and a history entry. */
export async function changeMilestone(tx: DbContext, issue: IssueModel, doer: UserModel, milestoneId: number): Promise<void> {
  const old = issue.milestoneId;
  if (old === milestoneId) return;
  const w = weight(issue.isClosed);
  await adjustMilestoneCounts(tx, old, -w.open, -w.closed);
  await adjustMilestoneCounts(tx, milestoneId, w.open, w.closed);
  issue.milestoneId = milestoneId;
  await saveIssue(tx, issue);
  await record(tx, { type: CommentType.Milestone, issueId: issue.id, posterId: doer.id, oldMilestoneId: old, milestoneId });
  await notify.issueMilestoneChanged(tx, { doer, issue, milestoneId });
}

/** What made a close or reopen, when a commit did: the commit and the repository that holds it. */
export interface StateSource { commitSha: string; repoId: number }

/**
 * Close or reopen a locked issue: repository, label and milestone counts, and a history entry
 * (`entry`: a merge closes a pull request with a merge entry instead of a close; `source`: the
 * commit that closed or reopened it, named on the entry as Gitea's commit_sha).
 */
export async function changeState(
  tx: DbContext, issue: IssueModel, doer: UserModel, closed: boolean, entry = closed ? CommentType.Close : CommentType.Reopen, source?: StateSource,
): Promise<void> {
  if (issue.isClosed === closed) return;
  // why: as Gitea, an issue cannot be closed while an issue it depends on is open (reopening is always allowed).
  if (closed && (await dependenciesEnabled(tx, issue.repoId)) && (await openBlockerCount(tx, issue.id)) > 0) {
    throw new HttpError(412, 'cannot close this issue or pull request because it still has open dependencies');
  }
  const d = closed ? 1 : -1;
  await adjustIssueCounts(tx, issue.repoId, issue.isPull ? { numClosedPulls: d } : { numClosedIssues: d });
  const labels = (await labelIdsOfIssues(tx, [issue.id])).get(issue.id) ?? [];
  await adjustLabelCounts(tx, [...labels].sort((a, b) => a - b), -d, d);
  await adjustMilestoneCounts(tx, issue.milestoneId, -d, d);
  issue.isClosed = closed;
  issue.closedUnix = closed ? nowUnix() : 0;
  await saveIssue(tx, issue);
  await indexIssueState(tx, issue);
  // why: ref_repo_id beside the commit says where it lives, so a reader of another repository is not shown a commit it cannot read.
  const noted = await record(tx, { type: entry, issueId: issue.id, posterId: doer.id, ...(source ? { commitSha: source.commitSha, refRepoId: source.repoId } : {}) });
  // why: as Gitea, closing an issue stops the closer's stopwatch on it.
  const sw = closed ? await findStopwatch(tx, doer.id, issue.id) : null;
  if (sw) await finishStopwatch(tx, sw);
  await notify.issueStateChanged(tx, { doer, issue, closed, merged: entry === CommentType.MergePull, entryId: noted.id });
}
