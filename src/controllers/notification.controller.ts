/** The caller's notification threads. */
import type { Request as ExRequest } from 'express';
import { Controller, Get, Patch, Path, Put, Query, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import type { NotificationCount, NotificationThread } from '../api/notification';
import type { ApiErrorBody } from '../errors';
import { settings } from '../config';
import { ctxOf, doerOf, viewerOf } from '../middleware/context';
import { listOptions, setPaging } from '../middleware/paging';
import { sendResetContent } from '../middleware/send';
import { toNotificationThread } from '../convert/notification';
import { countUnread, getThread, listThreads, readThread, readThreads, type ThreadEntry } from '../services/notification/notification.service';
import { repoAssignment } from '../services/repo/context';

@Route('')
@Tags('notification')
export class NotificationController extends Controller {
  private out(req: ExRequest, entries: ThreadEntry[]): NotificationThread[] {
    return entries.map((e) => toNotificationThread(e, viewerOf(req), settings().server.rootUrl));
  }

  /** Send a 205 with its body (see sendResetContent) and hand the body back for the route's signature. */
  private reset<T>(req: ExRequest, body: T): T {
    sendResetContent(req.res!, body);
    return body;
  }

  private async list(req: ExRequest, repoId: number | undefined, q: Parameters<typeof listThreads>[4], page?: number, limit?: number): Promise<NotificationThread[]> {
    const opts = listOptions(page, limit);
    const got = await listThreads(ctxOf(req), req.principal, doerOf(req), repoId, q, opts);
    setPaging(req, opts, got.count);
    return this.out(req, got.entries);
  }

  /** The caller's threads: unread and pinned ones unless `all` or `status-types` say otherwise, the most recently updated first. */
  @Get('notifications')
  @Security('signed', ['notification'])
  @Response<ApiErrorBody>(422, 'a time that is not RFC 3339')
  public async notifyGetList(
    @Request() req: ExRequest, @Query() all?: boolean, @Query('status-types') statusTypes?: string[], @Query('subject-type') subjectTypes?: string[],
    @Query() since?: string, @Query() before?: string, @Query() page?: number, @Query() limit?: number,
  ): Promise<NotificationThread[]> {
    return this.list(req, undefined, { all, statusTypes, subjectTypes, since, before }, page, limit);
  }

  /** Mark the caller's threads (unread ones unless `all` or `status-types` say otherwise) read, unread or pinned; the changed threads. */
  @Put('notifications')
  @Security('signed', ['notification'])
  @SuccessResponse(205, 'the changed threads')
  @Response<ApiErrorBody>(400, 'last_read_at is not RFC 3339')
  public async notifyReadList(
    @Request() req: ExRequest, @Query('last_read_at') lastReadAt?: string, @Query() all?: string, @Query('status-types') statusTypes?: string[],
    @Query('to-status') toStatus?: string,
  ): Promise<NotificationThread[]> {
    const entries = await readThreads(ctxOf(req), req.principal, doerOf(req), undefined, { lastReadAt, all: parseBool(all), statusTypes, toStatus });
    return this.reset(req, this.out(req, entries));
  }

  /** How many unread threads the caller has. */
  @Get('notifications/new')
  @Security('signed', ['notification'])
  public async notifyNewAvailable(@Request() req: ExRequest): Promise<NotificationCount> {
    return { new: await countUnread(ctxOf(req), req.principal, doerOf(req)) };
  }

  /** One thread of the caller. */
  @Get('notifications/threads/{id}')
  @Security('signed', ['notification'])
  @Response<ApiErrorBody>(403, 'another user\'s thread')
  @Response<ApiErrorBody>(404, 'not found')
  public async notifyGetThread(@Path() id: string, @Request() req: ExRequest): Promise<NotificationThread> {
    return this.out(req, [await getThread(ctxOf(req), req.principal, doerOf(req), id)])[0];
  }

  /** Mark one thread of the caller read (or `to-status`). */
  @Patch('notifications/threads/{id}')
  @Security('signed', ['notification'])
  @SuccessResponse(205, 'the changed thread')
  @Response<ApiErrorBody>(403, 'another user\'s thread')
  @Response<ApiErrorBody>(404, 'not found')
  public async notifyReadThread(@Path() id: string, @Request() req: ExRequest, @Query('to-status') toStatus?: string): Promise<NotificationThread> {
    const entry = await readThread(ctxOf(req), req.principal, doerOf(req), id, toStatus);
    return this.reset(req, this.out(req, [entry])[0]);
  }

  /** The caller's threads of one repository. */
  @Get('repos/{owner}/{repo}/notifications')
  @Security('signed', ['notification'])
  @Response<ApiErrorBody>(404, 'not found')
  @Response<ApiErrorBody>(422, 'a time that is not RFC 3339')
  public async notifyGetRepoList(
    @Path() owner: string, @Path() repo: string, @Request() req: ExRequest, @Query() all?: boolean, @Query('status-types') statusTypes?: string[],
    @Query('subject-type') subjectTypes?: string[], @Query() since?: string, @Query() before?: string, @Query() page?: number, @Query() limit?: number,
  ): Promise<NotificationThread[]> {
    const rc = await repoAssignment(ctxOf(req), req.principal, owner, repo);
    return this.list(req, rc.repo.id, { all, statusTypes, subjectTypes, since, before }, page, limit);
  }

  /** Mark the caller's threads of one repository. */
  @Put('repos/{owner}/{repo}/notifications')
  @Security('signed', ['notification'])
  @SuccessResponse(205, 'the changed threads')
  @Response<ApiErrorBody>(400, 'last_read_at is not RFC 3339')
  @Response<ApiErrorBody>(404, 'not found')
  public async notifyReadRepoList(
    @Path() owner: string, @Path() repo: string, @Request() req: ExRequest, @Query() all?: string, @Query('status-types') statusTypes?: string[],
    @Query('to-status') toStatus?: string, @Query('last_read_at') lastReadAt?: string,
  ): Promise<NotificationThread[]> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    const entries = await readThreads(ctx, req.principal, doerOf(req), rc.repo.id, { lastReadAt, all: parseBool(all), statusTypes, toStatus });
    return this.reset(req, this.out(req, entries));
  }
}

/** Go's ParseBool (and a form's `on`); anything else is false. */
function parseBool(v: string | undefined): boolean {
  return ['1', 't', 'true', 'on'].includes((v ?? '').trim().toLowerCase());
}
