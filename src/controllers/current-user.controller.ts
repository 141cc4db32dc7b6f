/**
 * The signed-in user's own account: `/user`, `/user/settings`, `/user/emails`, and whom they follow.
 */
import type { Request as ExRequest } from 'express';
import { Body, Controller, Delete, Get, Patch, Path, Post, Put, Query, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import type { User } from '../api/user';
import type { UserSettings, UserSettingsOptions } from '../api/user-settings';
import type { Email, CreateEmailOption, DeleteEmailOption } from '../api/email';
import type { ApiErrorBody } from '../errors';
import { NotFound } from '../errors';
import { settings } from '../config';
import { ctxOf, doerOf, viewerOf } from '../middleware/context';
import { listOptions, setPaging } from '../middleware/paging';
import { toUser } from '../convert/user';
import { toUserSettings } from '../convert/user-settings';
import { toEmail } from '../convert/email';
import { lookupOwner } from '../services/user/lookup';
import { changeSettings } from '../services/user/settings.service';
import { emailsOf, addEmails, deleteEmails } from '../services/user/email.service';
import { followUser, unfollowByName, follows, followersOf, followingOf } from '../services/user/follow.service';

@Route('user')
@Tags('user')
export class CurrentUserController extends Controller {
  /** Get the authenticated user. */
  @Get()
  @Security('signed', ['user'])
  @Response<ApiErrorBody>(401, 'token is required')
  public async userGetCurrent(@Request() req: ExRequest): Promise<User> {
    return toUser(doerOf(req), viewerOf(req), settings().server.rootUrl);
  }

  /** Get the authenticated user's settings. */
  @Get('settings')
  @Security('signed', ['user'])
  @Response<ApiErrorBody>(401, 'token is required')
  public async getUserSettings(@Request() req: ExRequest): Promise<UserSettings> {
    return toUserSettings(doerOf(req));
  }

  /** Update the authenticated user's settings; only the fields given change. */
  @Patch('settings')
  @Security('signed', ['user'])
  @Response<ApiErrorBody>(422, 'validation error')
  public async updateUserSettings(@Body() body: UserSettingsOptions, @Request() req: ExRequest): Promise<UserSettings> {
    return toUserSettings(await changeSettings(ctxOf(req), doerOf(req), body));
  }

  /** List the authenticated user's email addresses (not paginated, as in Gitea). */
  @Get('emails')
  @Security('signed', ['user'])
  @Response<ApiErrorBody>(401, 'token is required')
  public async userListEmails(@Request() req: ExRequest): Promise<Email[]> {
    return (await emailsOf(ctxOf(req), doerOf(req))).map((e) => toEmail(e));
  }

  /** Add email addresses; answers the whole list. */
  @Post('emails')
  @Security('signed', ['user'])
  @SuccessResponse(201, 'EmailList')
  @Response<ApiErrorBody>(422, 'invalid or used address')
  public async userAddEmail(@Body() body: CreateEmailOption, @Request() req: ExRequest): Promise<Email[]> {
    const rows = await addEmails(ctxOf(req), doerOf(req), body.emails);
    this.setStatus(201);
    return rows.map((e) => toEmail(e));
  }

  /** Delete email addresses (JSON body on DELETE, as in Gitea). The primary address cannot be deleted. */
  @Delete('emails')
  @Security('signed', ['user'])
  @SuccessResponse(204, 'empty')
  @Response<ApiErrorBody>(404, 'not an address of the user')
  @Response<ApiErrorBody>(422, 'primary address')
  public async userDeleteEmail(@Body() body: DeleteEmailOption, @Request() req: ExRequest): Promise<void> {
    await deleteEmails(ctxOf(req), doerOf(req), body.emails);
    this.setStatus(204);
  }

  /** List the authenticated user's followers. */
  @Get('followers')
  @Security('signed', ['user'])
  public async userCurrentListFollowers(@Request() req: ExRequest, @Query() page?: number, @Query() limit?: number): Promise<User[]> {
    const opts = listOptions(page, limit);
    const { rows, count } = await followersOf(ctxOf(req), req.principal, doerOf(req), opts);
    setPaging(req, opts, count);
    return rows.map((u) => toUser(u, viewerOf(req), settings().server.rootUrl));
  }

  /** List the users the authenticated user follows. */
  @Get('following')
  @Security('signed', ['user'])
  public async userCurrentListFollowing(@Request() req: ExRequest, @Query() page?: number, @Query() limit?: number): Promise<User[]> {
    const opts = listOptions(page, limit);
    const { rows, count } = await followingOf(ctxOf(req), req.principal, doerOf(req), opts);
    setPaging(req, opts, count);
    return rows.map((u) => toUser(u, viewerOf(req), settings().server.rootUrl));
  }

  /** 204 if the authenticated user follows `username`, else 404. */
  @Get('following/{username}')
  @Security('signed', ['user'])
  @SuccessResponse(204, 'following')
  @Response<ApiErrorBody>(404, 'not following')
  public async userCurrentCheckFollowing(@Path() username: string, @Request() req: ExRequest): Promise<void> {
    const ctx = ctxOf(req);
    const target = await lookupOwner(ctx, req.principal, username);
    if (!(await follows(ctx, doerOf(req).id, target.id))) throw new NotFound();
    this.setStatus(204);
  }

  /** Follow a user or organization. */
  @Put('following/{username}')
  @Security('signed', ['user'])
  @SuccessResponse(204, 'empty')
  @Response<ApiErrorBody>(403, 'user is blocked')
  @Response<ApiErrorBody>(404, 'not found')
  @Response<ApiErrorBody>(422, 'cannot follow yourself')
  public async userCurrentPutFollow(@Path() username: string, @Request() req: ExRequest): Promise<void> {
    const ctx = ctxOf(req);
    const target = await lookupOwner(ctx, req.principal, username);
    await followUser(ctx, doerOf(req), target);
    this.setStatus(204);
  }

  /** Stop following a user or organization. */
  @Delete('following/{username}')
  @Security('signed', ['user'])
  @SuccessResponse(204, 'empty')
  @Response<ApiErrorBody>(404, 'not found')
  public async userCurrentDeleteFollow(@Path() username: string, @Request() req: ExRequest): Promise<void> {
    await unfollowByName(ctxOf(req), doerOf(req), username);
    this.setStatus(204);
  }
}
