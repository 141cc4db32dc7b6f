/**
 * Site administration of users: `/admin/users`.
 */
import type { Request as ExRequest } from 'express';
import { Body, Controller, Delete, Get, Patch, Path, Post, Query, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import type { CreateUserOption, EditUserOption, RenameUserOption } from '../api/admin';
import type { User } from '../api/user';
import type { ApiErrorBody } from '../errors';
import { ctxOf, doerOf, viewerOf } from '../middleware/context';
import { listOptions, setPaging } from '../middleware/paging';
import { toUser } from '../convert/user';
import { settings } from '../config';
import { searchUsersForAdmin } from '../models/user-admin';
import { createUser } from '../services/user/user.service';
import { editUser, renameUser } from '../services/user/admin.service';
import { deleteUser } from '../services/lifecycle/user-delete.service';
import { lookupOwner } from '../services/user/lookup';
import { queueRegisterNotify } from '../services/mail/account-mail';

@Route('admin/users')
@Tags('admin')
export class AdminUserController extends Controller {
  /** List all individual users, alphabetically; filter by login name or authentication source. */
  @Get()
  @Security('admin', ['admin'])
  @SuccessResponse(200, 'UserList')
  @Response<ApiErrorBody>(403, 'forbidden')
  public async adminSearchUsers(
    @Request() req: ExRequest,
    @Query('source_id') sourceId?: number,
    @Query('login_name') loginName?: string,
    @Query() page?: number,
    @Query() limit?: number,
  ): Promise<User[]> {
    const opts = listOptions(page, limit);
    const { rows, count } = await searchUsersForAdmin(ctxOf(req), { loginName: loginName?.trim(), sourceId }, opts.limit, opts.offset);
    setPaging(req, opts, count);
    const viewer = viewerOf(req);
    return rows.map((u) => toUser(u, viewer, settings().server.rootUrl));
  }

  /** Create a user. An email outside EMAIL_DOMAIN_ALLOWLIST is accepted with an X-Gitea-Warning header. */
  @Post()
  @Security('admin', ['admin'])
  @SuccessResponse(201, 'User')
  @Response<ApiErrorBody>(400, 'bad password')
  @Response<ApiErrorBody>(403, 'forbidden')
  @Response<ApiErrorBody>(422, 'validation error')
  public async adminCreateUser(@Body() body: CreateUserOption, @Request() req: ExRequest): Promise<User> {
    const { user, warning } = await createUser(ctxOf(req), {
      username: body.username,
      email: body.email,
      password: body.password ?? '',
      fullName: body.full_name,
      loginName: body.login_name,
      sourceId: body.source_id,
      mustChangePassword: body.must_change_password ?? true,
      restricted: body.restricted,
      visibility: body.visibility || undefined,
      createdAt: body.created_at,
    }, 'admin');
    if (warning) this.setHeader('X-Gitea-Warning', warning);
    // why: as Gitea, the welcome mail goes to an account an administrator made when asked and when it is active.
    if (body.send_notify && user.isActive) await queueRegisterNotify(ctxOf(req), user);
    this.setStatus(201);
    return toUser(user, viewerOf(req), settings().server.rootUrl);
  }

  /**
   * Edit a user. Only the fields present change (password only when non-empty); a new email becomes
   * the primary address. Demoting the last site administrator is refused.
   */
  @Patch('{username}')
  @Security('admin', ['admin'])
  @SuccessResponse(200, 'User')
  @Response<ApiErrorBody>(400, 'bad password or email')
  @Response<ApiErrorBody>(403, 'forbidden')
  @Response<ApiErrorBody>(404, 'not found')
  @Response<ApiErrorBody>(422, 'validation error')
  public async adminEditUser(@Path() username: string, @Body() body: EditUserOption, @Request() req: ExRequest): Promise<User> {
    const ctx = ctxOf(req);
    const target = await lookupOwner(ctx, req.principal, username);
    const { user, warning } = await editUser(ctx, target, {
      loginName: body.login_name,
      sourceId: body.source_id,
      email: body.email,
      password: body.password,
      mustChangePassword: body.must_change_password,
      fullName: body.full_name,
      website: body.website,
      location: body.location,
      description: body.description,
      active: body.active,
      admin: body.admin,
      allowGitHook: body.allow_git_hook,
      allowImportLocal: body.allow_import_local,
      maxRepoCreation: body.max_repo_creation,
      prohibitLogin: body.prohibit_login,
      allowCreateOrganization: body.allow_create_organization,
      restricted: body.restricted,
      visibility: body.visibility,
    });
    if (warning) this.setHeader('X-Gitea-Warning', warning);
    return toUser(user, viewerOf(req), settings().server.rootUrl);
  }

  /** Delete a user; with `purge`, also its repositories and organization memberships. */
  @Delete('{username}')
  @Security('admin', ['admin'])
  @SuccessResponse(204, 'empty')
  @Response<ApiErrorBody>(403, 'forbidden')
  @Response<ApiErrorBody>(404, 'not found')
  @Response<ApiErrorBody>(422, 'the user cannot be deleted')
  public async adminDeleteUser(@Path() username: string, @Request() req: ExRequest, @Query() purge?: boolean): Promise<void> {
    const ctx = ctxOf(req);
    const target = await lookupOwner(ctx, req.principal, username);
    await deleteUser(ctx, doerOf(req), target, purge === true);
    this.setStatus(204);
  }

  /** Rename a user. */
  @Post('{username}/rename')
  @Security('admin', ['admin'])
  @SuccessResponse(204, 'empty')
  @Response<ApiErrorBody>(403, 'forbidden')
  @Response<ApiErrorBody>(404, 'not found')
  @Response<ApiErrorBody>(422, 'validation error')
  public async adminRenameUser(@Path() username: string, @Body() body: RenameUserOption, @Request() req: ExRequest): Promise<void> {
    const ctx = ctxOf(req);
    const target = await lookupOwner(ctx, req.principal, username);
    await renameUser(ctx, target, body.new_username);
    this.setStatus(204);
  }
}
