/**
 * Attachments of issues and comments (`/repos/{owner}/{repo}/issues/{index}/assets` and
 * `/repos/{owner}/{repo}/issues/comments/{id}/assets`), as Gitea's issue_attachment.go and
 * issue_comment_attachment.go decide them, and who may download one through `/attachments/{uuid}`.
 * Files live in the same store as release assets; the type allow-list is `[attachment]
 * ALLOWED_TYPES` (a refused type is 422 here, as Gitea), the size limit `[attachment] MAX_SIZE`.
 */
import type { Readable } from 'node:stream';
import { settings } from '../../config';
import { withTx, type DbContext } from '../../db';
import { BadRequest, Forbidden, NotFound, Validation } from '../../errors';
import {
  countAttachmentDownload, deleteAttachmentRows, findAttachmentById, findAttachmentByUuid, insertIssueAttachment, listCommentAttachments,
  listIssueAttachments, renameAttachment, type AttachmentModel,
} from '../../models/attachment.model';
import { findCommentById, saveComment, type CommentModel } from '../../models/comment.model';
import { findIssueById, lockIssue, touchIssue, type IssueModel } from '../../models/issue.model';
import { findRepoById } from '../../models/repository.model';
import { findUserById, type UserModel } from '../../models/user.model';
import type { Principal } from '../auth/principal';
import { repoAssignment, type RepoContext } from '../repo/context';
import { assertNotArchived, isRepoAdmin } from '../repo/access';
import { FORBIDDEN_TYPE, openAttachmentFile, removeAttachmentFiles, storeUpload, typeAllowed } from '../storage/attachment-store';
import { assertAttachmentsEnabled, attachmentName, openReleaseAttachment, type AttachmentDownload } from '../release/attachment.service';
import { readableComment as readableCommentOf } from './comment.service';
import { assertNotBlocked, assertTrackerReadable, canReadIssues, canWriteIssues, readableIssue } from './access';

/** A comment of the repository the caller may read, with its issue. */
interface CommentRef { row: CommentModel; issue: IssueModel }

/** The byte limit of one attachment ([attachment] MAX_SIZE in MiB; 0 or less is no limit). */
function maxBytes(): number {
  const mb = settings().attachment.maxSize;
  return mb > 0 ? mb * 1024 * 1024 : 0;
}

/** 404 when attachments are off, then 404 unless the tracker is readable (Gitea's group guards). */
function guard(rc: RepoContext): void {
  assertTrackerReadable(rc);
  assertAttachmentsEnabled();
}

/** The guards of a change: those of a read, then 423 for an archived repository. */
function guardWrite(rc: RepoContext): void {
  guard(rc);
  assertNotArchived(rc);
}

/** A comment of this repository the caller may read; elsewhere (or unreadable) is 404 `no matching issue comment found`. */
const readableComment = (ctx: DbContext, rc: RepoContext, id: number): Promise<CommentRef> => readableCommentOf(ctx, rc, id, 'no matching issue comment found');

/**
 * Gitea's canUserWriteIssueAttachment: the issue's poster, a writer of its unit (issues, or pull
 * requests for a pull request), a repository admin or a site admin.
 */
function assertIssueAttachmentWriter(rc: RepoContext, doer: UserModel, issue: IssueModel): void {
  const ok = doer.id === issue.posterId || isRepoAdmin(rc) || doer.isAdmin || canWriteIssues(rc, issue.isPull);
  if (!ok) throw new Forbidden('user should have permission to write issue');
}

/**
 * Gitea's canUserWriteIssueCommentAttachment: (the comment's poster, a repository admin or a site
 * admin) and a writer of the issue's unit.
 */
function assertCommentAttachmentWriter(rc: RepoContext, doer: UserModel, c: CommentRef): void {
  const ok = (doer.id === c.row.posterId || isRepoAdmin(rc) || doer.isAdmin) && canWriteIssues(rc, c.issue.isPull);
  if (!ok) throw new Forbidden('user should have permission to edit comment');
}

/** The attachment `id` of this repository; 404 (Gitea's messages) otherwise. */
async function attachmentInRepo(ctx: DbContext, rc: RepoContext, id: number): Promise<AttachmentModel> {
  const a = await findAttachmentById(ctx, id);
  if (!a) throw new NotFound(`attachment does not exist [id: ${id}, uuid: ]`);
  if (a.repoId !== rc.repo.id) throw new NotFound('no such attachment in repo');
  return a;
}

/** The attachment `id` of the issue (its own or one of its comments', as Gitea reads it). */
async function attachmentOfIssue(ctx: DbContext, rc: RepoContext, issue: IssueModel, id: number): Promise<AttachmentModel> {
  const a = await attachmentInRepo(ctx, rc, id);
  if (a.issueId === 0 || a.issueId !== issue.id) throw new NotFound('no such attachment in issue');
  return a;
}

/** The attachment `id` of the comment. */
async function attachmentOfComment(ctx: DbContext, rc: RepoContext, c: CommentRef, id: number): Promise<AttachmentModel> {
  const a = await attachmentInRepo(ctx, rc, id);
  if (a.issueId === 0 || a.commentId === 0 || a.commentId !== c.row.id) throw new NotFound('no such attachment in comment');
  return a;
}

/**
 * Store an upload and insert its row, re-checking under the issue's lock that the issue (and the
 * comment) still exist; the file goes again when anything fails.
 */
async function store(
  ctx: DbContext, doer: UserModel, rc: RepoContext, issue: IssueModel, comment: CommentModel | null, rawName: string, data: Readable,
): Promise<AttachmentModel> {
  const name = attachmentName(rawName);
  const stored = await storeUpload(data, name, { maxBytes: maxBytes(), allowedTypes: settings().attachment.allowedTypes }).catch((err: unknown) => {
    // why: Gitea answers a refused type 422 for issue and comment attachments (400 for release assets).
    if (err instanceof BadRequest && err.message === FORBIDDEN_TYPE) throw new Validation(FORBIDDEN_TYPE);
    throw err;
  });
  try {
    return await withTx(ctx, async (tx) => {
      // why: deleteIssue and deleteComment take this lock before collecting attachments, so a row
      // inserted here either is seen by them or finds its issue or comment gone.
      if (!(await lockIssue(tx, issue.id))) throw new NotFound();
      const fresh = comment ? await findCommentById(tx, comment.id) : null;
      if (comment && (!fresh || fresh.issueId !== issue.id)) throw new NotFound('no matching issue comment found');
      const row = await insertIssueAttachment(tx, {
        uuid: stored.uuid, repoId: rc.repo.id, issueId: issue.id, commentId: comment?.id ?? 0, uploaderId: doer.id, name, size: stored.size,
      });
      // why: Gitea saves the content again after linking the file, which marks the issue (comment) updated.
      if (fresh) await saveComment(tx, fresh);
      else await touchIssue(tx, issue.id);
      return row;
    });
  } catch (err) {
    await removeAttachmentFiles([stored.uuid]);
    throw err;
  }
}

/** Rename (an empty name changes nothing); the new name must pass the type allow-list by its extension. */
async function rename(ctx: DbContext, a: AttachmentModel, name: string | undefined): Promise<AttachmentModel> {
  if (!name) return a;
  const clean = attachmentName(name);
  if (!typeAllowed(null, clean, settings().attachment.allowedTypes)) throw new Validation(FORBIDDEN_TYPE);
  await withTx(ctx, (tx) => renameAttachment(tx, a, clean));
  return a;
}

/** Delete an attachment row, then its file. */
async function remove(ctx: DbContext, a: AttachmentModel): Promise<void> {
  await withTx(ctx, (tx) => deleteAttachmentRows(tx, [a.id]));
  await removeAttachmentFiles([a.uuid]);
}

// ---- issue attachments ----

/** The issue's own attachments (not its comments'), oldest first. */
export async function listIssueAssets(ctx: DbContext, rc: RepoContext, index: number): Promise<AttachmentModel[]> {
  guard(rc);
  const issue = await readableIssue(ctx, rc, index);
  return listIssueAttachments(ctx, [issue.id]);
}

/** One attachment of a readable issue. */
export async function getIssueAsset(ctx: DbContext, rc: RepoContext, index: number, id: number): Promise<AttachmentModel> {
  guard(rc);
  return attachmentOfIssue(ctx, rc, await readableIssue(ctx, rc, index), id);
}

/** Check an upload to an issue may start (before any of the body is read); returns the issue. */
export async function assertCanUploadToIssue(ctx: DbContext, doer: UserModel, rc: RepoContext, index: number): Promise<IssueModel> {
  guardWrite(rc);
  const issue = await readableIssue(ctx, rc, index);
  assertIssueAttachmentWriter(rc, doer, issue);
  // why: Gitea refuses the content update that links the file for a user the poster or owner blocked.
  if (!isRepoAdmin(rc)) await assertNotBlocked(ctx, rc, doer, [issue.posterId]);
  return issue;
}

/** Store an uploaded file named `rawName` as an attachment of the issue (checked by assertCanUploadToIssue). */
export function createIssueAsset(ctx: DbContext, doer: UserModel, rc: RepoContext, issue: IssueModel, rawName: string, data: Readable): Promise<AttachmentModel> {
  return store(ctx, doer, rc, issue, null, rawName, data);
}

/**
 * The attachment `id` of the issue for a change by `doer`. why: Gitea lets the issue's route reach
 * its comments' attachments too; changing one of those also needs the right to edit that comment,
 * so an issue's poster cannot remove files from other people's comments.
 */
async function changeableIssueAsset(ctx: DbContext, doer: UserModel, rc: RepoContext, index: number, id: number): Promise<AttachmentModel> {
  guardWrite(rc);
  const issue = await readableIssue(ctx, rc, index);
  assertIssueAttachmentWriter(rc, doer, issue);
  const a = await attachmentOfIssue(ctx, rc, issue, id);
  if (a.commentId !== 0) {
    const row = await findCommentById(ctx, a.commentId);
    if (!row) throw new NotFound('no such attachment in issue');
    assertCommentAttachmentWriter(rc, doer, { row, issue });
  }
  return a;
}

/** Rename an attachment of an issue. */
export async function editIssueAsset(ctx: DbContext, doer: UserModel, rc: RepoContext, index: number, id: number, name: string | undefined): Promise<AttachmentModel> {
  return rename(ctx, await changeableIssueAsset(ctx, doer, rc, index, id), name);
}

/** Delete an attachment of an issue and its file. */
export async function deleteIssueAsset(ctx: DbContext, doer: UserModel, rc: RepoContext, index: number, id: number): Promise<void> {
  await remove(ctx, await changeableIssueAsset(ctx, doer, rc, index, id));
}

// ---- comment attachments ----

/** A readable comment's attachments, oldest first. */
export async function listCommentAssets(ctx: DbContext, rc: RepoContext, commentId: number): Promise<AttachmentModel[]> {
  guard(rc);
  const c = await readableComment(ctx, rc, commentId);
  return listCommentAttachments(ctx, [c.row.id]);
}

/** One attachment of a readable comment. */
export async function getCommentAsset(ctx: DbContext, rc: RepoContext, commentId: number, id: number): Promise<AttachmentModel> {
  guard(rc);
  return attachmentOfComment(ctx, rc, await readableComment(ctx, rc, commentId), id);
}

/** Check an upload to a comment may start (before any of the body is read); returns the comment and its issue. */
export async function assertCanUploadToComment(ctx: DbContext, doer: UserModel, rc: RepoContext, commentId: number): Promise<CommentRef> {
  guardWrite(rc);
  const c = await readableComment(ctx, rc, commentId);
  assertCommentAttachmentWriter(rc, doer, c);
  // why: Gitea's UpdateComment (which links the file) refuses a user the poster or owner blocked.
  if (!isRepoAdmin(rc)) await assertNotBlocked(ctx, rc, doer, [c.issue.posterId]);
  return c;
}

/** Store an uploaded file named `rawName` as an attachment of the comment (checked by assertCanUploadToComment). */
export function createCommentAsset(ctx: DbContext, doer: UserModel, rc: RepoContext, c: CommentRef, rawName: string, data: Readable): Promise<AttachmentModel> {
  return store(ctx, doer, rc, c.issue, c.row, rawName, data);
}

async function changeableCommentAsset(ctx: DbContext, doer: UserModel, rc: RepoContext, commentId: number, id: number): Promise<AttachmentModel> {
  guardWrite(rc);
  const c = await readableComment(ctx, rc, commentId);
  assertCommentAttachmentWriter(rc, doer, c);
  return attachmentOfComment(ctx, rc, c, id);
}

/** Rename an attachment of a comment. */
export async function editCommentAsset(ctx: DbContext, doer: UserModel, rc: RepoContext, commentId: number, id: number, name: string | undefined): Promise<AttachmentModel> {
  return rename(ctx, await changeableCommentAsset(ctx, doer, rc, commentId, id), name);
}

/** Delete an attachment of a comment and its file. */
export async function deleteCommentAsset(ctx: DbContext, doer: UserModel, rc: RepoContext, commentId: number, id: number): Promise<void> {
  await remove(ctx, await changeableCommentAsset(ctx, doer, rc, commentId, id));
}

// ---- downloads ----

/**
 * May `p` download an attachment of an issue or comment: it can see the repository and read the
 * issue's unit (issues, or pull requests), through the one permission function.
 */
async function canReadIssueAttachment(ctx: DbContext, p: Principal, row: AttachmentModel): Promise<boolean> {
  const repo = await findRepoById(ctx, row.repoId);
  const owner = repo && (await findUserById(ctx, repo.ownerId));
  const issue = await findIssueById(ctx, row.issueId);
  if (!repo || !owner || !issue || issue.repoId !== repo.id) return false;
  if (row.commentId !== 0 && (await findCommentById(ctx, row.commentId))?.issueId !== issue.id) return false;
  const rc = await repoAssignment(ctx, p, owner.name, repo.name).catch((err: unknown) => {
    if (err instanceof NotFound) return null;
    throw err;
  });
  return !!rc && canReadIssues(rc, issue.isPull);
}

/**
 * Open any attachment for `p` by uuid (`/attachments/{uuid}`): a release asset on the release's
 * terms; an issue or comment attachment when the caller reads that issue; one linked to nothing
 * yet (uploaded, not yet attached) only for its uploader. 404 alike for missing and hidden.
 */
export async function openAttachmentDownload(ctx: DbContext, p: Principal, uuid: string): Promise<AttachmentDownload> {
  if (!/^[0-9a-f-]{36}$/.test(uuid)) throw new NotFound();
  const row = await findAttachmentByUuid(ctx, uuid);
  if (!row) throw new NotFound();
  if (row.releaseId !== 0) return openReleaseAttachment(ctx, p, row);
  const allowed = row.issueId !== 0 || row.commentId !== 0
    ? await canReadIssueAttachment(ctx, p, row)
    : !!p.user && p.user.id === row.uploaderId;
  if (!allowed) throw new NotFound();
  const file = await openAttachmentFile(row.uuid);
  if (!file) throw new NotFound();
  await countAttachmentDownload(ctx, row.id);
  return { row, ...file };
}
