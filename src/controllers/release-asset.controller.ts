/**
 * Release assets: list, upload (multipart field `attachment`, or the raw body with the name in the
 * `name` query), get, rename and delete. Downloads go through the web
 * route `/attachments/{uuid}` (`browser_download_url`).
 */
import type { Request as ExRequest } from 'express';
import { Body, Controller, Delete, Get, Patch, Path, Post, Query, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import type { Attachment, EditAttachmentOptions } from '../api/release';
import type { ApiErrorBody } from '../errors';
import { settings } from '../config';
import { ctxOf, doerOf } from '../middleware/context';
import { multipartBoundary, readMultipartUpload, readRawUpload } from '../middleware/upload';
import { toAttachment } from '../convert/release';
import { repoAssignment } from '../services/repo/context';
import { assertCanUpload, attachmentName, createAsset, deleteAsset, editAsset, getAsset, listAssets } from '../services/release/attachment.service';

const out = (a: Parameters<typeof toAttachment>[0]) => toAttachment(a, settings().server.rootUrl);

@Route('')
@Tags('repository')
export class ReleaseAssetController extends Controller {
  /** List a release's assets. */
  @Get('repos/{owner}/{repo}/releases/{id}/assets')
  @Security('public', ['repository'])
  @Response<ApiErrorBody>(404, 'not found')
  public async repoListReleaseAttachments(@Path() owner: string, @Path() repo: string, @Path() id: number, @Request() req: ExRequest): Promise<Attachment[]> {
    const ctx = ctxOf(req);
    return (await listAssets(ctx, await repoAssignment(ctx, req.principal, owner, repo), id)).map(out);
  }

  /**
   * Upload an asset: `multipart/form-data` with the file in the `attachment` field (the `name`
   * query overrides its file name), or any other content type with the body as the file and the
   * name in the `name` query.
   */
  @Post('repos/{owner}/{repo}/releases/{id}/assets')
  @Security('signed', ['repository'])
  @SuccessResponse(201, 'Attachment')
  @Response<ApiErrorBody>(400, 'no name, or a forbidden file type')
  @Response<ApiErrorBody>(404, 'not found, or attachments disabled')
  @Response<ApiErrorBody>(413, 'too large')
  public async repoCreateReleaseAttachment(@Path() owner: string, @Path() repo: string, @Path() id: number, @Request() req: ExRequest, @Query() name?: string): Promise<Attachment> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    const rel = await assertCanUpload(ctx, rc, id);
    const doer = doerOf(req);
    const boundary = multipartBoundary(req.headers['content-type']);
    const a = boundary
      ? await readMultipartUpload(req, boundary, 'attachment', (filename, data) => createAsset(ctx, doer, rc, rel, name || filename, data))
      : await readRawUpload(req, attachmentName(name), (n, data) => createAsset(ctx, doer, rc, rel, n, data));
    this.setStatus(201);
    return out(a);
  }

  /** Get one asset of a release. */
  @Get('repos/{owner}/{repo}/releases/{id}/assets/{attachment_id}')
  @Security('public', ['repository'])
  @Response<ApiErrorBody>(404, 'not found')
  public async repoGetReleaseAttachment(@Path() owner: string, @Path() repo: string, @Path() id: number, @Path() attachment_id: number, @Request() req: ExRequest): Promise<Attachment> {
    const ctx = ctxOf(req);
    return out(await getAsset(ctx, await repoAssignment(ctx, req.principal, owner, repo), id, attachment_id));
  }

  /** Rename an asset. why: Gitea answers this PATCH with 201. */
  @Patch('repos/{owner}/{repo}/releases/{id}/assets/{attachment_id}')
  @Security('signed', ['repository'])
  @SuccessResponse(201, 'Attachment')
  @Response<ApiErrorBody>(404, 'not found')
  @Response<ApiErrorBody>(422, 'forbidden file type')
  public async repoEditReleaseAttachment(
    @Path() owner: string, @Path() repo: string, @Path() id: number, @Path() attachment_id: number, @Body() body: EditAttachmentOptions, @Request() req: ExRequest,
  ): Promise<Attachment> {
    const ctx = ctxOf(req);
    const a = await editAsset(ctx, await repoAssignment(ctx, req.principal, owner, repo), id, attachment_id, body.name);
    this.setStatus(201);
    return out(a);
  }

  /** Delete an asset and its file. */
  @Delete('repos/{owner}/{repo}/releases/{id}/assets/{attachment_id}')
  @Security('signed', ['repository'])
  @SuccessResponse(204, 'empty')
  @Response<ApiErrorBody>(404, 'not found')
  public async repoDeleteReleaseAttachment(@Path() owner: string, @Path() repo: string, @Path() id: number, @Path() attachment_id: number, @Request() req: ExRequest): Promise<void> {
    const ctx = ctxOf(req);
    await deleteAsset(ctx, await repoAssignment(ctx, req.principal, owner, repo), id, attachment_id);
    this.setStatus(204);
  }
}
