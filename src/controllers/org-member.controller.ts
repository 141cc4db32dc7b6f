/**
 * Organization members: `/orgs/{org}/members` and `/orgs/{org}/public_members`.
 */
import type { Request as ExRequest } from 'express';
import { Controller, Delete, Get, Path, Put, Query, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import type { User } from '../api/user';
import type { ApiErrorBody } from '../errors';
import { NotFound } from '../errors';
import { ctxOf, doerOf, viewerOf } from '../middleware/context';
import { listOptions, setPaging } from '../middleware/paging';
import { toUser } from '../convert/user';
import { settings } from '../config';
import { lookupUser } from '../services/user/lookup';
import { resolveOrg, assertOrgOwner, assertOrgMember } from '../services/org/guard';
import { listMembers, isMember, seesAllMembers, removeMember, setMembershipPublic } from '../services/org/member.service';

@Route('orgs/{org}')
@Tags('organization')
export class OrgMemberController extends Controller {
  private async list(req: ExRequest, org: string, publicOnly: boolean, page?: number, limit?: number): Promise<User[]> {
    const ctx = ctxOf(req);
    const o = await resolveOrg(ctx, req.principal, org);
    const opts = listOptions(page, limit);
    const { rows, count } = await listMembers(ctx, req.principal, o, publicOnly, opts.limit, opts.offset);
    setPaging(req, opts, count);
    return rows.map((u) => toUser(u, viewerOf(req), settings().server.rootUrl));
  }

  /** List an organization's members: all of them for members and site admins, public ones for others. */
  @Get('members')
  @Security('signed', ['organization'])
  public async orgListMembers(@Path() org: string, @Request() req: ExRequest, @Query() page?: number, @Query() limit?: number): Promise<User[]> {
    return this.list(req, org, false, page, limit);
  }

  /**
   * Check whether a user is a member: 204 yes, 404 no. A caller outside the organization is
   * redirected (303) to the public membership check, as in Gitea.
   */
  @Get('members/{username}')
  @Security('signed', ['organization'])
  @SuccessResponse(204, 'user is a member')
  @Response(303, 'redirect to the public membership check')
  @Response<ApiErrorBody>(404, 'not a member')
  public async orgIsMember(@Path() org: string, @Path() username: string, @Request() req: ExRequest): Promise<void> {
    const ctx = ctxOf(req);
    const doer = doerOf(req);
    const o = await resolveOrg(ctx, req.principal, org);
    const user = await lookupUser(ctx, req.principal, username);
    if (await seesAllMembers(ctx, req.principal, o)) {
      if (!(await isMember(ctx, o, user, false))) throw new NotFound(`user is not a member of the organization [name: ${username}]`);
      this.setStatus(204);
      return;
    }
    if (doer.id === user.id) throw new NotFound(`user is not a member of the organization [name: ${username}]`);
    const base = new URL(settings().server.rootUrl).pathname;
    this.setHeader('Location', `${base}api/v1/orgs/${encodeURIComponent(o.name)}/public_members/${encodeURIComponent(user.name)}`);
    this.setStatus(303);
  }

  /** Remove a member from the organization and all its teams (owners); the last owner stays. */
  @Delete('members/{username}')
  @Security('signed', ['organization'])
  @SuccessResponse(204, 'empty')
  @Response<ApiErrorBody>(403, 'not an owner')
  @Response<ApiErrorBody>(404, 'not found')
  @Response<ApiErrorBody>(422, 'last owner')
  public async orgDeleteMember(@Path() org: string, @Path() username: string, @Request() req: ExRequest): Promise<void> {
    const ctx = ctxOf(req);
    const o = await resolveOrg(ctx, req.principal, org);
    await assertOrgOwner(ctx, req.principal, o);
    const user = await lookupUser(ctx, req.principal, username);
    await removeMember(ctx, o, user);
    this.setStatus(204);
  }

  /** List an organization's public members. */
  @Get('public_members')
  @Security('public', ['organization'])
  public async orgListPublicMembers(@Path() org: string, @Request() req: ExRequest, @Query() page?: number, @Query() limit?: number): Promise<User[]> {
    return this.list(req, org, true, page, limit);
  }

  /** Check whether a user is a public member: 204 yes, 404 no. */
  @Get('public_members/{username}')
  @Security('public', ['organization'])
  @SuccessResponse(204, 'user is a public member')
  @Response<ApiErrorBody>(404, 'not a public member')
  public async orgIsPublicMember(@Path() org: string, @Path() username: string, @Request() req: ExRequest): Promise<void> {
    const ctx = ctxOf(req);
    const o = await resolveOrg(ctx, req.principal, org);
    const user = await lookupUser(ctx, req.principal, username);
    if (!(await isMember(ctx, o, user, true))) throw new NotFound(`user is not a public member of the organization [name: ${username}]`);
    this.setStatus(204);
  }

  /** Make the caller's own membership public. */
  @Put('public_members/{username}')
  @Security('signed', ['organization'])
  @SuccessResponse(204, 'empty')
  @Response<ApiErrorBody>(403, 'not a member, or another user')
  public async orgPublicizeMember(@Path() org: string, @Path() username: string, @Request() req: ExRequest): Promise<void> {
    await this.setPublic(req, org, username, true);
  }

  /** Hide the caller's own membership. */
  @Delete('public_members/{username}')
  @Security('signed', ['organization'])
  @SuccessResponse(204, 'empty')
  @Response<ApiErrorBody>(403, 'not a member, or another user')
  public async orgConcealMember(@Path() org: string, @Path() username: string, @Request() req: ExRequest): Promise<void> {
    await this.setPublic(req, org, username, false);
  }

  private async setPublic(req: ExRequest, org: string, username: string, isPublic: boolean): Promise<void> {
    const ctx = ctxOf(req);
    const o = await resolveOrg(ctx, req.principal, org);
    await assertOrgMember(ctx, req.principal, o);
    const user = await lookupUser(ctx, req.principal, username);
    await setMembershipPublic(ctx, doerOf(req), o, user, isPublic);
    this.setStatus(204);
  }
}
