/** Pinning and locking issues, and a repository's pinned issues. */
import type { Request as ExRequest } from 'express';
import { Body, Controller, Delete, Get, Patch, Path, Post, Put, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import type { Issue, LockIssueOption, NewIssuePinsAllowed } from '../api/issue';
import type { ApiErrorBody } from '../errors';
import { ctxOf, doerOf, viewerOf } from '../middleware/context';
import { toIssueOf } from '../convert/issue';
import { repoAssignment } from '../services/repo/context';
import { listPinned, moveIssuePin, newPinAllowed, pinIssue, setLocked, unpinIssue } from '../services/issue/pin.service';

@Route('repos/{owner}/{repo}')
export class IssuePinController extends Controller {
  /** The repository's pinned issues, in pin order. */
  @Get('issues/pinned')
  @Tags('repository')
  @Security('public', ['issue'])
  @Response<ApiErrorBody>(404, 'not found')
  public async repoListPinnedIssues(@Path() owner: string, @Path() repo: string, @Request() req: ExRequest): Promise<Issue[]> {
    const ctx = ctxOf(req);
    const views = await listPinned(ctx, await repoAssignment(ctx, req.principal, owner, repo), false);
    return views.map((v) => toIssueOf(v, viewerOf(req)));
  }

  /** May another issue, and another pull request, be pinned ([repository.issue] MAX_PINNED)? */
  @Get('new_pin_allowed')
  @Tags('repository')
  @Security('public', ['issue'])
  @Response<ApiErrorBody>(404, 'not found')
  public async repoNewPinAllowed(@Path() owner: string, @Path() repo: string, @Request() req: ExRequest): Promise<NewIssuePinsAllowed> {
    const ctx = ctxOf(req);
    return newPinAllowed(ctx, await repoAssignment(ctx, req.principal, owner, repo));
  }

  /** Pin an issue (repository admins). */
  @Post('issues/{index}/pin')
  @Tags('issue')
  @Security('signed', ['issue'])
  @SuccessResponse(204, 'empty')
  @Response<ApiErrorBody>(403, 'forbidden')
  @Response<ApiErrorBody>(404, 'not found')
  @Response<ApiErrorBody>(422, 'already pinned, or the maximum is reached')
  public async pinIssue(@Path() owner: string, @Path() repo: string, @Path() index: number, @Request() req: ExRequest): Promise<void> {
    const ctx = ctxOf(req);
    await pinIssue(ctx, doerOf(req), await repoAssignment(ctx, req.principal, owner, repo), index);
    this.setStatus(204);
  }

  /** Unpin an issue (repository admins). */
  @Delete('issues/{index}/pin')
  @Tags('issue')
  @Security('signed', ['issue'])
  @SuccessResponse(204, 'empty')
  @Response<ApiErrorBody>(403, 'forbidden')
  @Response<ApiErrorBody>(404, 'not found')
  public async unpinIssue(@Path() owner: string, @Path() repo: string, @Path() index: number, @Request() req: ExRequest): Promise<void> {
    const ctx = ctxOf(req);
    await unpinIssue(ctx, doerOf(req), await repoAssignment(ctx, req.principal, owner, repo), index);
    this.setStatus(204);
  }

  /** Move a pinned issue to a position (1 = first). */
  @Patch('issues/{index}/pin/{position}')
  @Tags('issue')
  @Security('signed', ['issue'])
  @SuccessResponse(204, 'empty')
  @Response<ApiErrorBody>(403, 'forbidden')
  @Response<ApiErrorBody>(404, 'not found')
  @Response<ApiErrorBody>(422, 'not pinned, or a bad position')
  public async moveIssuePin(@Path() owner: string, @Path() repo: string, @Path() index: number, @Path() position: number, @Request() req: ExRequest): Promise<void> {
    const ctx = ctxOf(req);
    await moveIssuePin(ctx, await repoAssignment(ctx, req.principal, owner, repo), index, position);
    this.setStatus(204);
  }

  /** Lock an issue's conversation (repository admins). */
  @Put('issues/{index}/lock')
  @Tags('issue')
  @Security('signed', ['issue'])
  @SuccessResponse(204, 'empty')
  @Response<ApiErrorBody>(403, 'forbidden')
  @Response<ApiErrorBody>(404, 'not found')
  public async issueLockIssue(@Path() owner: string, @Path() repo: string, @Path() index: number, @Body() body: LockIssueOption, @Request() req: ExRequest): Promise<void> {
    const ctx = ctxOf(req);
    await setLocked(ctx, doerOf(req), await repoAssignment(ctx, req.principal, owner, repo), index, true, body.lock_reason ?? '');
    this.setStatus(204);
  }

  /** Unlock an issue's conversation (repository admins). */
  @Delete('issues/{index}/lock')
  @Tags('issue')
  @Security('signed', ['issue'])
  @SuccessResponse(204, 'empty')
  @Response<ApiErrorBody>(403, 'forbidden')
  @Response<ApiErrorBody>(404, 'not found')
  public async issueUnlockIssue(@Path() owner: string, @Path() repo: string, @Path() index: number, @Request() req: ExRequest): Promise<void> {
    const ctx = ctxOf(req);
    await setLocked(ctx, doerOf(req), await repoAssignment(ctx, req.principal, owner, repo), index, false);
    this.setStatus(204);
  }
}
