/** Labels of an organization, usable on every issue of its repositories. */
import type { Request as ExRequest } from 'express';
import { Body, Controller, Delete, Get, Patch, Path, Post, Query, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import type { CreateLabelOption, EditLabelOption, Label } from '../api/issue';
import type { ApiErrorBody } from '../errors';
import { settings } from '../config';
import { ctxOf } from '../middleware/context';
import { listOptions, setPaging } from '../middleware/paging';
import { toLabel } from '../convert/issue';
import type { LabelModel } from '../models/label.model';
import type { UserModel } from '../models/user.model';
import { assertOrgOwner, resolveOrg } from '../services/org/guard';
import { createLabel, deleteLabel, editLabel, getLabel, listLabels } from '../services/issue/label.service';

const out = (org: UserModel, l: LabelModel): Label => toLabel(l, settings().server.rootUrl, { owner: org.name });

@Route('orgs/{org}/labels')
@Tags('organization')
export class OrgLabelController extends Controller {
  /** List an organization's labels by name. */
  @Get()
  @Security('public', ['organization'])
  @Response<ApiErrorBody>(404, 'not found')
  public async orgListLabels(@Path() org: string, @Request() req: ExRequest, @Query() page?: number, @Query() limit?: number, @Query() sort?: string): Promise<Label[]> {
    const ctx = ctxOf(req);
    const o = await resolveOrg(ctx, req.principal, org);
    const opts = listOptions(page, limit);
    const { rows, count } = await listLabels(ctx, { orgId: o.id }, sort, opts);
    setPaging(req, opts, count);
    return rows.map((l) => out(o, l));
  }

  /** Create a label of the organization (owners). */
  @Post()
  @Security('signed', ['organization'])
  @SuccessResponse(201, 'Label')
  @Response<ApiErrorBody>(403, 'forbidden')
  @Response<ApiErrorBody>(422, 'bad colour')
  public async orgCreateLabel(@Path() org: string, @Body() body: CreateLabelOption, @Request() req: ExRequest): Promise<Label> {
    const ctx = ctxOf(req);
    const o = await resolveOrg(ctx, req.principal, org);
    await assertOrgOwner(ctx, req.principal, o);
    const l = await createLabel(ctx, { orgId: o.id }, { ...body, color: (body.color ?? '').trim() });
    this.setStatus(201);
    return out(o, l);
  }

  /** Get a label of the organization by id or name. */
  @Get('{id}')
  @Security('signed', ['organization'])
  @Response<ApiErrorBody>(404, 'not found')
  public async orgGetLabel(@Path() org: string, @Path() id: string, @Request() req: ExRequest): Promise<Label> {
    const ctx = ctxOf(req);
    const o = await resolveOrg(ctx, req.principal, org);
    return out(o, await getLabel(ctx, { orgId: o.id }, id));
  }

  /** Edit a label of the organization (owners). */
  @Patch('{id}')
  @Security('signed', ['organization'])
  @Response<ApiErrorBody>(403, 'forbidden')
  @Response<ApiErrorBody>(404, 'not found')
  @Response<ApiErrorBody>(422, 'bad colour')
  public async orgEditLabel(@Path() org: string, @Path() id: number, @Body() body: EditLabelOption, @Request() req: ExRequest): Promise<Label> {
    const ctx = ctxOf(req);
    const o = await resolveOrg(ctx, req.principal, org);
    await assertOrgOwner(ctx, req.principal, o);
    return out(o, await editLabel(ctx, { orgId: o.id }, id, body));
  }

  /** Delete a label of the organization (owners). */
  @Delete('{id}')
  @Security('signed', ['organization'])
  @SuccessResponse(204, 'empty')
  @Response<ApiErrorBody>(403, 'forbidden')
  public async orgDeleteLabel(@Path() org: string, @Path() id: number, @Request() req: ExRequest): Promise<void> {
    const ctx = ctxOf(req);
    const o = await resolveOrg(ctx, req.principal, org);
    await assertOrgOwner(ctx, req.principal, o);
    await deleteLabel(ctx, { orgId: o.id }, id);
    this.setStatus(204);
  }
}
