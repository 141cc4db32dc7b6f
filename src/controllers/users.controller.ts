/**
 * Other users: `/users/search`, `/users/{username}` (users and organizations) and their follow lists.
 */
import type { Request as ExRequest } from 'express';
import { Controller, Get, Path, Query, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import type { User, UserHeatmapData, UserSearchResults } from '../api/user';
import type { ApiErrorBody } from '../errors';
import { NotFound } from '../errors';
import { settings } from '../config';
import { ctxOf, viewerOf } from '../middleware/context';
import { listOptions, setPaging } from '../middleware/paging';
import { toUser } from '../convert/user';
import { lookupOwner } from '../services/user/lookup';
import { searchUsers, assertExploreAllowed } from '../services/user/directory.service';
import { follows, followersOf, followingOf } from '../services/user/follow.service';
import { userHeatmap } from '../services/activity/feed.service';

@Route('users')
@Tags('user')
export class UsersController extends Controller {
  /** Search for users the caller may see; answers `{ok, data}` with X-Total-Count and Link. */
  @Get('search')
  @Security('public', ['user'])
  @Response<ApiErrorBody>(401, 'sign-in required')
  public async userSearch(
    @Request() req: ExRequest, @Query() q?: string, @Query() uid?: number, @Query() page?: number, @Query() limit?: number,
  ): Promise<UserSearchResults> {
    const opts = listOptions(page, limit);
    const { rows, count } = await searchUsers(ctxOf(req), req.principal, { keyword: q ?? '', uid: uid || undefined, limit: opts.limit, offset: opts.offset });
    setPaging(req, opts, count);
    return { ok: true, data: rows.map((u) => toUser(u, viewerOf(req), settings().server.rootUrl)) };
  }

  /**
   * Get a user's heatmap: contributions per 15-minute bucket over the last year, in repositories
   * the caller reads (empty when the user keeps its activity private).
   */
  @Get('{username}/heatmap')
  @Security('public', ['user'])
  @Response<ApiErrorBody>(404, 'not found')
  public async userGetHeatmapData(@Path() username: string, @Request() req: ExRequest): Promise<UserHeatmapData[]> {
    const ctx = ctxOf(req);
    return userHeatmap(ctx, req.principal, await lookupOwner(ctx, req.principal, username));
  }

  /** Get a user or organization; hidden ones answer 404. */
  @Get('{username}')
  @Security('public', ['user'])
  @Response<ApiErrorBody>(404, 'not found')
  public async userGet(@Path() username: string, @Request() req: ExRequest): Promise<User> {
    assertExploreAllowed(req.principal);
    const u = await lookupOwner(ctxOf(req), req.principal, username);
    return toUser(u, viewerOf(req), settings().server.rootUrl);
  }

  /** List a user's followers. */
  @Get('{username}/followers')
  @Security('signed', ['user'])
  @Response<ApiErrorBody>(404, 'not found')
  public async userListFollowers(@Path() username: string, @Request() req: ExRequest, @Query() page?: number, @Query() limit?: number): Promise<User[]> {
    const ctx = ctxOf(req);
    const u = await lookupOwner(ctx, req.principal, username);
    const opts = listOptions(page, limit);
    const { rows, count } = await followersOf(ctx, req.principal, u, opts);
    setPaging(req, opts, count);
    return rows.map((x) => toUser(x, viewerOf(req), settings().server.rootUrl));
  }

  /** List the users and organizations a user follows. */
  @Get('{username}/following')
  @Security('signed', ['user'])
  @Response<ApiErrorBody>(404, 'not found')
  public async userListFollowing(@Path() username: string, @Request() req: ExRequest, @Query() page?: number, @Query() limit?: number): Promise<User[]> {
    const ctx = ctxOf(req);
    const u = await lookupOwner(ctx, req.principal, username);
    const opts = listOptions(page, limit);
    const { rows, count } = await followingOf(ctx, req.principal, u, opts);
    setPaging(req, opts, count);
    return rows.map((x) => toUser(x, viewerOf(req), settings().server.rootUrl));
  }

  /** 204 if `username` follows `target`, else 404 (also for an unknown target). */
  @Get('{username}/following/{target}')
  @Security('signed', ['user'])
  @SuccessResponse(204, 'following')
  @Response<ApiErrorBody>(404, 'not following')
  public async userCheckFollowing(@Path() username: string, @Path() target: string, @Request() req: ExRequest): Promise<void> {
    const ctx = ctxOf(req);
    const u = await lookupOwner(ctx, req.principal, username);
    const t = await lookupOwner(ctx, req.principal, target);
    if (!(await follows(ctx, u.id, t.id))) throw new NotFound();
    this.setStatus(204);
  }
}
