/**
 * The forge's periodic tasks for site administrators: `GET /admin/cron` lists them with what this
 * worker process has run, `POST /admin/cron/{task}` runs one now and answers when it is done.
 */
import type { Request as ExRequest } from 'express';
import { Controller, Get, Path, Post, Query, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import type { Cron } from '../api/misc';
import type { ApiErrorBody } from '../errors';
import { listOptions, setPaging } from '../middleware/paging';
import { isoTime, ZERO_TIME } from '../convert/time';
import { listCronTasks, runCronTask } from '../services/cron/cron.service';

@Route('admin/cron')
@Tags('admin')
export class AdminCronController extends Controller {
  /** List the periodic tasks. */
  @Get()
  @Security('admin', ['admin'])
  @SuccessResponse(200, 'CronList')
  @Response<ApiErrorBody>(403, 'forbidden')
  public async adminCronList(@Request() req: ExRequest, @Query() page?: number, @Query() limit?: number): Promise<Cron[]> {
    const opts = listOptions(page, limit);
    const all = listCronTasks();
    setPaging(req, opts, all.length);
    return all.slice(opts.offset, opts.offset + opts.limit).map((t) => ({
      name: t.name, schedule: t.schedule, next: isoTime(new Date(t.next)), prev: t.prev ? isoTime(new Date(t.prev)) : ZERO_TIME, exec_times: t.execTimes,
    }));
  }

  /** Run a periodic task now. */
  @Post('{task}')
  @Security('admin', ['admin'])
  @SuccessResponse(204, 'done')
  @Response<ApiErrorBody>(404, 'no such task')
  public async adminCronRun(@Path() task: string): Promise<void> {
    await runCronTask(task);
    this.setStatus(204);
  }
}
