/**
 * Organizations: `/orgs`, `/orgs/{org}`, `/user/orgs`, `/users/{username}/orgs` and a user's
 * permissions in an organization.
 */
import type { Request as ExRequest } from 'express';
import { Body, Controller, Delete, Get, Patch, Path, Post, Query, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import type { CreateOrgOption, EditOrgOption, Organization, OrganizationPermissions, RenameOrgOption } from '../api/org';
import type { ApiErrorBody } from '../errors';
import { NotFound } from '../errors';
import { ctxOf, doerOf, viewerOf } from '../middleware/context';
import { listOptions, setPaging } from '../middleware/paging';
import { toOrganization } from '../convert/org';
import { settings } from '../config';
import type { UserModel } from '../models/user.model';
import { lookupOwner } from '../services/user/lookup';
import { resolveOrg, assertOrgOwner } from '../services/org/guard';
import { createOrg, editOrg, deleteOrg, listVisibleOrgs, listOrgsOf, orgPermissionsOf, renameOrg } from '../services/org/org.service';

@Route('')
@Tags('organization')
export class OrgController extends Controller {
  private out(req: ExRequest, rows: UserModel[]): Organization[] {
    return rows.map((o) => toOrganization(o, viewerOf(req), settings().server.rootUrl));
  }

  /** Get the organizations the caller may see, by name. */
  @Get('orgs')
  @Security('public', ['organization'])
  public async orgGetAll(@Request() req: ExRequest, @Query() page?: number, @Query() limit?: number): Promise<Organization[]> {
    const opts = listOptions(page, limit);
    const { rows, count } = await listVisibleOrgs(ctxOf(req), req.principal, opts.limit, opts.offset);
    setPaging(req, opts, count);
    return this.out(req, rows);
  }

  /** Create an organization; the caller becomes its owner. */
  @Post('orgs')
  @Security('signed', ['organization'])
  @SuccessResponse(201, 'Organization')
  @Response<ApiErrorBody>(403, 'not allowed to create organizations')
  @Response<ApiErrorBody>(422, 'validation error')
  public async orgCreate(@Body() body: CreateOrgOption, @Request() req: ExRequest): Promise<Organization> {
    const { username, ...fields } = body;
    const org = await createOrg(ctxOf(req), doerOf(req), username, fields, true);
    this.setStatus(201);
    return toOrganization(org, viewerOf(req), settings().server.rootUrl);
  }

  /** Get an organization. */
  @Get('orgs/{org}')
  @Security('public', ['organization'])
  @Response<ApiErrorBody>(404, 'not found')
  public async orgGet(@Path() org: string, @Request() req: ExRequest): Promise<Organization> {
    const o = await resolveOrg(ctxOf(req), req.principal, org);
    return toOrganization(o, viewerOf(req), settings().server.rootUrl);
  }

  /** Edit an organization (owners); fields that are omitted keep their value. */
  @Patch('orgs/{org}')
  @Security('signed', ['organization'])
  @Response<ApiErrorBody>(403, 'not an owner')
  @Response<ApiErrorBody>(404, 'not found')
  @Response<ApiErrorBody>(422, 'validation error')
  public async orgEdit(@Path() org: string, @Body() body: EditOrgOption, @Request() req: ExRequest): Promise<Organization> {
    const ctx = ctxOf(req);
    const o = await resolveOrg(ctx, req.principal, org);
    await assertOrgOwner(ctx, req.principal, o);
    return toOrganization(await editOrg(ctx, o, body), viewerOf(req), settings().server.rootUrl);
  }

  /** Delete an organization (owners); refused while it owns repositories. */
  @Delete('orgs/{org}')
  @Security('signed', ['organization'])
  @SuccessResponse(204, 'empty')
  @Response<ApiErrorBody>(403, 'not an owner')
  @Response<ApiErrorBody>(404, 'not found')
  @Response<ApiErrorBody>(422, 'still owns repositories')
  public async orgDelete(@Path() org: string, @Request() req: ExRequest): Promise<void> {
    const ctx = ctxOf(req);
    const o = await resolveOrg(ctx, req.principal, org);
    await assertOrgOwner(ctx, req.principal, o);
    await deleteOrg(ctx, o);
    this.setStatus(204);
  }

  /** Rename an organization (owners); the old name keeps leading to it with 307 redirects. */
  @Post('orgs/{org}/rename')
  @Security('signed', ['organization'])
  @SuccessResponse(204, 'empty')
  @Response<ApiErrorBody>(403, 'not an owner')
  @Response<ApiErrorBody>(404, 'not found')
  @Response<ApiErrorBody>(422, 'the name is invalid, reserved or taken')
  public async renameOrg(@Path() org: string, @Body() body: RenameOrgOption, @Request() req: ExRequest): Promise<void> {
    const ctx = ctxOf(req);
    const o = await resolveOrg(ctx, req.principal, org);
    await assertOrgOwner(ctx, req.principal, o);
    await renameOrg(ctx, o, body.new_name);
    this.setStatus(204);
  }

  /** List the caller's organizations. */
  @Get('user/orgs')
  @Security('signed', ['user', 'organization'])
  public async orgListCurrentUserOrgs(@Request() req: ExRequest, @Query() page?: number, @Query() limit?: number): Promise<Organization[]> {
    const opts = listOptions(page, limit);
    const { rows, count } = await listOrgsOf(ctxOf(req), req.principal, doerOf(req), opts.limit, opts.offset);
    setPaging(req, opts, count);
    return this.out(req, rows);
  }

  /** List a user's organizations: public memberships of visible organizations, all of them for the user and site admins. */
  @Get('users/{username}/orgs')
  @Security('signed', ['user', 'organization'])
  @Response<ApiErrorBody>(404, 'not found')
  public async orgListUserOrgs(@Path() username: string, @Request() req: ExRequest, @Query() page?: number, @Query() limit?: number): Promise<Organization[]> {
    const ctx = ctxOf(req);
    const member = await lookupOwner(ctx, req.principal, username);
    const opts = listOptions(page, limit);
    const { rows, count } = await listOrgsOf(ctx, req.principal, member, opts.limit, opts.offset);
    setPaging(req, opts, count);
    return this.out(req, rows);
  }

  /** Get a user's permissions in an organization. */
  @Get('users/{username}/orgs/{org}/permissions')
  @Security('signed', ['user', 'organization'])
  @Response<ApiErrorBody>(404, 'not found')
  public async orgGetUserPermissions(@Path() username: string, @Path() org: string, @Request() req: ExRequest): Promise<OrganizationPermissions> {
    const ctx = ctxOf(req);
    const user = await lookupOwner(ctx, req.principal, username);
    const o = await resolveOrg(ctx, req.principal, org);
    const perm = await orgPermissionsOf(ctx, o, user);
    if (!perm) throw new NotFound(`org does not exist [name: ${org}]`);
    return { is_owner: perm.isOwner, is_admin: perm.isAdmin, can_write: perm.canWrite, can_read: perm.canRead, can_create_repository: perm.canCreateRepository };
  }
}
