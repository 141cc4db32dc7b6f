/** Milestones of a repository: list, create, get, edit and delete by id or name. */
import type { Request as ExRequest } from 'express';
import { Body, Controller, Delete, Get, Patch, Path, Post, Query, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import type { CreateMilestoneOption, EditMilestoneOption, Milestone } from '../api/issue';
import type { ApiErrorBody } from '../errors';
import { ctxOf } from '../middleware/context';
import { listOptions, setPaging } from '../middleware/paging';
import { toMilestone } from '../convert/issue';
import { repoAssignment } from '../services/repo/context';
import { createMilestone, deleteMilestone, editMilestone, getMilestone, listMilestones } from '../services/issue/milestone.service';

@Route('repos/{owner}/{repo}/milestones')
@Tags('issue')
export class MilestoneController extends Controller {
  /** List milestones (`state` open or closed; anything else lists all), by deadline then name. */
  @Get()
  @Security('public', ['issue'])
  @Response<ApiErrorBody>(404, 'not found')
  public async issueGetMilestonesList(
    @Path() owner: string, @Path() repo: string, @Request() req: ExRequest,
    @Query() state?: string, @Query() name?: string, @Query() page?: number, @Query() limit?: number,
  ): Promise<Milestone[]> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    const opts = page ? listOptions(page, limit) : undefined;
    const { rows, count } = await listMilestones(ctx, rc, state, name, opts);
    if (opts) setPaging(req, opts, count);
    else req.res!.setHeader('X-Total-Count', String(count));
    return rows.map(toMilestone);
  }

  /** Create a milestone. */
  @Post()
  @Security('signed', ['issue'])
  @SuccessResponse(201, 'Milestone')
  @Response<ApiErrorBody>(403, 'forbidden')
  @Response<ApiErrorBody>(404, 'not found')
  public async issueCreateMilestone(@Path() owner: string, @Path() repo: string, @Body() body: CreateMilestoneOption, @Request() req: ExRequest): Promise<Milestone> {
    const ctx = ctxOf(req);
    const m = await createMilestone(ctx, await repoAssignment(ctx, req.principal, owner, repo), body);
    this.setStatus(201);
    return toMilestone(m);
  }

  /** Get a milestone by id or name. */
  @Get('{id}')
  @Security('public', ['issue'])
  @Response<ApiErrorBody>(404, 'not found')
  public async issueGetMilestone(@Path() owner: string, @Path() repo: string, @Path() id: string, @Request() req: ExRequest): Promise<Milestone> {
    const ctx = ctxOf(req);
    return toMilestone(await getMilestone(ctx, await repoAssignment(ctx, req.principal, owner, repo), id));
  }

  /** Edit a milestone (an absent `due_on` clears the deadline, as Gitea). */
  @Patch('{id}')
  @Security('signed', ['issue'])
  @Response<ApiErrorBody>(403, 'forbidden')
  @Response<ApiErrorBody>(404, 'not found')
  public async issueEditMilestone(@Path() owner: string, @Path() repo: string, @Path() id: string, @Body() body: EditMilestoneOption, @Request() req: ExRequest): Promise<Milestone> {
    const ctx = ctxOf(req);
    return toMilestone(await editMilestone(ctx, await repoAssignment(ctx, req.principal, owner, repo), id, body));
  }

  /** Delete a milestone by id or name. */
  @Delete('{id}')
  @Security('signed', ['issue'])
  @SuccessResponse(204, 'empty')
  @Response<ApiErrorBody>(403, 'forbidden')
  @Response<ApiErrorBody>(404, 'not found')
  public async issueDeleteMilestone(@Path() owner: string, @Path() repo: string, @Path() id: string, @Request() req: ExRequest): Promise<void> {
    const ctx = ctxOf(req);
    await deleteMilestone(ctx, await repoAssignment(ctx, req.principal, owner, repo), id);
    this.setStatus(204);
  }
}
