/** Who follows an issue, and following or leaving it. */
import type { Request as ExRequest } from 'express';
import { Controller, Delete, Get, Path, Put, Query, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import type { User } from '../api/user';
import type { WatchInfo } from '../api/social';
import type { ApiErrorBody } from '../errors';
import { settings } from '../config';
import { ctxOf, doerOf, viewerOf } from '../middleware/context';
import { listOptions, setPaging } from '../middleware/paging';
import { toUser } from '../convert/user';
import { unixTime } from '../convert/issue';
import { repoAssignment } from '../services/repo/context';
import { checkSubscription, listSubscribers, setSubscription } from '../services/issue/subscription.service';

@Route('repos/{owner}/{repo}/issues/{index}/subscriptions')
@Tags('issue')
export class IssueSubscriptionController extends Controller {
  /** The users subscribed to an issue (all of them without `page`). */
  @Get()
  @Security('public', ['issue'])
  @Response<ApiErrorBody>(404, 'not found')
  public async issueSubscriptions(
    @Path() owner: string, @Path() repo: string, @Path() index: number, @Request() req: ExRequest, @Query() page?: number, @Query() limit?: number,
  ): Promise<User[]> {
    const ctx = ctxOf(req);
    const opts = page ? listOptions(page, limit) : undefined;
    const { users, total } = await listSubscribers(ctx, await repoAssignment(ctx, req.principal, owner, repo), index, opts);
    if (opts) setPaging(req, opts, total);
    else req.res!.setHeader('X-Total-Count', String(total));
    return users.map((u) => toUser(u, viewerOf(req), settings().server.rootUrl));
  }

  /** Does the caller follow the issue? */
  @Get('check')
  @Security('signed', ['issue'])
  @Response<ApiErrorBody>(404, 'not found')
  public async issueCheckSubscription(@Path() owner: string, @Path() repo: string, @Path() index: number, @Request() req: ExRequest): Promise<WatchInfo> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    const { issue, subscribed } = await checkSubscription(ctx, doerOf(req), rc, index);
    const repoUrl = `${settings().server.rootUrl}api/v1/repos/${encodeURIComponent(rc.owner.name)}/${encodeURIComponent(rc.repo.name)}`;
    return {
      subscribed, ignored: !subscribed, reason: null, created_at: unixTime(issue.createdUnix),
      url: `${repoUrl}/issues/${issue.index}/subscriptions`, repository_url: repoUrl,
    };
  }

  /** Subscribe a user (the caller, or anyone for site admins): 201 when it changed, 200 when already so. */
  @Put('{user}')
  @Security('signed', ['issue'])
  @SuccessResponse(201, 'changed')
  @Response<ApiErrorBody>(403, 'not permitted')
  @Response<ApiErrorBody>(404, 'not found')
  public async issueAddSubscription(@Path() owner: string, @Path() repo: string, @Path() index: number, @Path() user: string, @Request() req: ExRequest): Promise<void> {
    const ctx = ctxOf(req);
    const changed = await setSubscription(ctx, doerOf(req), await repoAssignment(ctx, req.principal, owner, repo), index, user, true);
    this.setStatus(changed ? 201 : 200);
  }

  /** Unsubscribe a user: 201 when it changed, 200 when already so. */
  @Delete('{user}')
  @Security('signed', ['issue'])
  @SuccessResponse(201, 'changed')
  @Response<ApiErrorBody>(403, 'not permitted')
  @Response<ApiErrorBody>(404, 'not found')
  public async issueDeleteSubscription(@Path() owner: string, @Path() repo: string, @Path() index: number, @Path() user: string, @Request() req: ExRequest): Promise<void> {
    const ctx = ctxOf(req);
    const changed = await setSubscription(ctx, doerOf(req), await repoAssignment(ctx, req.principal, owner, repo), index, user, false);
    this.setStatus(changed ? 201 : 200);
  }
}
