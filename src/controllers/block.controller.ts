/**
 * Blocking: `/user/blocks` (the caller's own blocks) and `/orgs/{org}/blocks` (owners).
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
import type { UserModel } from '../models/user.model';
import { lookupOwner } from '../services/user/lookup';
import { resolveOrg, assertOrgOwner } from '../services/org/guard';
import { listBlocked, blocks, blockUser, unblockUser } from '../services/user/block.service';

@Route('')
@Tags('user')
export class BlockController extends Controller {
  private async orgBlocker(req: ExRequest, org: string): Promise<UserModel> {
    const ctx = ctxOf(req);
    const o = await resolveOrg(ctx, req.principal, org);
    await assertOrgOwner(ctx, req.principal, o);
    return o;
  }

  private async list(req: ExRequest, blocker: UserModel, page?: number, limit?: number): Promise<User[]> {
    const opts = listOptions(page, limit);
    const { rows, count } = await listBlocked(ctxOf(req), blocker, opts.limit, opts.offset);
    setPaging(req, opts, count);
    return rows.map((u) => toUser(u, viewerOf(req), settings().server.rootUrl));
  }

  private async check(req: ExRequest, blocker: UserModel, username: string): Promise<void> {
    const ctx = ctxOf(req);
    const target = await lookupOwner(ctx, req.principal, username);
    if (!(await blocks(ctx, blocker, target))) throw new NotFound(`user is not blocked [name: ${username}]`);
    this.setStatus(204);
  }

  private async block(req: ExRequest, blocker: UserModel, username: string, note?: string): Promise<void> {
    const ctx = ctxOf(req);
    await blockUser(ctx, doerOf(req), blocker, await lookupOwner(ctx, req.principal, username), note ?? '');
    this.setStatus(204);
  }

  private async unblock(req: ExRequest, blocker: UserModel, username: string): Promise<void> {
    const ctx = ctxOf(req);
    await unblockUser(ctx, blocker, await lookupOwner(ctx, req.principal, username));
    this.setStatus(204);
  }

  /** List the users the caller blocks. */
  @Get('user/blocks')
  @Security('signed', ['user'])
  public async userListBlocks(@Request() req: ExRequest, @Query() page?: number, @Query() limit?: number): Promise<User[]> {
    return this.list(req, doerOf(req), page, limit);
  }

  /** Check whether the caller blocks a user: 204 yes, 404 no. */
  @Get('user/blocks/{username}')
  @Security('signed', ['user'])
  @SuccessResponse(204, 'blocked')
  @Response<ApiErrorBody>(404, 'not blocked')
  public async userCheckUserBlock(@Path() username: string, @Request() req: ExRequest): Promise<void> {
    await this.check(req, doerOf(req), username);
  }

  /** Block a user, with an optional note. */
  @Put('user/blocks/{username}')
  @Security('signed', ['user'])
  @SuccessResponse(204, 'empty')
  @Response<ApiErrorBody>(400, 'cannot block the user')
  @Response<ApiErrorBody>(404, 'not found')
  public async userBlockUser(@Path() username: string, @Request() req: ExRequest, @Query() note?: string): Promise<void> {
    await this.block(req, doerOf(req), username, note);
  }

  /** Unblock a user. */
  @Delete('user/blocks/{username}')
  @Security('signed', ['user'])
  @SuccessResponse(204, 'empty')
  @Response<ApiErrorBody>(400, 'cannot unblock the user')
  @Response<ApiErrorBody>(404, 'not found')
  public async userUnblockUser(@Path() username: string, @Request() req: ExRequest): Promise<void> {
    await this.unblock(req, doerOf(req), username);
  }

  /** List the users an organization blocks (owners). */
  @Get('orgs/{org}/blocks')
  @Security('signed', ['organization'])
  @Response<ApiErrorBody>(403, 'not an owner')
  public async organizationListBlocks(@Path() org: string, @Request() req: ExRequest, @Query() page?: number, @Query() limit?: number): Promise<User[]> {
    return this.list(req, await this.orgBlocker(req, org), page, limit);
  }

  /** Check whether an organization blocks a user (owners): 204 yes, 404 no. */
  @Get('orgs/{org}/blocks/{username}')
  @Security('signed', ['organization'])
  @SuccessResponse(204, 'blocked')
  @Response<ApiErrorBody>(403, 'not an owner')
  @Response<ApiErrorBody>(404, 'not blocked')
  public async organizationCheckUserBlock(@Path() org: string, @Path() username: string, @Request() req: ExRequest): Promise<void> {
    await this.check(req, await this.orgBlocker(req, org), username);
  }

  /** Make an organization block a user (owners); members cannot be blocked. */
  @Put('orgs/{org}/blocks/{username}')
  @Security('signed', ['organization'])
  @SuccessResponse(204, 'empty')
  @Response<ApiErrorBody>(400, 'cannot block the user')
  @Response<ApiErrorBody>(403, 'not an owner')
  public async organizationBlockUser(@Path() org: string, @Path() username: string, @Request() req: ExRequest, @Query() note?: string): Promise<void> {
    await this.block(req, await this.orgBlocker(req, org), username, note);
  }

  /** Make an organization unblock a user (owners). */
  @Delete('orgs/{org}/blocks/{username}')
  @Security('signed', ['organization'])
  @SuccessResponse(204, 'empty')
  @Response<ApiErrorBody>(400, 'cannot unblock the user')
  @Response<ApiErrorBody>(403, 'not an owner')
  public async organizationUnblockUser(@Path() org: string, @Path() username: string, @Request() req: ExRequest): Promise<void> {
    await this.unblock(req, await this.orgBlocker(req, org), username);
  }
}
