/**
 * Uploaded avatars over the API: `/user/avatar`, `/orgs/{org}/avatar` (owners) and
 * `/repos/{owner}/{repo}/avatar` (repository admins). The image travels base64-encoded in JSON
 * and is stored as the web form stores it: checked, squared and re-encoded as a PNG.
 */
import type { Request as ExRequest } from 'express';
import { Body, Controller, Delete, Path, Post, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import type { UpdateRepoAvatarOption, UpdateUserAvatarOption } from '../api/user';
import type { ApiErrorBody } from '../errors';
import { ctxOf, doerOf } from '../middleware/context';
import { resolveOrg, assertOrgOwner } from '../services/org/guard';
import { repoAssignment } from '../services/repo/context';
import { assertRepoAdmin } from '../services/repo/repo.service';
import { decodeAvatarImage, deleteAvatar, deleteRepoAvatar, setAvatar, setRepoAvatar } from '../services/user/avatar.service';

@Route('')
export class AvatarController extends Controller {
  /** Update the caller's avatar. */
  @Post('user/avatar')
  @Tags('user')
  @Security('signed', ['user'])
  @SuccessResponse(204, 'empty')
  @Response<ApiErrorBody>(400, 'the image is not base64')
  @Response<ApiErrorBody>(413, 'the image is too large')
  @Response<ApiErrorBody>(422, 'not a PNG, JPEG, GIF or WebP picture, or too many pixels')
  public async userUpdateAvatar(@Body() body: UpdateUserAvatarOption, @Request() req: ExRequest): Promise<void> {
    await setAvatar(ctxOf(req), doerOf(req), decodeAvatarImage(body.image));
    this.setStatus(204);
  }

  /** Delete the caller's avatar (back to the generated one). */
  @Delete('user/avatar')
  @Tags('user')
  @Security('signed', ['user'])
  @SuccessResponse(204, 'empty')
  public async userDeleteAvatar(@Request() req: ExRequest): Promise<void> {
    await deleteAvatar(ctxOf(req), doerOf(req));
    this.setStatus(204);
  }

  /** Update an organization's avatar (owners). */
  @Post('orgs/{org}/avatar')
  @Tags('organization')
  @Security('signed', ['organization'])
  @SuccessResponse(204, 'empty')
  @Response<ApiErrorBody>(400, 'the image is not base64')
  @Response<ApiErrorBody>(403, 'not an owner')
  @Response<ApiErrorBody>(404, 'not found')
  @Response<ApiErrorBody>(413, 'the image is too large')
  @Response<ApiErrorBody>(422, 'not a PNG, JPEG, GIF or WebP picture, or too many pixels')
  public async orgUpdateAvatar(@Path() org: string, @Body() body: UpdateUserAvatarOption, @Request() req: ExRequest): Promise<void> {
    const ctx = ctxOf(req);
    const o = await resolveOrg(ctx, req.principal, org);
    await assertOrgOwner(ctx, req.principal, o);
    await setAvatar(ctx, o, decodeAvatarImage(body.image));
    this.setStatus(204);
  }

  /** Delete an organization's avatar (owners). */
  @Delete('orgs/{org}/avatar')
  @Tags('organization')
  @Security('signed', ['organization'])
  @SuccessResponse(204, 'empty')
  @Response<ApiErrorBody>(403, 'not an owner')
  @Response<ApiErrorBody>(404, 'not found')
  public async orgDeleteAvatar(@Path() org: string, @Request() req: ExRequest): Promise<void> {
    const ctx = ctxOf(req);
    const o = await resolveOrg(ctx, req.principal, org);
    await assertOrgOwner(ctx, req.principal, o);
    await deleteAvatar(ctx, o);
    this.setStatus(204);
  }

  /** Update a repository's avatar (repository admins). */
  @Post('repos/{owner}/{repo}/avatar')
  @Tags('repository')
  @Security('signed', ['repository'])
  @SuccessResponse(204, 'empty')
  @Response<ApiErrorBody>(400, 'the image is not base64')
  @Response<ApiErrorBody>(403, 'not an admin of the repository')
  @Response<ApiErrorBody>(404, 'not found')
  @Response<ApiErrorBody>(413, 'the image is too large')
  @Response<ApiErrorBody>(422, 'not a PNG, JPEG, GIF or WebP picture, or too many pixels')
  public async repoUpdateAvatar(@Path() owner: string, @Path() repo: string, @Body() body: UpdateRepoAvatarOption, @Request() req: ExRequest): Promise<void> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    assertRepoAdmin(rc);
    await setRepoAvatar(ctx, rc.repo, decodeAvatarImage(body.image));
    this.setStatus(204);
  }

  /** Delete a repository's avatar (repository admins). */
  @Delete('repos/{owner}/{repo}/avatar')
  @Tags('repository')
  @Security('signed', ['repository'])
  @SuccessResponse(204, 'empty')
  @Response<ApiErrorBody>(403, 'not an admin of the repository')
  @Response<ApiErrorBody>(404, 'not found')
  public async repoDeleteAvatar(@Path() owner: string, @Path() repo: string, @Request() req: ExRequest): Promise<void> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    assertRepoAdmin(rc);
    await deleteRepoAvatar(ctx, rc.repo);
    this.setStatus(204);
  }
}
