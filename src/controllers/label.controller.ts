/** Labels of a repository: list, create, get (by id or name), edit, delete. */
import type { Request as ExRequest } from 'express';
import { Body, Controller, Delete, Get, Patch, Path, Post, Query, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import type { CreateLabelOption, EditLabelOption, Label } from '../api/issue';
import type { ApiErrorBody } from '../errors';
import { settings } from '../config';
import { ctxOf } from '../middleware/context';
import { listOptions, setPaging } from '../middleware/paging';
import { toLabel } from '../convert/issue';
import type { LabelModel } from '../models/label.model';
import { repoAssignment, type RepoContext } from '../services/repo/context';
import { assertTrackerWriter } from '../services/issue/access';
import { createLabel, deleteLabel, editLabel, getLabel, listLabels, repoOwner } from '../services/issue/label.service';

const out = (rc: RepoContext, l: LabelModel): Label => toLabel(l, settings().server.rootUrl, { owner: rc.owner.name, repo: rc.repo.name });

@Route('repos/{owner}/{repo}/labels')
@Tags('issue')
export class LabelController extends Controller {
  /** List a repository's labels by name (all of them without `page`). */
  @Get()
  @Security('public', ['issue'])
  @Response<ApiErrorBody>(404, 'not found')
  public async issueListLabels(
    @Path() owner: string, @Path() repo: string, @Request() req: ExRequest, @Query() page?: number, @Query() limit?: number, @Query() sort?: string,
  ): Promise<Label[]> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    const opts = page ? listOptions(page, limit) : undefined;
    const { rows, count } = await listLabels(ctx, repoOwner(rc), sort, opts);
    if (opts) setPaging(req, opts, count);
    else req.res!.setHeader('X-Total-Count', String(count));
    return rows.map((l) => out(rc, l));
  }

  /** Create a label. */
  @Post()
  @Security('signed', ['issue'])
  @SuccessResponse(201, 'Label')
  @Response<ApiErrorBody>(403, 'forbidden')
  @Response<ApiErrorBody>(404, 'not found')
  @Response<ApiErrorBody>(422, 'bad colour')
  public async issueCreateLabel(@Path() owner: string, @Path() repo: string, @Body() body: CreateLabelOption, @Request() req: ExRequest): Promise<Label> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    assertTrackerWriter(rc);
    const l = await createLabel(ctx, repoOwner(rc), body);
    this.setStatus(201);
    return out(rc, l);
  }

  /** Get a label by id, or by name. */
  @Get('{id}')
  @Security('public', ['issue'])
  @Response<ApiErrorBody>(404, 'not found')
  public async issueGetLabel(@Path() owner: string, @Path() repo: string, @Path() id: string, @Request() req: ExRequest): Promise<Label> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    return out(rc, await getLabel(ctx, repoOwner(rc), id));
  }

  /** Edit a label (an absent `is_archived` unarchives it, as Gitea). */
  @Patch('{id}')
  @Security('signed', ['issue'])
  @Response<ApiErrorBody>(403, 'forbidden')
  @Response<ApiErrorBody>(404, 'not found')
  @Response<ApiErrorBody>(422, 'bad colour')
  public async issueEditLabel(@Path() owner: string, @Path() repo: string, @Path() id: number, @Body() body: EditLabelOption, @Request() req: ExRequest): Promise<Label> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    assertTrackerWriter(rc);
    return out(rc, await editLabel(ctx, repoOwner(rc), id, body));
  }

  /** Delete a label and remove it from every issue. */
  @Delete('{id}')
  @Security('signed', ['issue'])
  @SuccessResponse(204, 'empty')
  @Response<ApiErrorBody>(403, 'forbidden')
  public async issueDeleteLabel(@Path() owner: string, @Path() repo: string, @Path() id: number, @Request() req: ExRequest): Promise<void> {
    const ctx = ctxOf(req);
    const rc = await repoAssignment(ctx, req.principal, owner, repo);
    assertTrackerWriter(rc);
    await deleteLabel(ctx, repoOwner(rc), id);
    this.setStatus(204);
  }
}
