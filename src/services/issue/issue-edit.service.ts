/**
 * Editing an issue (`PATCH /issues/{index}`) and its deadline. The poster may change the title,
 * body, ref and state of their own issue; writers may change everything. Each change leaves its
 * history entry, written in the same transaction as the change.
 */
import { withTx, type DbContext } from '../../db';
import { Forbidden, HttpError, NotFound, Validation } from '../../errors';
import type { EditIssueOption } from '../../api/issue';
import { CommentType } from '../../models/comment.model';
import { lockIssue, saveIssue, type IssueModel } from '../../models/issue.model';
import { findMilestone } from '../../models/milestone.model';
import { pullsOfIssues } from '../../models/pull-request.model';
import { addAssignees, assigneeIdsOfIssues, removeAssignees } from '../../models/issue-links';
import { indexIssueText } from '../../models/issue-search';
import type { UserModel } from '../../models/user.model';
import type { RepoContext } from '../repo/context';
import { assertMayChangeIssue, assertNotBlocked, canEditIssue, canWriteIssues, readableIssue } from './access';
import { resolveAssignees } from './assignee';
import { dateOf, endOfDay, record } from './history';
import { issueText, issueTitle, getIssue } from './issue.service';
import { recordMentions } from './mention';
import { changeMilestone, changeState } from './state';
import type { IssueView } from './view';
import { resolveCrossRefs, writeCrossRefs } from './xref';
import { notify } from '../notify/notifier';

/** Set or clear the deadline of a locked issue, with its history entry (added, modified or removed). */
async function changeDeadline(tx: DbContext, issue: IssueModel, doer: UserModel, deadline: number): Promise<void> {
  const old = Number(issue.deadlineUnix);
  if (old === deadline) return;
  issue.deadlineUnix = deadline;
  await saveIssue(tx, issue);
  const type = old === 0 ? CommentType.AddedDeadline : deadline === 0 ? CommentType.RemovedDeadline : CommentType.ModifiedDeadline;
  const content = type === CommentType.AddedDeadline ? dateOf(deadline) : type === CommentType.RemovedDeadline ? dateOf(old) : `${dateOf(deadline)}|${dateOf(old)}`;
  await record(tx, { type, issueId: issue.id, posterId: doer.id, content });
}

/** The deadline an edit asks for: undefined when unchanged, 0 to clear. */
function wantedDeadline(o: EditIssueOption): number | undefined {
  if (o.unset_due_date) return 0;
  if (o.due_date === undefined) return undefined;
  if (o.due_date === null || o.due_date === '') throw new HttpError(400, 'The due_date cannot be empty');
  return Date.parse(o.due_date) <= 0 ? 0 : endOfDay(o.due_date, 'DueDate');
}

/**
 * 403 "user is blocked" before an edit that would change the issue's title or state, or that sends
 * a body, by a caller its poster or the repository's owner blocked (see assertMayChangeIssue).
 * why: as Gitea's ChangeTitle (an unchanged title passes) and ChangeContent (any body is refused).
 */
export async function assertMayEditIssue(ctx: DbContext, rc: RepoContext, doer: UserModel, issue: IssueModel, o: Pick<EditIssueOption, 'title' | 'body' | 'state'>): Promise<void> {
  const title = !!o.title && issueTitle(o.title, false) !== issue.name;
  const body = o.body !== undefined && o.body !== null;
  const state = o.state !== undefined && o.state !== null && (o.state === 'closed') !== issue.isClosed;
  if (title || body || state) await assertMayChangeIssue(ctx, rc, doer, issue);
}

/** Edit an issue (Gitea answers 201 with the issue). */
export async function editIssue(ctx: DbContext, doer: UserModel, rc: RepoContext, index: number, o: EditIssueOption): Promise<IssueView> {
  const found = await readableIssue(ctx, rc, index);
  if (!canEditIssue(rc, doer, found)) throw new Forbidden('');
  await assertMayEditIssue(ctx, rc, doer, found, o);
  const writer = canWriteIssues(rc, found.isPull);
  if (o.state !== undefined && o.state !== 'open' && o.state !== 'closed') throw new HttpError(412, `unknown state: ${o.state}`);
  if (o.state !== undefined && found.isPull && (await pullsOfIssues(ctx, [found.id])).get(found.id)?.hasMerged) {
    throw new HttpError(412, 'cannot change state of this pull request, it was already merged');
  }
  const deadline = writer ? wantedDeadline(o) : undefined;
  const assigneeNames = writer && (o.assignees !== undefined || o.assignee !== undefined)
    ? [...(o.assignees ?? []), ...(o.assignee ? [o.assignee] : [])] : undefined;
  const assignees = assigneeNames ? await resolveAssignees(ctx, rc, assigneeNames) : undefined;
  let milestoneId: number | undefined;
  if (writer && o.milestone !== undefined && o.milestone !== null) {
    milestoneId = o.milestone === 0 ? 0 : (await findMilestone(ctx, rc.repo.id, o.milestone))?.id;
    if (milestoneId === undefined) throw new Validation(`milestone does not exist [id: ${o.milestone}]`);
  }
  if (assignees?.length) await assertNotBlocked(ctx, rc, doer);
  const newTitle = o.title ? issueTitle(o.title, false) : found.name;
  const newBody = o.body ?? found.content;
  const textChanged = newTitle !== found.name || newBody !== found.content;
  // why: the referenced issues and the doer's permissions are read before the transaction, from the text as edited.
  const refs = textChanged ? await resolveCrossRefs(ctx, doer, { repoId: rc.repo.id, isPull: found.isPull, comment: false }, newTitle, newBody) : [];
  await withTx(ctx, async (tx) => {
    const issue = await lockIssue(tx, found.id);
    if (!issue) throw new NotFound();
    if (o.title && issueTitle(o.title, false) !== issue.name) {
      const oldTitle = issue.name;
      issue.name = issueTitle(o.title, false);
      await saveIssue(tx, issue);
      await record(tx, { type: CommentType.ChangeTitle, issueId: issue.id, posterId: doer.id, oldTitle, newTitle: issue.name });
      await notify.issueTitleChanged(tx, { doer, issue, oldTitle });
    }
    if (o.body !== undefined && o.body !== null && o.body !== issue.content) {
      const oldBody = issue.content;
      issue.content = o.body;
      issue.contentVersion += 1;
      await saveIssue(tx, issue);
      await recordMentions(tx, rc, issue, doer, issue.content);
      await notify.issueBodyChanged(tx, { doer, issue, oldBody });
    }
    if (o.title || o.body !== undefined) await indexIssueText(tx, issue, issueText(issue));
    // why: as Gitea, an edit of the title or body neuters the references the text no longer makes and adds the new ones.
    if (textChanged) await writeCrossRefs(tx, doer, { issueId: issue.id, repoId: issue.repoId, isPull: issue.isPull, commentId: 0 }, refs, true);
    if (o.ref !== undefined && o.ref !== null) {
      const oldRef = issue.ref;
      issue.ref = o.ref;
      await saveIssue(tx, issue);
      const short = (r: string) => r.replace(/^refs\/heads\//, '');
      await record(tx, { type: CommentType.ChangeIssueRef, issueId: issue.id, posterId: doer.id, oldRef: short(oldRef), newRef: short(o.ref) });
    }
    if (deadline !== undefined) await changeDeadline(tx, issue, doer, deadline);
    if (assignees) await replaceAssignees(tx, issue, doer, assignees.map((u) => u.id));
    if (milestoneId !== undefined) await changeMilestone(tx, issue, doer, milestoneId);
    if (o.state !== undefined) await changeState(tx, issue, doer, o.state === 'closed');
  });
  return getIssue(ctx, rc, index);
}

/** Make a locked issue's assignees exactly `wanted`, with a history entry per change. */
async function replaceAssignees(tx: DbContext, issue: IssueModel, doer: UserModel, wanted: number[]): Promise<void> {
  const current = (await assigneeIdsOfIssues(tx, [issue.id])).get(issue.id) ?? [];
  const removing = current.filter((id) => !wanted.includes(id));
  const adding = wanted.filter((id) => !current.includes(id));
  await removeAssignees(tx, issue.id, removing);
  for (const id of removing) await record(tx, { type: CommentType.Assignees, issueId: issue.id, posterId: doer.id, assigneeId: id, removedAssignee: true });
  await addAssignees(tx, issue.id, adding);
  const added: { userId: number; entryId: number }[] = [];
  for (const userId of adding) added.push({ userId, entryId: (await record(tx, { type: CommentType.Assignees, issueId: issue.id, posterId: doer.id, assigneeId: userId })).id });
  if (added.length || removing.length) await notify.issueAssigneesChanged(tx, { doer, issue, added, removed: removing });
}

/**
 * Set or remove (null) an issue's deadline, stored as 23:59:59 of the given date in the server's
 * zone (UTC); writers only. Returns the stored deadline in Unix seconds (0: none).
 */
export async function setDeadline(ctx: DbContext, doer: UserModel, rc: RepoContext, index: number, due: string | null | undefined): Promise<number> {
  const found = await readableIssue(ctx, rc, index);
  if (!canWriteIssues(rc, found.isPull)) throw new Forbidden('Not repo writer');
  const deadline = !due || Date.parse(due) <= 0 ? 0 : endOfDay(due, 'DueDate', false);
  await withTx(ctx, async (tx) => {
    const issue = await lockIssue(tx, found.id);
    if (!issue) throw new NotFound();
    await changeDeadline(tx, issue, doer, deadline);
  });
  return deadline;
}
