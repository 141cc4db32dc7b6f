/**
 * Site administration of users: `/admin/users`.
 */
import type { Request as ExRequest } from 'express';
import { Body, Controller, Post, Request, Response, Route, Security, SuccessResponse, Tags } from 'tsoa';
import type { CreateUserOption } from '../api/admin';
import type { User } from '../api/user';
import type { ApiErrorBody } from '../errors';
import { ctxOf, viewerOf } from '../middleware/context';
import { toUser } from '../convert/user';
import { settings } from '../config';
import { createUser } from '../services/user/user.service';

@Route('admin/users')
@Tags('admin')
export class AdminUserController extends Controller {
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
    this.setStatus(201);
    return toUser(user, viewerOf(req), settings().server.rootUrl);
  }
}
