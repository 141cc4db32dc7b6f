/** Activity feeds of users, organizations, teams and repositories. */
import type { Request as ExRequest } from 'express';
import { Controller, Get, Path, Query, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
import type { Activity } from '../api/activity';
import type { ApiErrorBody } from '../errors';
import { settings } from '../config';
import { ctxOf, viewerOf } from '../middleware/context';
import { listOptions, setPaging } from '../middleware/paging';
import { toActivity } from '../convert/activity';
import { orgFeed, repoFeed, teamFeed, userFeed, type FeedEntry } from '../services/activity/feed.service';
import { lookupOrg, lookupOwner } from '../services/user/lookup';
import { resolveTeam } from '../services/org/guard';
import { repoAssignment } from '../services/repo/context';

@Route('')
export class FeedController extends Controller {
  private out(req: ExRequest, opts: ReturnType<typeof listOptions>, got: { entries: FeedEntry[]; count: number }): Activity[] {
    setPaging(req, opts, got.count);
    return got.entries.map((e) => toActivity(e, viewerOf(req), settings().server.rootUrl));
  }

  /**
   * A user's feed: its own acts and the events of the repositories it watches (`only-performed-by`:
   * its own acts only). Others see no private repository's events.
   */
  @Get('users/{username}/activities/feeds')
  @Tags('user')
  @Security('public', ['user'])
  @Response<ApiErrorBody>(404, 'not found')
  public async userListActivityFeeds(
    @Path() username: string, @Request() req: ExRequest, @Query('only-performed-by') onlyPerformedBy?: boolean, @Query() date?: string,
    @Query() page?: number, @Query() limit?: number,
  ): Promise<Activity[]> {
    const ctx = ctxOf(req);
    const user = await lookupOwner(ctx, req.principal, username);
    const opts = listOptions(page, limit);
    return this.out(req, opts, await userFeed(ctx, req.principal, user, !!onlyPerformedBy, { date, ...opts }));
  }

  /** An organization's feed: the events of its repositories (private ones for its members). */
  @Get('orgs/{org}/activities/feeds')
  @Tags('organization')
  @Security('public', ['organization'])
  @Response<ApiErrorBody>(404, 'not found')
  public async orgListActivityFeeds(@Path() org: string, @Request() req: ExRequest, @Query() date?: string, @Query() page?: number, @Query() limit?: number): Promise<Activity[]> {
    const ctx = ctxOf(req);
    const o = await lookupOrg(ctx, req.principal, org);
    const opts = listOptions(page, limit);
    return this.out(req, opts, await orgFeed(ctx, req.principal, o, { date, ...opts }));
  }

  /** A team's feed: the events of its repositories (its members, the organization's owners). */
  @Get('teams/{id}/activities/feeds')
  @Tags('organization')
  @Security('signed', ['organization'])
  @Response<ApiErrorBody>(403, 'not a team member')
  @Response<ApiErrorBody>(404, 'not found')
  public async orgListTeamActivityFeeds(@Path() id: string, @Request() req: ExRequest, @Query() date?: string, @Query() page?: number, @Query() limit?: number): Promise<Activity[]> {
    const ctx = ctxOf(req);
    const t = await resolveTeam(ctx, req.principal, id);
    const opts = listOptions(page, limit);
    return this.out(req, opts, await teamFeed(ctx, req.principal, t.team, { date, ...opts }));
  }

  /** A repository's feed. */
  @Get('repos/{owner}/{repo}/activities/feeds')
  @Tags('repository')
  @Security('public', ['repository'])
  @Response<ApiErrorBody>(404, 'not found')
  public async repoListActivityFeeds(@Path() owner: string, @Path() repo: string, @Request() req: ExRequest, @Query() date?: string, @Query() page?: number, @Query() limit?: number): Promise<Activity[]> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    const opts = listOptions(page, limit);
    return this.out(req, opts, await repoFeed(ctx, req.principal, rc, { date, ...opts }));
  }
}
