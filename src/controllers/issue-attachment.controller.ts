/**
 * Attachments of issues and of their comments: list, upload (multipart field `attachment`, or the
 * raw body with the name in the `name` query), get, rename and delete. Downloads go through the
 * web route `/attachments/{uuid}` (`browser_download_url`).
 */
import type { Request as ExRequest } from 'express';
import type { Readable } from 'node:stream';
import { Body, Controller, Delete, Get, Patch, Path, Post, Query, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import type { Attachment, EditAttachmentOptions } from '../api/release';
import type { ApiErrorBody } from '../errors';
import { settings } from '../config';
import { ctxOf, doerOf } from '../middleware/context';
import { multipartBoundary, readMultipartUpload, readRawUpload } from '../middleware/upload';
import { toAttachment } from '../convert/release';
import { repoAssignment } from '../services/repo/context';
import { attachmentName } from '../services/release/attachment.service';
import {
  assertCanUploadToComment, assertCanUploadToIssue, createCommentAsset, createIssueAsset, deleteCommentAsset, deleteIssueAsset, editCommentAsset,
  editIssueAsset, getCommentAsset, getIssueAsset, listCommentAssets, listIssueAssets,
} from '../services/issue/attachment.service';

const out = (a: Parameters<typeof toAttachment>[0]) => toAttachment(a, settings().server.rootUrl);

type Store = (name: string, data: Readable) => Promise<Parameters<typeof toAttachment>[0]>;

/** Read the upload of a request, multipart or raw; the `name` query overrides the file name. */
function upload(req: ExRequest, name: string | undefined, store: Store) {
  const boundary = multipartBoundary(req.headers['content-type']);
  return boundary
    ? readMultipartUpload(req, boundary, 'attachment', (filename, data) => store(name || filename, data))
    : readRawUpload(req, attachmentName(name), store);
}

@Route('repos/{owner}/{repo}/issues')
@Tags('issue')
export class IssueAttachmentController extends Controller {
  /** List an issue's attachments (not those of its comments). */
  @Get('{index}/assets')
  @Security('public', ['issue'])
  @Response<ApiErrorBody>(404, 'not found')
  public async issueListIssueAttachments(@Path() owner: string, @Path() repo: string, @Path() index: number, @Request() req: ExRequest): Promise<Attachment[]> {
    const ctx = ctxOf(req);
    return (await listIssueAssets(ctx, await repoAssignment(ctx, req.principal, owner, repo), index)).map(out);
  }

  /**
   * Upload an issue attachment: `multipart/form-data` with the file in the `attachment` field
   * (the `name` query overrides its file name), or any other content type with the body as the
   * file and the name in the `name` query.
   */
  @Post('{index}/assets')
  @Security('signed', ['issue'])
  @SuccessResponse(201, 'Attachment')
  @Response<ApiErrorBody>(400, 'no name or no file')
  @Response<ApiErrorBody>(403, 'forbidden')
  @Response<ApiErrorBody>(404, 'not found, or attachments disabled')
  @Response<ApiErrorBody>(413, 'too large')
  @Response<ApiErrorBody>(422, 'forbidden file type')
  @Response<ApiErrorBody>(423, 'archived')
  public async issueCreateIssueAttachment(
    @Path() owner: string, @Path() repo: string, @Path() index: number, @Request() req: ExRequest, @Query() name?: string,
  ): Promise<Attachment> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    const doer = doerOf(req);
    const issue = await assertCanUploadToIssue(ctx, doer, rc, index);
    const a = await upload(req, name, (n, data) => createIssueAsset(ctx, doer, rc, issue, n, data));
    this.setStatus(201);
    return out(a);
  }

  /** Get one attachment of an issue. */
  @Get('{index}/assets/{attachment_id}')
  @Security('public', ['issue'])
  @Response<ApiErrorBody>(404, 'not found')
  public async issueGetIssueAttachment(
    @Path() owner: string, @Path() repo: string, @Path() index: number, @Path() attachment_id: number, @Request() req: ExRequest,
  ): Promise<Attachment> {
    const ctx = ctxOf(req);
    return out(await getIssueAsset(ctx, await repoAssignment(ctx, req.principal, owner, repo), index, attachment_id));
  }

  /** Rename an issue attachment. why: Gitea answers this PATCH with 201. */
  @Patch('{index}/assets/{attachment_id}')
  @Security('signed', ['issue'])
  @SuccessResponse(201, 'Attachment')
  @Response<ApiErrorBody>(403, 'forbidden')
  @Response<ApiErrorBody>(404, 'not found')
  @Response<ApiErrorBody>(422, 'forbidden file type')
  @Response<ApiErrorBody>(423, 'archived')
  public async issueEditIssueAttachment(
    @Path() owner: string, @Path() repo: string, @Path() index: number, @Path() attachment_id: number, @Body() body: EditAttachmentOptions, @Request() req: ExRequest,
  ): Promise<Attachment> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    const a = await editIssueAsset(ctx, doerOf(req), rc, index, attachment_id, body.name);
    this.setStatus(201);
    return out(a);
  }

  /** Delete an issue attachment and its file. */
  @Delete('{index}/assets/{attachment_id}')
  @Security('signed', ['issue'])
  @SuccessResponse(204, 'empty')
  @Response<ApiErrorBody>(403, 'forbidden')
  @Response<ApiErrorBody>(404, 'not found')
  @Response<ApiErrorBody>(423, 'archived')
  public async issueDeleteIssueAttachment(
    @Path() owner: string, @Path() repo: string, @Path() index: number, @Path() attachment_id: number, @Request() req: ExRequest,
  ): Promise<void> {
    const ctx = ctxOf(req);
    await deleteIssueAsset(ctx, doerOf(req), await repoAssignment(ctx, req.principal, owner, repo), index, attachment_id);
    this.setStatus(204);
  }

  /** List a comment's attachments. */
  @Get('comments/{id}/assets')
  @Security('public', ['issue'])
  @Response<ApiErrorBody>(404, 'not found')
  public async issueListIssueCommentAttachments(@Path() owner: string, @Path() repo: string, @Path() id: number, @Request() req: ExRequest): Promise<Attachment[]> {
    const ctx = ctxOf(req);
    return (await listCommentAssets(ctx, await repoAssignment(ctx, req.principal, owner, repo), id)).map(out);
  }

  /** Upload a comment attachment (the same body forms as an issue attachment). */
  @Post('comments/{id}/assets')
  @Security('signed', ['issue'])
  @SuccessResponse(201, 'Attachment')
  @Response<ApiErrorBody>(400, 'no name or no file')
  @Response<ApiErrorBody>(403, 'forbidden')
  @Response<ApiErrorBody>(404, 'not found, or attachments disabled')
  @Response<ApiErrorBody>(413, 'too large')
  @Response<ApiErrorBody>(422, 'forbidden file type')
  @Response<ApiErrorBody>(423, 'archived')
  public async issueCreateIssueCommentAttachment(
    @Path() owner: string, @Path() repo: string, @Path() id: number, @Request() req: ExRequest, @Query() name?: string,
  ): Promise<Attachment> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    const doer = doerOf(req);
    const comment = await assertCanUploadToComment(ctx, doer, rc, id);
    const a = await upload(req, name, (n, data) => createCommentAsset(ctx, doer, rc, comment, n, data));
    this.setStatus(201);
    return out(a);
  }

  /** Get one attachment of a comment. */
  @Get('comments/{id}/assets/{attachment_id}')
  @Security('public', ['issue'])
  @Response<ApiErrorBody>(404, 'not found')
  public async issueGetIssueCommentAttachment(
    @Path() owner: string, @Path() repo: string, @Path() id: number, @Path() attachment_id: number, @Request() req: ExRequest,
  ): Promise<Attachment> {
    const ctx = ctxOf(req);
    return out(await getCommentAsset(ctx, await repoAssignment(ctx, req.principal, owner, repo), id, attachment_id));
  }

  /** Rename a comment attachment. why: Gitea answers this PATCH with 201. */
  @Patch('comments/{id}/assets/{attachment_id}')
  @Security('signed', ['issue'])
  @SuccessResponse(201, 'Attachment')
  @Response<ApiErrorBody>(403, 'forbidden')
  @Response<ApiErrorBody>(404, 'not found')
  @Response<ApiErrorBody>(422, 'forbidden file type')
  @Response<ApiErrorBody>(423, 'archived')
  public async issueEditIssueCommentAttachment(
    @Path() owner: string, @Path() repo: string, @Path() id: number, @Path() attachment_id: number, @Body() body: EditAttachmentOptions, @Request() req: ExRequest,
  ): Promise<Attachment> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    const a = await editCommentAsset(ctx, doerOf(req), rc, id, attachment_id, body.name);
    this.setStatus(201);
    return out(a);
  }

  /** Delete a comment attachment and its file. */
  @Delete('comments/{id}/assets/{attachment_id}')
  @Security('signed', ['issue'])
  @SuccessResponse(204, 'empty')
  @Response<ApiErrorBody>(403, 'forbidden')
  @Response<ApiErrorBody>(404, 'not found')
  @Response<ApiErrorBody>(423, 'archived')
  public async issueDeleteIssueCommentAttachment(
    @Path() owner: string, @Path() repo: string, @Path() id: number, @Path() attachment_id: number, @Request() req: ExRequest,
  ): Promise<void> {
    const ctx = ctxOf(req);
    await deleteCommentAsset(ctx, doerOf(req), await repoAssignment(ctx, req.principal, owner, repo), id, attachment_id);
    this.setStatus(204);
  }
}
