/**
 * Badges of users, for site administrators: `/admin/users/{username}/badges`.
 */
import type { Request as ExRequest } from 'express';
import { Body, Controller, Delete, Get, Path, Post, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import type { Badge, UserBadgeOption } from '../api/admin';
import type { ApiErrorBody } from '../errors';
import { ctxOf } from '../middleware/context';
import { toBadge } from '../convert/badge';
import { badgesOfUser } from '../models/badge.model';
import { lookupUser } from '../services/user/lookup';
import { addUserBadges, removeUserBadges } from '../services/user/badge.service';

@Route('admin/users/{username}/badges')
@Tags('admin')
export class AdminBadgeController extends Controller {
  /** List a user's badges. */
  @Get()
  @Security('admin', ['admin'])
  @SuccessResponse(200, 'BadgeList')
  @Response<ApiErrorBody>(403, 'forbidden')
  @Response<ApiErrorBody>(404, 'not found')
  public async adminListUserBadges(@Path() username: string, @Request() req: ExRequest): Promise<Badge[]> {
    const ctx = ctxOf(req);
    const user = await lookupUser(ctx, req.principal, username);
    const badges = await badgesOfUser(ctx, user.id);
    // why: Gitea's badge list has no page/limit parameters (a user has a handful); only the total header.
    this.setHeader('X-Total-Count', String(badges.length));
    return badges.map(toBadge);
  }

  /** Add badges to a user, by slug; every slug must exist. */
  @Post()
  @Security('admin', ['admin'])
  @SuccessResponse(204, 'empty')
  @Response<ApiErrorBody>(403, 'forbidden')
  @Response<ApiErrorBody>(404, 'not found')
  @Response<ApiErrorBody>(422, 'unknown badge')
  public async adminAddUserBadges(@Path() username: string, @Body() body: UserBadgeOption, @Request() req: ExRequest): Promise<void> {
    const ctx = ctxOf(req);
    const user = await lookupUser(ctx, req.principal, username);
    await addUserBadges(ctx, user, body.badge_slugs ?? []);
    this.setStatus(204);
  }

  /** Remove badges from a user, by slug; unknown slugs are ignored. */
  @Delete()
  @Security('admin', ['admin'])
  @SuccessResponse(204, 'empty')
  @Response<ApiErrorBody>(403, 'forbidden')
  @Response<ApiErrorBody>(404, 'not found')
  public async adminDeleteUserBadges(@Path() username: string, @Body() body: UserBadgeOption, @Request() req: ExRequest): Promise<void> {
    const ctx = ctxOf(req);
    const user = await lookupUser(ctx, req.principal, username);
    await removeUserBadges(ctx, user, body.badge_slugs ?? []);
    this.setStatus(204);
  }
}
