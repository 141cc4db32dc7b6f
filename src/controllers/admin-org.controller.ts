/**
 * Site administration of organizations: `/admin/orgs` and `/admin/users/{username}/orgs`.
 */
import type { Request as ExRequest } from 'express';
import { Body, Controller, Get, Path, Post, Query, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import type { CreateOrgOption, Organization } from '../api/org';
import type { ApiErrorBody } from '../errors';
import { ctxOf, viewerOf } from '../middleware/context';
import { listOptions, setPaging } from '../middleware/paging';
import { toOrganization } from '../convert/org';
import { settings } from '../config';
import { lookupUser } from '../services/user/lookup';
import { createOrg, listAllOrgs, listOrgsOf } from '../services/org/org.service';

@Route('admin')
@Tags('admin')
export class AdminOrgController extends Controller {
  /** List every organization, whatever its visibility. */
  @Get('orgs')
  @Security('admin', ['admin'])
  @Response<ApiErrorBody>(403, 'forbidden')
  public async adminGetAllOrgs(@Request() req: ExRequest, @Query() page?: number, @Query() limit?: number): Promise<Organization[]> {
    const opts = listOptions(page, limit);
    const { rows, count } = await listAllOrgs(ctxOf(req), opts.limit, opts.offset);
    setPaging(req, opts, count);
    return rows.map((o) => toOrganization(o, viewerOf(req), settings().server.rootUrl));
  }

  /** List a user's organizations, private memberships included. */
  @Get('users/{username}/orgs')
  @Security('admin', ['admin'])
  @Response<ApiErrorBody>(404, 'not found')
  public async adminListUserOrgs(@Path() username: string, @Request() req: ExRequest, @Query() page?: number, @Query() limit?: number): Promise<Organization[]> {
    const ctx = ctxOf(req);
    const user = await lookupUser(ctx, req.principal, username);
    const opts = listOptions(page, limit);
    const { rows, count } = await listOrgsOf(ctx, req.principal, user, opts.limit, opts.offset);
    setPaging(req, opts, count);
    return rows.map((o) => toOrganization(o, viewerOf(req), settings().server.rootUrl));
  }

  /** Create an organization owned by a user (even one not allowed to create organizations). */
  @Post('users/{username}/orgs')
  @Security('admin', ['admin'])
  @SuccessResponse(201, 'Organization')
  @Response<ApiErrorBody>(403, 'forbidden')
  @Response<ApiErrorBody>(404, 'not found')
  @Response<ApiErrorBody>(422, 'validation error')
  public async adminCreateOrg(@Path() username: string, @Body() body: CreateOrgOption, @Request() req: ExRequest): Promise<Organization> {
    const ctx = ctxOf(req);
    const owner = await lookupUser(ctx, req.principal, username);
    const { username: name, ...fields } = body;
    const org = await createOrg(ctx, owner, name, fields, false);
    this.setStatus(201);
    return toOrganization(org, viewerOf(req), settings().server.rootUrl);
  }
}
