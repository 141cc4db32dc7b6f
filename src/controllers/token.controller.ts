/**
 * Personal access tokens: `/users/{username}/tokens`. As in Gitea, these routes need HTTP Basic
 * and the user itself or a site administrator; creating a token needs the password, never a token.
 */
import type { Request as ExRequest } from 'express';
import { Body, Controller, Delete, Get, Path, Post, Query, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import type { AccessToken, CreateAccessTokenOption } from '../api/token';
import type { ApiErrorBody } from '../errors';
import { Forbidden, NotFound, Unauthorized, Validation } from '../errors';
import { ctxOf } from '../middleware/context';
import { listOptions, setPaging } from '../middleware/paging';
import { toAccessToken } from '../convert/token';
import { findUserByName, UserType, type UserModel } from '../models/user.model';
import { listTokensOf, findTokenOf, findTokensByName } from '../models/access-token.model';
import { createAccessToken, deleteAccessToken } from '../services/user/token.service';

async function tokenOwner(req: ExRequest, username: string, needPassword: boolean): Promise<UserModel> {
  const p = req.principal;
  const target = await findUserByName(ctxOf(req), username);
  if (!p.user || !target || target.type !== UserType.Individual || (p.user.id !== target.id && !p.user.isAdmin)) {
    if (p.user && !target) throw new NotFound(`user redirect does not exist [name: ${username}]`);
    throw new Forbidden('doer should be the site admin or be same as the contextUser');
  }
  if (p.method !== 'basic-password' && p.method !== 'basic-token') throw new Unauthorized('auth required');
  // why: a leaked token must not be able to mint more tokens; only the password can.
  if (needPassword && p.method !== 'basic-password') throw new Unauthorized('creating an access token requires the password (HTTP Basic), not a token');
  return target;
}

@Route('users/{username}/tokens')
@Tags('user')
export class TokenController extends Controller {
  /** List the authenticated user's access tokens. */
  @Get()
  @Security('public', ['user'])
  @Response<ApiErrorBody>(403, 'forbidden')
  public async userGetTokens(@Path() username: string, @Request() req: ExRequest, @Query() page?: number, @Query() limit?: number): Promise<AccessToken[]> {
    const owner = await tokenOwner(req, username, false);
    const opts = listOptions(page, limit);
    const { rows, count } = await listTokensOf(ctxOf(req), owner.id, opts.limit, opts.offset);
    setPaging(req, opts, count);
    return rows.map((t) => toAccessToken(t));
  }

  /** Create an access token (needs HTTP Basic with the password). */
  @Post()
  @Security('public', ['user'])
  @SuccessResponse(201, 'AccessToken')
  @Response<ApiErrorBody>(400, 'bad request')
  @Response<ApiErrorBody>(401, 'unauthorized')
  @Response<ApiErrorBody>(403, 'forbidden')
  public async userCreateToken(@Path() username: string, @Body() body: CreateAccessTokenOption, @Request() req: ExRequest): Promise<AccessToken> {
    const owner = await tokenOwner(req, username, true);
    const { row, raw } = await createAccessToken(ctxOf(req), owner, body.name, body.scopes);
    this.setStatus(201);
    return toAccessToken(row, raw);
  }

  /** Delete an access token by id or by name. */
  @Delete('{token}')
  @Security('public', ['user'])
  @SuccessResponse(204, 'empty')
  @Response<ApiErrorBody>(404, 'not found')
  @Response<ApiErrorBody>(422, 'ambiguous name')
  public async userDeleteAccessToken(@Path() username: string, @Path() token: string, @Request() req: ExRequest): Promise<void> {
    const owner = await tokenOwner(req, username, false);
    const ctx = ctxOf(req);
    const id = /^\d+$/.test(token) ? Number(token) : 0;
    let found = id > 0 ? await findTokenOf(ctx, owner.id, { id }) : null;
    if (id === 0) {
      const byName = await findTokensByName(ctx, owner.id, token);
      if (byName.length > 1) throw new Validation(`multiple matches for token name '${token}'`);
      found = byName[0] ?? null;
    }
    if (!found) throw new NotFound(`access token does not exist [id: ${token}]`);
    await deleteAccessToken(ctx, found);
    this.setStatus(204);
  }
}
