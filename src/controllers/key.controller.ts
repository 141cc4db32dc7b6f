/**
 * SSH public keys: the signed-in user's own keys (`/user/keys`), anyone's public list
 * (`/users/{username}/keys`) and administration (`/admin/users/{username}/keys`).
 * Unlike Gitea, `/user/keys/{id}` only ever answers the caller's own keys.
 */
import type { Request as ExRequest } from 'express';
import { Body, Controller, Delete, Get, Path, Post, Query, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import type { CreateKeyOption, PublicKey } from '../api/key';
import type { ApiErrorBody } from '../errors';
import { NotFound } from '../errors';
import { settings } from '../config';
import { ctxOf, doerOf, viewerOf } from '../middleware/context';
import { listOptions, setPaging } from '../middleware/paging';
import { toPublicKey } from '../convert/key';
import { findIndividualByName, type UserModel } from '../models/user.model';
import { listUserPublicKeys } from '../models/public-key.model';
import { lookupUser } from '../services/user/lookup';
import {
  addPublicKey, assertSshKeysEnabled, getOwnPublicKey, getUserPublicKeyForAdmin, removePublicKey,
} from '../services/keys/ssh-key.service';

async function listKeys(req: ExRequest, owner: UserModel, page?: number, limit?: number, fingerprint?: string): Promise<PublicKey[]> {
  const opts = listOptions(page, limit);
  const { rows, count } = await listUserPublicKeys(ctxOf(req), owner.id, opts.limit, opts.offset, fingerprint || undefined);
  setPaging(req, opts, count);
  return rows.map((k) => toPublicKey(k, owner, viewerOf(req), settings().server.rootUrl));
}

@Route('user/keys')
@Tags('user')
export class UserKeyController extends Controller {
  /** List the authenticated user's public keys (optionally the one with `fingerprint`). */
  @Get()
  @Security('signed', ['user'])
  @Response<ApiErrorBody>(401, 'unauthorized')
  public async userCurrentListKeys(@Request() req: ExRequest, @Query() fingerprint?: string, @Query() page?: number, @Query() limit?: number): Promise<PublicKey[]> {
    return listKeys(req, doerOf(req), page, limit, fingerprint);
  }

  /** Create a public key. */
  @Post()
  @Security('signed', ['user'])
  @SuccessResponse(201, 'PublicKey')
  @Response<ApiErrorBody>(403, 'SSH keys are disabled')
  @Response<ApiErrorBody>(422, 'validation error')
  public async userCurrentPostKey(@Body() body: CreateKeyOption, @Request() req: ExRequest): Promise<PublicKey> {
    assertSshKeysEnabled();
    const doer = doerOf(req);
    const key = await addPublicKey(ctxOf(req), doer, body.title, body.key);
    this.setStatus(201);
    return toPublicKey(key, doer, viewerOf(req), settings().server.rootUrl);
  }

  /** Get one of the authenticated user's public keys. */
  @Get('{id}')
  @Security('signed', ['user'])
  @Response<ApiErrorBody>(404, 'not found')
  public async userCurrentGetKey(@Path() id: number, @Request() req: ExRequest): Promise<PublicKey> {
    const doer = doerOf(req);
    const key = await getOwnPublicKey(ctxOf(req), doer, id);
    return toPublicKey(key, doer, viewerOf(req), settings().server.rootUrl);
  }

  /** Delete one of the authenticated user's public keys. */
  @Delete('{id}')
  @Security('signed', ['user'])
  @SuccessResponse(204, 'empty')
  @Response<ApiErrorBody>(403, 'SSH keys are disabled')
  @Response<ApiErrorBody>(404, 'not found')
  public async userCurrentDeleteKey(@Path() id: number, @Request() req: ExRequest): Promise<void> {
    assertSshKeysEnabled();
    const ctx = ctxOf(req);
    await removePublicKey(ctx, await getOwnPublicKey(ctx, doerOf(req), id));
    this.setStatus(204);
  }
}

@Route('users/{username}/keys')
@Tags('user')
export class UsersKeyController extends Controller {
  /** List the given user's public keys (optionally the one with `fingerprint`). */
  @Get()
  @Security('signed', ['user'])
  @Response<ApiErrorBody>(404, 'not found')
  public async userListKeys(@Path() username: string, @Request() req: ExRequest, @Query() fingerprint?: string, @Query() page?: number, @Query() limit?: number): Promise<PublicKey[]> {
    const owner = await lookupUser(ctxOf(req), req.principal, username);
    return listKeys(req, owner, page, limit, fingerprint);
  }
}

async function adminTarget(req: ExRequest, username: string): Promise<UserModel> {
  const u = await findIndividualByName(ctxOf(req), username);
  if (!u) throw new NotFound(`user redirect does not exist [name: ${username}]`);
  return u;
}

@Route('admin/users/{username}/keys')
@Tags('admin')
export class AdminKeyController extends Controller {
  /** Add a public key on behalf of a user. */
  @Post()
  @Security('admin', ['admin'])
  @SuccessResponse(201, 'PublicKey')
  @Response<ApiErrorBody>(403, 'forbidden')
  @Response<ApiErrorBody>(404, 'not found')
  @Response<ApiErrorBody>(422, 'validation error')
  public async adminCreatePublicKey(@Path() username: string, @Body() body: CreateKeyOption, @Request() req: ExRequest): Promise<PublicKey> {
    const owner = await adminTarget(req, username);
    const key = await addPublicKey(ctxOf(req), owner, body.title, body.key);
    this.setStatus(201);
    return toPublicKey(key, owner, viewerOf(req), settings().server.rootUrl);
  }

  /** Delete a user's public key. */
  @Delete('{id}')
  @Security('admin', ['admin'])
  @SuccessResponse(204, 'empty')
  @Response<ApiErrorBody>(403, 'forbidden')
  @Response<ApiErrorBody>(404, 'not found')
  public async adminDeleteUserPublicKey(@Path() username: string, @Path() id: number, @Request() req: ExRequest): Promise<void> {
    const ctx = ctxOf(req);
    const owner = await adminTarget(req, username);
    await removePublicKey(ctx, await getUserPublicKeyForAdmin(ctx, owner, id));
    this.setStatus(204);
  }
}
