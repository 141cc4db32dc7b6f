/**
 * The signed-in user's OAuth2 applications: `/user/applications/oauth2` (Gitea's
 * routers/api/v1/user/app.go). The client secret is answered once: on creation and on PATCH, which
 * (as Gitea) makes a new one. Another user's application answers 404 like a missing one.
 */
import type { Request as ExRequest } from 'express';
import { Body, Controller, Delete, Get, Patch, Path, Post, Query, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import type { CreateOAuth2ApplicationOptions, OAuth2Application } from '../api/oauth2';
import type { ApiErrorBody } from '../errors';
import { ctxOf, doerOf } from '../middleware/context';
import { listOptions, setPaging } from '../middleware/paging';
import { toOAuth2Application } from '../convert/oauth2';
import {
  applicationsOf, createApplication, deleteApplication, editApplication, ownedApplication,
} from '../services/oauth2/application.service';

@Route('user/applications/oauth2')
@Tags('user')
export class OAuth2ApplicationController extends Controller {
  /** List the authenticated user's oauth2 applications (without their secrets). */
  @Get()
  @Security('signed', ['user'])
  @Response<ApiErrorBody>(401, 'unauthorized')
  public async userGetOauth2Application(@Request() req: ExRequest, @Query() page?: number, @Query() limit?: number): Promise<OAuth2Application[]> {
    const opts = listOptions(page, limit);
    const { rows, count } = await applicationsOf(ctxOf(req), doerOf(req).id, opts.limit, opts.offset);
    setPaging(req, opts, count);
    return rows.map((a) => toOAuth2Application(a));
  }

  /** Create a new OAuth2 application; its client secret is in this answer only. */
  @Post()
  @Security('signed', ['user'])
  @SuccessResponse(201, 'OAuth2Application')
  @Response<ApiErrorBody>(400, 'bad request')
  @Response<ApiErrorBody>(422, 'validation error')
  public async userCreateOAuth2Application(@Body() body: CreateOAuth2ApplicationOptions, @Request() req: ExRequest): Promise<OAuth2Application> {
    const { app, secret } = await createApplication(ctxOf(req), doerOf(req).id, body);
    this.setStatus(201);
    return toOAuth2Application(app, secret);
  }

  /** Get an OAuth2 application (without its secret). */
  @Get('{id}')
  @Security('signed', ['user'])
  @Response<ApiErrorBody>(404, 'not found')
  public async userGetOAuth2Application(@Path() id: number, @Request() req: ExRequest): Promise<OAuth2Application> {
    return toOAuth2Application(await ownedApplication(ctxOf(req), doerOf(req).id, id));
  }

  /** Update an OAuth2 application, which also makes a new client secret (answered here, once). */
  @Patch('{id}')
  @Security('signed', ['user'])
  @Response<ApiErrorBody>(404, 'not found')
  @Response<ApiErrorBody>(422, 'validation error')
  public async userUpdateOAuth2Application(@Path() id: number, @Body() body: CreateOAuth2ApplicationOptions, @Request() req: ExRequest): Promise<OAuth2Application> {
    const { app, secret } = await editApplication(ctxOf(req), doerOf(req).id, id, body, true);
    return toOAuth2Application(app, secret);
  }

  /** Delete an OAuth2 application; the tokens issued to it stop working at once. */
  @Delete('{id}')
  @Security('signed', ['user'])
  @SuccessResponse(204, 'empty')
  @Response<ApiErrorBody>(404, 'not found')
  public async userDeleteOAuth2Application(@Path() id: number, @Request() req: ExRequest): Promise<void> {
    await deleteApplication(ctxOf(req), doerOf(req).id, id);
    this.setStatus(204);
  }
}
