/**
 * Repository transfers: `/repos/{owner}/{repo}/transfer` (start; 202 when moved at once, 201 when
 * waiting for the recipient, as Gitea), `/transfer/accept` (202) and `/transfer/reject` (200).
 */
import type { Request as ExRequest } from 'express';
import { Body, Controller, Path, Post, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import type { Repository, TransferRepoOption } from '../api/repo';
import type { ApiErrorBody } from '../errors';
import { ctxOf, doerOf, viewerOf } from '../middleware/context';
import { toRepositoryView } from '../convert/repo';
import { settings } from '../config';
import { findRepoById } from '../models/repository.model';
import { findUserById } from '../models/user.model';
import { repoAssignment } from '../services/repo/context';
import { viewOf } from '../services/repo/repo.service';
import { startTransfer, acceptTransfer, rejectTransfer, transferAssignment } from '../services/repo/transfer.service';

@Route('repos/{owner}/{repo}/transfer')
@Tags('repository')
export class TransferController extends Controller {
  /** The repository (by id: it may have a new owner now) as the caller sees it. */
  private async shown(req: ExRequest, repoId: number): Promise<Repository> {
    const ctx = ctxOf(req);
    const repo = (await findRepoById(ctx, repoId))!;
    const owner = (await findUserById(ctx, repo.ownerId))!;
    const s = settings().server;
    return toRepositoryView(await viewOf(ctx, req.principal, repo, owner), viewerOf(req), s.rootUrl);
  }

  /** Transfer a repository to another user or organization (repository owners and site admins). */
  @Post('')
  @Security('signed', ['repository'])
  @SuccessResponse(202, 'Repository')
  @Response<Repository>(201, 'transfer waiting for the recipient')
  @Response<ApiErrorBody>(403, 'not the owner, blocked, or limit reached')
  @Response<ApiErrorBody>(404, 'not found')
  @Response<ApiErrorBody>(409, 'already being transferred')
  @Response<ApiErrorBody>(422, 'validation error')
  public async repoTransfer(@Path() owner: string, @Path() repo: string, @Body() body: TransferRepoOption, @Request() req: ExRequest): Promise<Repository> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    const pending = await startTransfer(ctx, req.principal, doerOf(req), rc, body);
    this.setStatus(pending ? 201 : 202);
    return this.shown(req, rc.repo.id);
  }

  /** Accept a pending transfer (the recipient, or who may create repositories in the receiving organization). */
  @Post('accept')
  @Security('signed', ['repository'])
  @SuccessResponse(202, 'Repository')
  @Response<ApiErrorBody>(403, 'not allowed')
  @Response<ApiErrorBody>(404, 'not found or no pending transfer')
  public async acceptRepoTransfer(@Path() owner: string, @Path() repo: string, @Request() req: ExRequest): Promise<Repository> {
    const ctx = ctxOf(req);
    const rc = await transferAssignment(ctx, req.principal, owner, repo);
    await acceptTransfer(ctx, doerOf(req), rc);
    this.setStatus(202);
    return this.shown(req, rc.repo.id);
  }

  /** Reject a pending transfer. */
  @Post('reject')
  @Security('signed', ['repository'])
  @SuccessResponse(200, 'Repository')
  @Response<ApiErrorBody>(403, 'not allowed')
  @Response<ApiErrorBody>(404, 'not found or no pending transfer')
  public async rejectRepoTransfer(@Path() owner: string, @Path() repo: string, @Request() req: ExRequest): Promise<Repository> {
    const ctx = ctxOf(req);
    const rc = await transferAssignment(ctx, req.principal, owner, repo);
    await rejectTransfer(ctx, doerOf(req), rc);
    return this.shown(req, rc.repo.id);
  }
}
