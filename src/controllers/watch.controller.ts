/**
 * Watching: a repository's subscribers, the caller's subscription to it, and the repositories a
 * user watches.
 */
import type { Request as ExRequest } from 'express';
import { Controller, Delete, Get, Path, Put, Query, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import type { Repository } from '../api/repo';
import type { User } from '../api/user';
import type { WatchInfo } from '../api/social';
import type { ApiErrorBody } from '../errors';
import { NotFound } from '../errors';
import { ctxOf, doerOf, viewerOf } from '../middleware/context';
import { listOptions, setPaging } from '../middleware/paging';
import { toRepository } from '../convert/repo';
import { toUser } from '../convert/user';
import { toWatchInfo } from '../convert/social';
import { settings } from '../config';
import type { UserModel } from '../models/user.model';
import { lookupUser } from '../services/user/lookup';
import { repoAssignment } from '../services/repo/context';
import { isWatching, watchRepo, unwatchRepo, watchedBy, watchersOf } from '../services/repo/watch.service';

@Route('')
@Tags('repository')
export class WatchController extends Controller {
  private async watched(req: ExRequest, user: UserModel, page?: number, limit?: number): Promise<Repository[]> {
    const opts = listOptions(page, limit);
    const { rows, count } = await watchedBy(ctxOf(req), req.principal, user, opts.limit, opts.offset);
    setPaging(req, opts, count);
    return rows.map((r) => toRepository(r.repo, r.owner, viewerOf(req), settings().server.rootUrl));
  }

  /** The users watching a repository. */
  @Get('repos/{owner}/{repo}/subscribers')
  @Security('public', ['repository'])
  @Response<ApiErrorBody>(404, 'not found')
  public async repoListSubscribers(@Path() owner: string, @Path() repo: string, @Request() req: ExRequest, @Query() page?: number, @Query() limit?: number): Promise<User[]> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    const opts = listOptions(page, limit);
    const { rows, count } = await watchersOf(ctx, rc, opts.limit, opts.offset);
    setPaging(req, opts, count);
    return rows.map((u) => toUser(u, viewerOf(req), settings().server.rootUrl));
  }

  /** The caller's subscription to a repository; 404 when not watching. */
  @Get('repos/{owner}/{repo}/subscription')
  @Security('signed', ['repository'])
  @Response<ApiErrorBody>(404, 'not watching')
  public async userCurrentCheckSubscription(@Path() owner: string, @Path() repo: string, @Request() req: ExRequest): Promise<WatchInfo> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    if (!(await isWatching(ctx, doerOf(req), rc))) throw new NotFound();
    return toWatchInfo(rc.repo, rc.owner.name, settings().server.rootUrl);
  }

  /** Watch a repository. */
  @Put('repos/{owner}/{repo}/subscription')
  @Security('signed', ['repository'])
  @Response<ApiErrorBody>(403, 'user is blocked')
  @Response<ApiErrorBody>(404, 'not found')
  public async userCurrentPutSubscription(@Path() owner: string, @Path() repo: string, @Request() req: ExRequest): Promise<WatchInfo> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    await watchRepo(ctx, doerOf(req), rc);
    return toWatchInfo(rc.repo, rc.owner.name, settings().server.rootUrl);
  }

  /** Stop watching a repository. */
  @Delete('repos/{owner}/{repo}/subscription')
  @Security('signed', ['repository'])
  @SuccessResponse(204, 'empty')
  @Response<ApiErrorBody>(404, 'not found')
  public async userCurrentDeleteSubscription(@Path() owner: string, @Path() repo: string, @Request() req: ExRequest): Promise<void> {
    const ctx = ctxOf(req);
    await unwatchRepo(ctx, doerOf(req), await repoAssignment(ctx, req.principal, owner, repo));
    this.setStatus(204);
  }

  /** The repositories the caller watches. */
  @Get('user/subscriptions')
  @Security('signed', ['user'])
  @Tags('user')
  public async userCurrentListSubscriptions(@Request() req: ExRequest, @Query() page?: number, @Query() limit?: number): Promise<Repository[]> {
    return this.watched(req, doerOf(req), page, limit);
  }

  /** The repositories a user watches (those the caller may see). */
  @Get('users/{username}/subscriptions')
  @Security('public', ['user'])
  @Tags('user')
  @Response<ApiErrorBody>(404, 'not found')
  public async userListSubscriptions(@Path() username: string, @Request() req: ExRequest, @Query() page?: number, @Query() limit?: number): Promise<Repository[]> {
    return this.watched(req, await lookupUser(ctxOf(req), req.principal, username), page, limit);
  }
}
