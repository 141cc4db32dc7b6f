/**
 * A repository's workflows (from its default branch): list, get, enable, disable, and dispatch
 * (`workflow_dispatch` at a ref with inputs).
 */
import type { Request as ExRequest } from 'express';
import { Body, Controller, Get, Path, Post, Put, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import type { ActionWorkflow, ActionWorkflowResponse, CreateActionWorkflowDispatch } from '../api/actions';
import type { ApiErrorBody } from '../errors';
import { ctxOf, doerOf } from '../middleware/context';
import { repoAssignment } from '../services/repo/context';
import * as svc from '../services/actions/workflow.service';

@Route('repos/{owner}/{repo}/actions/workflows')
@Tags('repository')
export class RepoWorkflowsController extends Controller {
  /** The workflows of the default branch. */
  @Get()
  @Security('signed', ['repository'])
  @Response<ApiErrorBody>(404, 'not found')
  public async ActionsListRepositoryWorkflows(@Path() owner: string, @Path() repo: string, @Request() req: ExRequest): Promise<ActionWorkflowResponse> {
    const workflows = await svc.listWorkflows(ctxOf(req), await repoAssignment(ctxOf(req), req.principal, owner, repo));
    return { workflows, total_count: workflows.length };
  }

  /** A workflow by its file name. */
  @Get('{workflow_id}')
  @Security('signed', ['repository'])
  @Response<ApiErrorBody>(404, 'not found')
  public async ActionsGetWorkflow(@Path() owner: string, @Path() repo: string, @Path() workflow_id: string, @Request() req: ExRequest): Promise<ActionWorkflow> {
    return svc.getWorkflow(ctxOf(req), await repoAssignment(ctxOf(req), req.principal, owner, repo), workflow_id);
  }

  /** Disable a workflow: no event starts it and it cannot be dispatched. */
  @Put('{workflow_id}/disable')
  @Security('signed', ['repository'])
  @SuccessResponse(204, 'disabled')
  @Response<ApiErrorBody>(403, 'no write access to Actions')
  @Response<ApiErrorBody>(404, 'not found')
  public async ActionsDisableWorkflow(@Path() owner: string, @Path() repo: string, @Path() workflow_id: string, @Request() req: ExRequest): Promise<void> {
    await svc.setWorkflowEnabled(ctxOf(req), await repoAssignment(ctxOf(req), req.principal, owner, repo), workflow_id, false);
    this.setStatus(204);
  }

  /** Enable a workflow again. */
  @Put('{workflow_id}/enable')
  @Security('signed', ['repository'])
  @SuccessResponse(204, 'enabled')
  @Response<ApiErrorBody>(403, 'no write access to Actions')
  @Response<ApiErrorBody>(404, 'not found')
  public async ActionsEnableWorkflow(@Path() owner: string, @Path() repo: string, @Path() workflow_id: string, @Request() req: ExRequest): Promise<void> {
    await svc.setWorkflowEnabled(ctxOf(req), await repoAssignment(ctxOf(req), req.principal, owner, repo), workflow_id, true);
    this.setStatus(204);
  }

  /** Run a workflow at a ref with inputs. */
  @Post('{workflow_id}/dispatches')
  @Security('signed', ['repository'])
  @SuccessResponse(204, 'dispatched')
  @Response<ApiErrorBody>(403, 'the workflow is disabled, or no write access')
  @Response<ApiErrorBody>(404, 'no such ref or workflow')
  @Response<ApiErrorBody>(422, 'no ref, or not a dispatchable workflow')
  public async ActionsDispatchWorkflow(
    @Path() owner: string, @Path() repo: string, @Path() workflow_id: string, @Body() body: CreateActionWorkflowDispatch, @Request() req: ExRequest,
  ): Promise<void> {
    const ctx = ctxOf(req);
    await svc.dispatchWorkflow(ctx, await repoAssignment(ctx, req.principal, owner, repo), doerOf(req), workflow_id, body);
    this.setStatus(204);
  }
}
