/**
 * Stars: the caller's starred repositories (`/user/starred`), another user's
 * (`/users/{username}/starred`), and a repository's stargazers.
 */
import type { Request as ExRequest } from 'express';
import { Controller, Delete, Get, Path, Put, Query, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import type { Repository } from '../api/repo';
import type { User } from '../api/user';
import type { ApiErrorBody } from '../errors';
import { NotFound } from '../errors';
import { ctxOf, doerOf, viewerOf } from '../middleware/context';
import { listOptions, setPaging } from '../middleware/paging';
import { toRepository } from '../convert/repo';
import { toUser } from '../convert/user';
import { settings } from '../config';
import type { UserModel } from '../models/user.model';
import { lookupUser } from '../services/user/lookup';
import { repoAssignment } from '../services/repo/context';
import { isStarred, starRepo, unstarRepo, starredBy, stargazersOf } from '../services/repo/star.service';

@Route('')
@Tags('user')
export class StarController extends Controller {
  private async starred(req: ExRequest, user: UserModel, page?: number, limit?: number): Promise<Repository[]> {
    const opts = listOptions(page, limit);
    const { rows, count } = await starredBy(ctxOf(req), req.principal, user, opts.limit, opts.offset);
    setPaging(req, opts, count);
    return rows.map((r) => toRepository(r.repo, r.owner, viewerOf(req), settings().server.rootUrl));
  }

  /** The repositories the caller starred. */
  @Get('user/starred')
  @Security('signed', ['user', 'repository'])
  public async userCurrentListStarred(@Request() req: ExRequest, @Query() page?: number, @Query() limit?: number): Promise<Repository[]> {
    return this.starred(req, doerOf(req), page, limit);
  }

  /** Whether the caller starred a repository: 204 yes, 404 no. */
  @Get('user/starred/{owner}/{repo}')
  @Security('signed', ['user', 'repository'])
  @SuccessResponse(204, 'starred')
  @Response<ApiErrorBody>(404, 'not starred')
  public async userCurrentCheckStarring(@Path() owner: string, @Path() repo: string, @Request() req: ExRequest): Promise<void> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    if (!(await isStarred(ctx, doerOf(req), rc))) throw new NotFound();
    this.setStatus(204);
  }

  /** Star a repository. */
  @Put('user/starred/{owner}/{repo}')
  @Security('signed', ['user', 'repository'])
  @SuccessResponse(204, 'empty')
  @Response<ApiErrorBody>(403, 'user is blocked')
  @Response<ApiErrorBody>(404, 'not found')
  public async userCurrentPutStar(@Path() owner: string, @Path() repo: string, @Request() req: ExRequest): Promise<void> {
    const ctx = ctxOf(req);
    await starRepo(ctx, doerOf(req), await repoAssignment(ctx, req.principal, owner, repo));
    this.setStatus(204);
  }

  /** Unstar a repository. */
  @Delete('user/starred/{owner}/{repo}')
  @Security('signed', ['user', 'repository'])
  @SuccessResponse(204, 'empty')
  @Response<ApiErrorBody>(404, 'not found')
  public async userCurrentDeleteStar(@Path() owner: string, @Path() repo: string, @Request() req: ExRequest): Promise<void> {
    const ctx = ctxOf(req);
    await unstarRepo(ctx, doerOf(req), await repoAssignment(ctx, req.principal, owner, repo));
    this.setStatus(204);
  }

  /** The repositories a user starred (those the caller may see). */
  @Get('users/{username}/starred')
  @Security('public', ['user'])
  @Response<ApiErrorBody>(404, 'not found')
  public async userListStarred(@Path() username: string, @Request() req: ExRequest, @Query() page?: number, @Query() limit?: number): Promise<Repository[]> {
    return this.starred(req, await lookupUser(ctxOf(req), req.principal, username), page, limit);
  }

  /** The users who starred a repository. */
  @Get('repos/{owner}/{repo}/stargazers')
  @Security('public', ['repository'])
  @Tags('repository')
  @Response<ApiErrorBody>(404, 'not found')
  public async repoListStargazers(@Path() owner: string, @Path() repo: string, @Request() req: ExRequest, @Query() page?: number, @Query() limit?: number): Promise<User[]> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    const opts = listOptions(page, limit);
    const { rows, count } = await stargazersOf(ctx, rc, opts.limit, opts.offset);
    setPaging(req, opts, count);
    return rows.map((u) => toUser(u, viewerOf(req), settings().server.rootUrl));
  }
}
