/**
 * Runs and jobs across repositories: every one for site administrators (`/admin/actions`), those
 * of the signed-in user's repositories (`/user/actions`) and of an organization's (its owners),
 * in the shapes of the repository listings.
 */
import type { Request as ExRequest } from 'express';
import { Controller, Get, Path, Query, Request, Response, Route, Security, Tags } from '@tsoa/runtime';
import type { ActionWorkflowJobsResponse, ActionWorkflowRunsResponse } from '../api/actions';
import type { ApiErrorBody } from '../errors';
import { settings } from '../config';
import { ctxOf, doerOf } from '../middleware/context';
import { listOptions } from '../middleware/paging';
import { toWorkflowJob, toWorkflowRun } from '../convert/actions';
import { repoUrls } from '../services/content/view';
import { orgActionsScope } from '../services/actions/settings.service';
import * as svc from '../services/actions/view.service';


/** The owner filter of a scope: none for the instance. */
type Owner = { ownerId?: number };

async function runs(req: ExRequest, scope: Owner, q: svc.RunQuery, page?: number, limit?: number): Promise<ActionWorkflowRunsResponse> {
  const ctx = ctxOf(req);
  const { rows, count } = await svc.listRunsWhere(ctx, scope, q, listOptions(page, limit));
  const names = await svc.repoNamesOf(ctx, rows.map((r) => r.repoId));
  const root = settings().server.rootUrl;
  return {
    workflow_runs: rows.flatMap((r) => {
      const n = names.get(r.repoId);
      return n ? [toWorkflowRun(r, repoUrls(root, n.owner, n.repo))] : [];
    }),
    total_count: count,
  };
}

async function jobs(req: ExRequest, scope: Owner, status: string[], page?: number, limit?: number): Promise<ActionWorkflowJobsResponse> {
  const ctx = ctxOf(req);
  const { views, count } = await svc.listJobViews(ctx, scope, status, listOptions(page, limit));
  const names = await svc.repoNamesOf(ctx, views.map((v) => v.job.repoId));
  const root = settings().server.rootUrl;
  return {
    jobs: views.flatMap((v) => {
      const n = names.get(v.job.repoId);
      return n ? [toWorkflowJob(v.job, v.run, v.index, repoUrls(root, n.owner, n.repo), v.task)] : [];
    }),
    total_count: count,
  };
}

@Route('admin/actions')
@Tags('admin')
export class AdminActionsListingController extends Controller {
  /** Every run of the instance, newest first. */
  @Get('runs')
  @Security('admin', ['admin'])
  @Response<ApiErrorBody>(400, 'an unknown status')
  public async listAdminWorkflowRuns(
    @Request() req: ExRequest, @Query() event?: string, @Query() branch?: string, @Query() status?: string[], @Query() actor?: string, @Query() head_sha?: string,
    @Query() page?: number, @Query() limit?: number,
  ): Promise<ActionWorkflowRunsResponse> {
    return runs(req, {}, { event, branch, status: status ?? [], actor, headSha: head_sha }, page, limit);
  }

  /** Every job of the instance, newest first. */
  @Get('jobs')
  @Security('admin', ['admin'])
  public async listAdminWorkflowJobs(@Request() req: ExRequest, @Query() status?: string[], @Query() page?: number, @Query() limit?: number): Promise<ActionWorkflowJobsResponse> {
    return jobs(req, {}, status ?? [], page, limit);
  }
}

@Route('user/actions')
@Tags('user')
export class UserActionsListingController extends Controller {
  /** The runs of the signed-in user's repositories. */
  @Get('runs')
  @Security('signed', ['user'])
  public async getUserWorkflowRuns(
    @Request() req: ExRequest, @Query() event?: string, @Query() branch?: string, @Query() status?: string[], @Query() actor?: string, @Query() head_sha?: string,
    @Query() page?: number, @Query() limit?: number,
  ): Promise<ActionWorkflowRunsResponse> {
    return runs(req, { ownerId: doerOf(req).id }, { event, branch, status: status ?? [], actor, headSha: head_sha }, page, limit);
  }

  /** The jobs of the signed-in user's repositories. */
  @Get('jobs')
  @Security('signed', ['user'])
  public async getUserWorkflowJobs(@Request() req: ExRequest, @Query() status?: string[], @Query() page?: number, @Query() limit?: number): Promise<ActionWorkflowJobsResponse> {
    return jobs(req, { ownerId: doerOf(req).id }, status ?? [], page, limit);
  }
}

@Route('orgs/{org}/actions')
@Tags('organization')
export class OrgActionsListingController extends Controller {
  /** The runs of an organization's repositories (its owners). */
  @Get('runs')
  @Security('signed', ['organization'])
  @Response<ApiErrorBody>(403, 'not an owner')
  public async getOrgWorkflowRuns(
    @Path() org: string, @Request() req: ExRequest, @Query() event?: string, @Query() branch?: string, @Query() status?: string[], @Query() actor?: string,
    @Query() head_sha?: string, @Query() page?: number, @Query() limit?: number,
  ): Promise<ActionWorkflowRunsResponse> {
    const { ownerId } = await orgActionsScope(ctxOf(req), req.principal, org);
    return runs(req, { ownerId }, { event, branch, status: status ?? [], actor, headSha: head_sha }, page, limit);
  }

  /** The jobs of an organization's repositories (its owners). */
  @Get('jobs')
  @Security('signed', ['organization'])
  @Response<ApiErrorBody>(403, 'not an owner')
  public async getOrgWorkflowJobs(@Path() org: string, @Request() req: ExRequest, @Query() status?: string[], @Query() page?: number, @Query() limit?: number): Promise<ActionWorkflowJobsResponse> {
    const { ownerId } = await orgActionsScope(ctxOf(req), req.principal, org);
    return jobs(req, { ownerId }, status ?? [], page, limit);
  }
}
