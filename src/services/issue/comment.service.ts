/**
 * Comments on issues: list (per issue and per repository), create, get, edit, delete. Only plain
 * comments are listed here; history entries appear in the timeline. A locked issue takes comments
 * from writers only; a user the repository's owner or the issue's poster blocked cannot comment.
 */
import { withTx, type DbContext } from '../../db';
import { Forbidden, NotFound, Validation } from '../../errors';
import {
  CommentType, COUNTED_TYPES, deleteCommentRows, findCommentById, listIssueComments, listRepoComments, saveComment, type CommentModel, type TimeWindow,
} from '../../models/comment.model';
import { addIssueComments, findIssueById, findIssuesByIds, lockIssue, touchIssue, type IssueModel } from '../../models/issue.model';
import { indexCommentText, unindexText } from '../../models/issue-search';
import { deleteCommentReactions } from '../../models/reaction.model';
import { markCommentActionsDeleted } from '../../models/action.model';
import { deleteAttachmentRows, listCommentAttachments, type AttachmentModel } from '../../models/attachment.model';
import type { UserModel } from '../../models/user.model';
import type { RepoContext } from '../repo/context';
import { assertNotArchived } from '../repo/access';
import { removeAttachmentFiles } from '../storage/attachment-store';
import { assertNotBlocked, assertTrackerReadable, canReadIssues, canWriteIssues, readableIssue } from './access';
import { record } from './history';
import { recordMentions } from './mention';
import { usersById } from './view';
import { neuterCommentRefs, resolveCrossRefs, writeCrossRefs } from './xref';
import { notify } from '../notify/notifier';

/** A comment with its issue, poster and attachments, for the converter. */
export interface CommentView { row: CommentModel; issue: IssueModel; poster: UserModel | null; assets: AttachmentModel[] }

/** Types whose content can be edited (comment, code comment, review, dismissed review). */
const WITH_CONTENT = [CommentType.Comment, CommentType.Code, CommentType.Review, CommentType.DismissReview];

async function views(ctx: DbContext, rows: CommentModel[], issues: Map<number, IssueModel>): Promise<CommentView[]> {
  const user = await usersById(ctx, rows.map((r) => r.posterId));
  const assets = await listCommentAttachments(ctx, rows.map((r) => r.id));
  return rows.map((row) => ({ row, issue: issues.get(row.issueId)!, poster: user(row.posterId), assets: assets.filter((a) => a.commentId === row.id) }));
}

/** The plain comments of an issue, oldest first (Gitea lists them all). */
export async function listCommentsOfIssue(ctx: DbContext, rc: RepoContext, index: number, w: TimeWindow): Promise<CommentView[]> {
  const issue = await readableIssue(ctx, rc, index);
  const rows = await listIssueComments(ctx, issue.id, { ...w, types: [CommentType.Comment] });
  return views(ctx, rows, new Map([[issue.id, issue]]));
}

/** The plain comments of a repository's issues and pull requests the caller may read, one page. */
export async function listCommentsOfRepo(ctx: DbContext, rc: RepoContext, w: TimeWindow, page: { limit: number; offset: number }): Promise<{ items: CommentView[]; total: number }> {
  assertTrackerReadable(rc);
  const { rows, count } = await listRepoComments(ctx, rc.repo.id, { issues: canReadIssues(rc, false), pulls: canReadIssues(rc, true) }, w, page.limit, page.offset);
  const issues = new Map((await findIssuesByIds(ctx, rows.map((r) => r.issueId))).map((i) => [i.id, i]));
  return { items: await views(ctx, rows, issues), total: count };
}

/** A comment of the repository that the caller may read; 404 otherwise (`hidden`: the message when it is elsewhere or unreadable). */
export async function readableComment(ctx: DbContext, rc: RepoContext, id: number, hidden?: string): Promise<{ row: CommentModel; issue: IssueModel }> {
  assertTrackerReadable(rc);
  const row = await findCommentById(ctx, id);
  if (!row) throw new NotFound(`comment does not exist [id: ${id}, issue_id: 0]`);
  const issue = await findIssueById(ctx, row.issueId);
  if (!issue || issue.repoId !== rc.repo.id || !canReadIssues(rc, issue.isPull)) throw new NotFound(hidden);
  return { row, issue };
}

/** A plain comment by id; null for a history entry (Gitea answers 204 for those). */
export async function getComment(ctx: DbContext, rc: RepoContext, id: number): Promise<CommentView | null> {
  const { row, issue } = await readableComment(ctx, rc, id);
  if (row.type !== CommentType.Comment) return null;
  return (await views(ctx, [row], new Map([[issue.id, issue]])))[0];
}

/** Comment on an issue. */
export async function createComment(ctx: DbContext, doer: UserModel, rc: RepoContext, index: number, body: string | undefined): Promise<CommentView> {
  assertNotArchived(rc);
  if (!body) throw new Validation('[Body]: Required');
  const issue = await readableIssue(ctx, rc, index);
  if (issue.isLocked && !canWriteIssues(rc, issue.isPull) && !doer.isAdmin) throw new Forbidden('You cannot comment on a locked issue.');
  await assertNotBlocked(ctx, rc, doer, [issue.posterId]);
  const refs = await resolveCrossRefs(ctx, doer, { repoId: rc.repo.id, isPull: issue.isPull, comment: true }, '', body);
  const row = await withTx(ctx, async (tx) => {
    const c = await record(tx, { type: CommentType.Comment, issueId: issue.id, posterId: doer.id, content: body });
    await writeCrossRefs(tx, doer, { issueId: issue.id, repoId: issue.repoId, isPull: issue.isPull, commentId: c.id }, refs, false);
    const mentioned = await recordMentions(tx, rc, issue, doer, body);
    await notify.commentCreated(tx, { doer, issue, comment: c, mentioned });
    return c;
  });
  return { row, issue, poster: doer, assets: [] };
}

/** May the caller change or delete a comment: its poster, or a writer of the issue's unit. */
function assertCommentEditor(rc: RepoContext, doer: UserModel, row: CommentModel, issue: IssueModel): void {
  if (row.posterId !== doer.id && !canWriteIssues(rc, issue.isPull)) throw new Forbidden('');
}

/** Edit a comment's body; null for a history entry, which has none (Gitea answers 204). */
export async function editComment(ctx: DbContext, doer: UserModel, rc: RepoContext, id: number, body: string | undefined): Promise<CommentView | null> {
  assertNotArchived(rc);
  if (!body) throw new Validation('[Body]: Required');
  const { row, issue } = await readableComment(ctx, rc, id);
  assertCommentEditor(rc, doer, row, issue);
  if (!WITH_CONTENT.includes(row.type)) return null;
  await assertNotBlocked(ctx, rc, doer, [issue.posterId]);
  if (body !== row.content) {
    // why: as Gitea, comments and line comments reference issues; so do review bodies here (the issue asks for them).
    const referencing = [CommentType.Comment, CommentType.Code, CommentType.Review].includes(row.type);
    const refs = referencing ? await resolveCrossRefs(ctx, doer, { repoId: rc.repo.id, isPull: issue.isPull, comment: true }, '', body) : [];
    await withTx(ctx, async (tx) => {
      const before = row.content;
      row.content = body;
      row.contentVersion += 1;
      await saveComment(tx, row);
      if (row.type === CommentType.Comment) await indexCommentText(tx, row, body);
      if (referencing) await writeCrossRefs(tx, doer, { issueId: issue.id, repoId: issue.repoId, isPull: issue.isPull, commentId: row.id }, refs, true);
      await recordMentions(tx, rc, issue, doer, body);
      await notify.commentEdited(tx, { doer, issue, comment: row, oldBody: before });
    });
  }
  return (await views(ctx, [row], new Map([[issue.id, issue]])))[0];
}

/** Delete a plain comment with its reactions and attachments (history entries stay; Gitea answers 204 either way). */
export async function deleteComment(ctx: DbContext, doer: UserModel, rc: RepoContext, id: number): Promise<void> {
  const { row, issue } = await readableComment(ctx, rc, id);
  assertCommentEditor(rc, doer, row, issue);
  if (row.type !== CommentType.Comment) return;
  const uuids = await withTx(ctx, async (tx) => {
    await lockIssue(tx, issue.id);
    const fresh = await findCommentById(tx, row.id);
    if (!fresh) return [];
    await notify.commentDeleted(tx, { doer, issue, comment: fresh });
    await neuterCommentRefs(tx, issue.id, fresh.id);
    const uuids = await deleteCommentsWithLinks(tx, [fresh]);
    await touchIssue(tx, issue.id);
    return uuids;
  });
  await removeAttachmentFiles(uuids);
}

/**
 * Delete comments with their attachments, reactions and search entries, taking the counted ones
 * off their issues' comment counts (in the caller's transaction); returns the attachments' uuids,
 * whose files the caller removes once the transaction committed.
 */
export async function deleteCommentsWithLinks(tx: DbContext, rows: CommentModel[]): Promise<string[]> {
  const ids = rows.map((c) => c.id);
  const assets = await listCommentAttachments(tx, ids);
  await deleteAttachmentRows(tx, assets.map((a) => a.id));
  await deleteCommentReactions(tx, ids);
  await unindexText(tx, 'comment_fts', ids);
  await deleteCommentRows(tx, ids);
  await markCommentActionsDeleted(tx, ids);
  const counted = new Map<number, number>();
  for (const c of rows) if (COUNTED_TYPES.includes(c.type)) counted.set(c.issueId, (counted.get(c.issueId) ?? 0) + 1);
  for (const [issueId, n] of counted) await addIssueComments(tx, issueId, -n);
  return assets.map((a) => a.uuid);
}
