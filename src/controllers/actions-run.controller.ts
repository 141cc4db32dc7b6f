/**
 * A repository's workflow runs, their jobs, job logs and tasks, for readers of its Actions unit;
 * cancel, rerun, approve and delete for its writers (GitHub's paths for cancel, rerun and approve).
 */
import type { Request as ExRequest } from 'express';
import type { Readable } from 'node:stream';
import { Controller, Delete, Get, Path, Post, Query, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import type { ActionTaskResponse, ActionWorkflowJob, ActionWorkflowJobsResponse, ActionWorkflowRun, ActionWorkflowRunsResponse } from '../api/actions';
import type { ApiErrorBody } from '../errors';
import { settings } from '../config';
import { ctxOf } from '../middleware/context';
import { listOptions } from '../middleware/paging';
import { toActionTask, toWorkflowJob, toWorkflowRun, type RunPlace } from '../convert/actions';
import { repoAssignment, type RepoContext } from '../services/repo/context';
import { repoUrls } from '../services/content/view';
import * as svc from '../services/actions/view.service';

const place = (rc: RepoContext): RunPlace => repoUrls(settings().server.rootUrl, rc.owner.name, rc.repo.name);

@Route('repos/{owner}/{repo}/actions')
@Tags('repository')
export class RepoActionsRunsController extends Controller {
  /** The repository's runs, newest first, filtered by event, branch, status, actor and commit. */
  @Get('runs')
  @Security('public', ['repository'])
  @Response<ApiErrorBody>(400, 'an unknown status')
  @Response<ApiErrorBody>(404, 'not found')
  public async getWorkflowRuns(
    @Path() owner: string, @Path() repo: string, @Request() req: ExRequest, @Query() event?: string, @Query() branch?: string, @Query() status?: string[],
    @Query() actor?: string, @Query() head_sha?: string, @Query() page?: number, @Query() limit?: number,
  ): Promise<ActionWorkflowRunsResponse> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    svc.assertActionsReadable(rc);
    const { rows, count } = await svc.listRunsWhere(ctx, { repoId: rc.repo.id }, { event, branch, status: status ?? [], actor, headSha: head_sha }, listOptions(page, limit));
    return { workflow_runs: rows.map((r) => toWorkflowRun(r, place(rc))), total_count: count };
  }

  /** A run by id. */
  @Get('runs/{run}')
  @Security('public', ['repository'])
  @Response<ApiErrorBody>(404, 'not found')
  public async getWorkflowRun(@Path() owner: string, @Path() repo: string, @Path() run: number, @Request() req: ExRequest): Promise<ActionWorkflowRun> {
    const rc = await repoAssignment(ctxOf(req), req.principal, owner, repo);
    return toWorkflowRun(await svc.repoRun(ctxOf(req), rc, run), place(rc));
  }

  /** Delete a finished run with its jobs and logs. */
  @Delete('runs/{run}')
  @Security('signed', ['repository'])
  @SuccessResponse(204, 'deleted')
  @Response<ApiErrorBody>(400, 'the run is not done')
  @Response<ApiErrorBody>(404, 'not found')
  public async deleteActionRun(@Path() owner: string, @Path() repo: string, @Path() run: number, @Request() req: ExRequest): Promise<void> {
    await svc.deleteRepoRun(ctxOf(req), await repoAssignment(ctxOf(req), req.principal, owner, repo), run);
    this.setStatus(204);
  }

  /** Cancel an unfinished run: its jobs not yet started at once, running ones at their next report. */
  @Post('runs/{run}/cancel')
  @Security('signed', ['repository'])
  @SuccessResponse(204, 'cancelled')
  @Response<ApiErrorBody>(400, 'the run is done')
  @Response<ApiErrorBody>(404, 'not found')
  public async cancelWorkflowRun(@Path() owner: string, @Path() repo: string, @Path() run: number, @Request() req: ExRequest): Promise<void> {
    await svc.cancelRepoRun(ctxOf(req), await repoAssignment(ctxOf(req), req.principal, owner, repo), run);
    this.setStatus(204);
  }

  /** Approve a run of a fork's pull request, which waits for a writer's approval the first time its author's runs come. */
  @Post('runs/{run}/approve')
  @Security('signed', ['repository'])
  @SuccessResponse(204, 'approved')
  @Response<ApiErrorBody>(400, 'the run needs no approval')
  @Response<ApiErrorBody>(404, 'not found')
  public async approveWorkflowRun(@Path() owner: string, @Path() repo: string, @Path() run: number, @Request() req: ExRequest): Promise<void> {
    await svc.approveRepoRun(ctxOf(req), await repoAssignment(ctxOf(req), req.principal, owner, repo), run, req.principal.user!.id);
    this.setStatus(204);
  }

  /** Run every job of a finished run again. */
  @Post('runs/{run}/rerun')
  @Security('signed', ['repository'])
  @SuccessResponse(204, 'queued')
  @Response<ApiErrorBody>(400, 'the run is not done')
  @Response<ApiErrorBody>(404, 'not found')
  public async rerunWorkflowRun(@Path() owner: string, @Path() repo: string, @Path() run: number, @Request() req: ExRequest): Promise<void> {
    await svc.rerunRepoRun(ctxOf(req), await repoAssignment(ctxOf(req), req.principal, owner, repo), run);
    this.setStatus(204);
  }

  /** The jobs of a run, filtered by status. */
  @Get('runs/{run}/jobs')
  @Security('public', ['repository'])
  @Response<ApiErrorBody>(404, 'not found')
  public async listWorkflowRunJobs(
    @Path() owner: string, @Path() repo: string, @Path() run: number, @Request() req: ExRequest, @Query() status?: string[], @Query() page?: number, @Query() limit?: number,
  ): Promise<ActionWorkflowJobsResponse> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    const r = await svc.repoRun(ctx, rc, run);
    const { views, count } = await svc.listJobViews(ctx, { runId: r.id }, status ?? [], listOptions(page, limit));
    return { jobs: views.map((v) => toWorkflowJob(v.job, v.run, v.index, place(rc), v.task)), total_count: count };
  }

  /** The repository's jobs, newest first, filtered by status. */
  @Get('jobs')
  @Security('public', ['repository'])
  @Response<ApiErrorBody>(404, 'not found')
  public async listWorkflowJobs(
    @Path() owner: string, @Path() repo: string, @Request() req: ExRequest, @Query() status?: string[], @Query() page?: number, @Query() limit?: number,
  ): Promise<ActionWorkflowJobsResponse> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    svc.assertActionsReadable(rc);
    const { views, count } = await svc.listJobViews(ctx, { repoId: rc.repo.id }, status ?? [], listOptions(page, limit));
    return { jobs: views.map((v) => toWorkflowJob(v.job, v.run, v.index, place(rc), v.task)), total_count: count };
  }

  /** A job by id. */
  @Get('jobs/{job_id}')
  @Security('public', ['repository'])
  @Response<ApiErrorBody>(404, 'not found')
  public async getWorkflowJob(@Path() owner: string, @Path() repo: string, @Path() job_id: number, @Request() req: ExRequest): Promise<ActionWorkflowJob> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    const [v] = await svc.jobViews(ctx, [await svc.repoJob(ctx, rc, job_id)]);
    return toWorkflowJob(v.job, v.run, v.index, place(rc), v.task);
  }

  /** Run one job of a finished run again, with the jobs that need it. */
  @Post('jobs/{job_id}/rerun')
  @Security('signed', ['repository'])
  @SuccessResponse(204, 'queued')
  @Response<ApiErrorBody>(400, 'the job is not done')
  @Response<ApiErrorBody>(404, 'not found')
  public async rerunWorkflowJob(@Path() owner: string, @Path() repo: string, @Path() job_id: number, @Request() req: ExRequest): Promise<void> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    const job = await svc.repoJob(ctx, rc, job_id, true);
    await svc.rerunRepoRun(ctx, rc, job.runId, job.id);
    this.setStatus(204);
  }

  /** The log of a job's latest attempt, as plain text. */
  @Get('jobs/{job_id}/logs')
  @Security('signed', ['repository'])
  @Response<ApiErrorBody>(404, 'not found, not started, or cleaned up')
  public async downloadActionsRunJobLogs(@Path() owner: string, @Path() repo: string, @Path() job_id: number, @Request() req: ExRequest): Promise<Readable> {
    const ctx = ctxOf(req);
    const log = await svc.jobLog(ctx, await repoAssignment(ctx, req.principal, owner, repo), job_id);
    this.setHeader('Content-Type', 'text/plain; charset=utf-8');
    this.setHeader('X-Content-Type-Options', 'nosniff');
    this.setHeader('Content-Length', String(log.size));
    this.setHeader('Content-Disposition', `attachment; filename="${log.filename.replace(/["\\\r\n]/g, '_')}"; filename*=UTF-8''${encodeURIComponent(log.filename)}`);
    return log.stream;
  }

  /** The repository's tasks (attempts of jobs), newest first. */
  @Get('tasks')
  @Security('public', ['repository'])
  @Response<ApiErrorBody>(404, 'not found')
  public async ListActionTasks(@Path() owner: string, @Path() repo: string, @Request() req: ExRequest, @Query() page?: number, @Query() limit?: number): Promise<ActionTaskResponse> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    const { items, count } = await svc.listRepoTasks(ctx, rc, listOptions(page, limit));
    return { workflow_runs: items.map((i) => toActionTask(i.task, i.job, i.run, place(rc))), total_count: count };
  }
}
