/** Stopwatches and tracked time: per issue, per repository, and the caller's own. */
import type { Request as ExRequest } from 'express';
import { Body, Controller, Delete, Get, Path, Post, Query, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import type { AddTimeOption, StopWatch, TrackedTime } from '../api/issue';
import type { ApiErrorBody } from '../errors';
import { ctxOf, doerOf, viewerOf } from '../middleware/context';
import { listOptions, setPaging } from '../middleware/paging';
import { secondsToHours, toTrackedTime, unixTime } from '../convert/issue';
import { unixSeconds } from '../convert/time';
import { repoAssignment } from '../services/repo/context';
import {
  addTime, cancelStopwatch, deleteTime, listTimes, myStopwatches, myTimes, resetTime, startStopwatch, stopStopwatch, userTimesInRepo,
} from '../services/issue/time.service';


@Route('')
export class IssueTimeController extends Controller {
  /** Start the caller's stopwatch on an issue. */
  @Post('repos/{owner}/{repo}/issues/{index}/stopwatch/start')
  @Tags('issue')
  @Security('signed', ['issue'])
  @SuccessResponse(201, 'started')
  @Response<ApiErrorBody>(403, 'not allowed')
  @Response<ApiErrorBody>(404, 'not found')
  @Response<ApiErrorBody>(409, 'already running')
  public async issueStartStopWatch(@Path() owner: string, @Path() repo: string, @Path() index: number, @Request() req: ExRequest): Promise<void> {
    const ctx = ctxOf(req);
    await startStopwatch(ctx, doerOf(req), await repoAssignment(ctx, req.principal, owner, repo), index);
    this.setStatus(201);
  }

  /** Stop the caller's stopwatch on an issue, keeping the time. */
  @Post('repos/{owner}/{repo}/issues/{index}/stopwatch/stop')
  @Tags('issue')
  @Security('signed', ['issue'])
  @SuccessResponse(201, 'stopped')
  @Response<ApiErrorBody>(403, 'not allowed')
  @Response<ApiErrorBody>(404, 'not found')
  @Response<ApiErrorBody>(409, 'not running')
  public async issueStopStopWatch(@Path() owner: string, @Path() repo: string, @Path() index: number, @Request() req: ExRequest): Promise<void> {
    const ctx = ctxOf(req);
    await stopStopwatch(ctx, doerOf(req), await repoAssignment(ctx, req.principal, owner, repo), index);
    this.setStatus(201);
  }

  /** Cancel the caller's stopwatch on an issue, dropping the time. */
  @Delete('repos/{owner}/{repo}/issues/{index}/stopwatch/delete')
  @Tags('issue')
  @Security('signed', ['issue'])
  @SuccessResponse(204, 'cancelled')
  @Response<ApiErrorBody>(403, 'not allowed')
  @Response<ApiErrorBody>(404, 'not found')
  @Response<ApiErrorBody>(409, 'not running')
  public async issueDeleteStopWatch(@Path() owner: string, @Path() repo: string, @Path() index: number, @Request() req: ExRequest): Promise<void> {
    const ctx = ctxOf(req);
    await cancelStopwatch(ctx, doerOf(req), await repoAssignment(ctx, req.principal, owner, repo), index);
    this.setStatus(204);
  }

  /** The tracked times of an issue (the caller's own unless they write the issues). */
  @Get('repos/{owner}/{repo}/issues/{index}/times')
  @Tags('issue')
  @Security('signed', ['issue'])
  @Response<ApiErrorBody>(403, 'not allowed')
  @Response<ApiErrorBody>(404, 'not found or time tracking disabled')
  public async issueTrackedTimes(
    @Path() owner: string, @Path() repo: string, @Path() index: number, @Request() req: ExRequest,
    @Query() user?: string, @Query() since?: Date, @Query() before?: Date, @Query() page?: number, @Query() limit?: number,
  ): Promise<TrackedTime[]> {
    const ctx = ctxOf(req);
    const opts = page ? listOptions(page, limit) : undefined;
    const { items, total } = await listTimes(ctx, doerOf(req), await repoAssignment(ctx, req.principal, owner, repo), index, { user, since: unixSeconds(since), before: unixSeconds(before) }, opts);
    if (opts) setPaging(req, opts, total);
    else req.res!.setHeader('X-Total-Count', String(total));
    return items.map((t) => toTrackedTime(t, viewerOf(req)));
  }

  /** Add time spent on an issue. */
  @Post('repos/{owner}/{repo}/issues/{index}/times')
  @Tags('issue')
  @Security('signed', ['issue'])
  @SuccessResponse(200, 'TrackedTime')
  @Response<ApiErrorBody>(400, 'time tracking disabled')
  @Response<ApiErrorBody>(403, 'not allowed')
  @Response<ApiErrorBody>(404, 'not found')
  @Response<ApiErrorBody>(422, 'no time')
  public async issueAddTime(@Path() owner: string, @Path() repo: string, @Path() index: number, @Body() body: AddTimeOption, @Request() req: ExRequest): Promise<TrackedTime> {
    const ctx = ctxOf(req);
    return toTrackedTime(await addTime(ctx, doerOf(req), await repoAssignment(ctx, req.principal, owner, repo), index, body), viewerOf(req));
  }

  /** Delete all of the caller's time on an issue. */
  @Delete('repos/{owner}/{repo}/issues/{index}/times')
  @Tags('issue')
  @Security('signed', ['issue'])
  @SuccessResponse(204, 'empty')
  @Response<ApiErrorBody>(400, 'time tracking disabled')
  @Response<ApiErrorBody>(403, 'not allowed')
  @Response<ApiErrorBody>(404, 'not found')
  public async issueResetTime(@Path() owner: string, @Path() repo: string, @Path() index: number, @Request() req: ExRequest): Promise<void> {
    const ctx = ctxOf(req);
    await resetTime(ctx, doerOf(req), await repoAssignment(ctx, req.principal, owner, repo), index);
    this.setStatus(204);
  }

  /** Delete one tracked time of an issue. */
  @Delete('repos/{owner}/{repo}/issues/{index}/times/{id}')
  @Tags('issue')
  @Security('signed', ['issue'])
  @SuccessResponse(204, 'empty')
  @Response<ApiErrorBody>(400, 'time tracking disabled')
  @Response<ApiErrorBody>(403, 'not allowed')
  @Response<ApiErrorBody>(404, 'not found')
  public async issueDeleteTime(@Path() owner: string, @Path() repo: string, @Path() index: number, @Path() id: number, @Request() req: ExRequest): Promise<void> {
    const ctx = ctxOf(req);
    await deleteTime(ctx, doerOf(req), await repoAssignment(ctx, req.principal, owner, repo), index, id);
    this.setStatus(204);
  }

  /** The tracked times of a repository (the caller's own unless they write the issues). */
  @Get('repos/{owner}/{repo}/times')
  @Tags('repository')
  @Security('signed', ['issue'])
  @Response<ApiErrorBody>(400, 'time tracking disabled')
  @Response<ApiErrorBody>(403, 'not allowed')
  public async repoTrackedTimes(
    @Path() owner: string, @Path() repo: string, @Request() req: ExRequest,
    @Query() user?: string, @Query() since?: Date, @Query() before?: Date, @Query() page?: number, @Query() limit?: number,
  ): Promise<TrackedTime[]> {
    const ctx = ctxOf(req);
    const opts = listOptions(page, limit);
    const { items, total } = await listTimes(ctx, doerOf(req), await repoAssignment(ctx, req.principal, owner, repo), undefined, { user, since: unixSeconds(since), before: unixSeconds(before) }, opts);
    setPaging(req, opts, total);
    return items.map((t) => toTrackedTime(t, viewerOf(req)));
  }

  /** A user's tracked times in a repository (the user, repository admins and site admins). */
  @Get('repos/{owner}/{repo}/times/{user}')
  @Tags('repository')
  @Security('signed', ['issue'])
  @Response<ApiErrorBody>(400, 'time tracking disabled')
  @Response<ApiErrorBody>(403, 'not allowed')
  @Response<ApiErrorBody>(404, 'not found')
  public async userTrackedTimes(@Path() owner: string, @Path() repo: string, @Path() user: string, @Request() req: ExRequest): Promise<TrackedTime[]> {
    const ctx = ctxOf(req);
    const items = await userTimesInRepo(ctx, doerOf(req), await repoAssignment(ctx, req.principal, owner, repo), user);
    return items.map((t) => toTrackedTime(t, viewerOf(req)));
  }

  /** The caller's running stopwatches. */
  @Get('user/stopwatches')
  @Tags('user')
  @Security('signed', ['user'])
  public async userGetStopWatches(@Request() req: ExRequest): Promise<StopWatch[]> {
    const items = await myStopwatches(ctxOf(req), doerOf(req));
    req.res!.setHeader('X-Total-Count', String(items.length));
    const now = Math.floor(Date.now() / 1000);
    return items.map((s) => {
      const seconds = Math.max(0, now - Number(s.row.createdUnix));
      return {
        created: unixTime(s.row.createdUnix), seconds, duration: secondsToHours(seconds), issue_index: Number(s.issue.index),
        issue_title: s.issue.name, repo_owner_name: s.owner, repo_name: s.repo,
      };
    });
  }

  /** The caller's tracked times in every repository. */
  @Get('user/times')
  @Tags('user')
  @Security('signed', ['user'])
  public async userCurrentTrackedTimes(
    @Request() req: ExRequest, @Query() page?: number, @Query() limit?: number, @Query() since?: Date, @Query() before?: Date,
  ): Promise<TrackedTime[]> {
    const opts = listOptions(page, limit);
    const { items, total } = await myTimes(ctxOf(req), doerOf(req), { since: unixSeconds(since), before: unixSeconds(before) }, opts);
    setPaging(req, opts, total);
    return items.map((t) => toTrackedTime(t, viewerOf(req)));
  }
}
