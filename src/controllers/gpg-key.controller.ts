/**
 * GPG keys: the signed-in user's own keys (`/user/gpg_keys`), the verification token and
 * signature check, and anyone's list (`/users/{username}/gpg_keys`).
 */
import type { Request as ExRequest } from 'express';
import { Body, Controller, Delete, Get, Path, Post, Produces, Query, Request, Response, Route, Security, SuccessResponse, Tags } from '@tsoa/runtime';
import type { CreateGPGKeyOption, GPGKey, VerifyGPGKeyOption } from '../api/key';
import type { ApiErrorBody } from '../errors';
import type { DbContext } from '../db';
import { ctxOf, doerOf } from '../middleware/context';
import { listOptions, setPaging } from '../middleware/paging';
import { toGpgKey } from '../convert/key';
import type { UserModel } from '../models/user.model';
import { lookupUser } from '../services/user/lookup';
import {
  activatedEmailsOf, addGpgKey, assertGpgKeysEnabled, getOwnGpgKey, gpgVerificationToken, listGpgKeys, removeGpgKey, verifyGpgKey,
  type GpgKeyWithSubkeys,
} from '../services/keys/gpg-key.service';

async function convertOne(ctx: DbContext, owner: UserModel, k: GpgKeyWithSubkeys): Promise<GPGKey> {
  return toGpgKey(k.key, k.subkeys, await activatedEmailsOf(ctx, owner));
}

async function listOf(req: ExRequest, owner: UserModel, page?: number, limit?: number): Promise<GPGKey[]> {
  const ctx = ctxOf(req);
  const opts = listOptions(page, limit);
  const { keys, total } = await listGpgKeys(ctx, owner, opts.limit, opts.offset);
  setPaging(req, opts, total);
  const emails = await activatedEmailsOf(ctx, owner);
  return keys.map((k) => toGpgKey(k.key, k.subkeys, emails));
}

@Route('user')
@Tags('user')
export class UserGpgKeyController extends Controller {
  /** List the authenticated user's GPG keys. */
  @Get('gpg_keys')
  @Security('signed', ['user'])
  @Response<ApiErrorBody>(401, 'unauthorized')
  public async userCurrentListGpgKeys(@Request() req: ExRequest, @Query() page?: number, @Query() limit?: number): Promise<GPGKey[]> {
    return listOf(req, doerOf(req), page, limit);
  }

  /** Create a GPG key. */
  @Post('gpg_keys')
  @Security('signed', ['user'])
  @SuccessResponse(201, 'GPGKey')
  @Response<ApiErrorBody>(403, 'GPG keys are disabled')
  @Response<ApiErrorBody>(404, 'no email of the key is the user\'s')
  @Response<ApiErrorBody>(422, 'validation error')
  public async userCurrentPostGpgKey(@Body() body: CreateGPGKeyOption, @Request() req: ExRequest): Promise<GPGKey> {
    assertGpgKeysEnabled();
    const doer = doerOf(req);
    const ctx = ctxOf(req);
    const added = await addGpgKey(ctx, doer, body.armored_public_key, body.armored_signature);
    this.setStatus(201);
    return convertOne(ctx, doer, added);
  }

  /** Get one of the authenticated user's GPG keys. */
  @Get('gpg_keys/{id}')
  @Security('signed', ['user'])
  @Response<ApiErrorBody>(404, 'not found')
  public async userCurrentGetGpgKey(@Path() id: number, @Request() req: ExRequest): Promise<GPGKey> {
    const doer = doerOf(req);
    const ctx = ctxOf(req);
    return convertOne(ctx, doer, await getOwnGpgKey(ctx, doer, id));
  }

  /** Remove one of the authenticated user's GPG keys. */
  @Delete('gpg_keys/{id}')
  @Security('signed', ['user'])
  @SuccessResponse(204, 'empty')
  @Response<ApiErrorBody>(403, 'GPG keys are disabled')
  @Response<ApiErrorBody>(404, 'not found')
  public async userCurrentDeleteGpgKey(@Path() id: number, @Request() req: ExRequest): Promise<void> {
    assertGpgKeysEnabled();
    await removeGpgKey(ctxOf(req), doerOf(req), id);
    this.setStatus(204);
  }

  /** The token to sign (detached, armored) to prove a GPG key is yours; text/plain. */
  @Get('gpg_key_token')
  @Security('signed', ['user'])
  @Produces('text/plain')
  @Response<ApiErrorBody>(401, 'unauthorized')
  public async getVerificationToken(@Request() req: ExRequest): Promise<string> {
    const token = gpgVerificationToken(doerOf(req), new Date(), 1);
    // why: Gitea answers text/plain; tsoa would JSON-encode a returned string.
    req.res!.status(200).type('text/plain').send(token);
    return token;
  }

  /** Verify a GPG key with a signature over the token; 200 as Gitea's code does (its swagger says 201). */
  @Post('gpg_key_verify')
  @Security('signed', ['user'])
  @SuccessResponse(200, 'GPGKey')
  @Response<ApiErrorBody>(403, 'GPG keys are disabled')
  @Response<ApiErrorBody>(404, 'not found')
  @Response<ApiErrorBody>(422, 'bad signature')
  public async userVerifyGpgKey(@Body() body: VerifyGPGKeyOption, @Request() req: ExRequest): Promise<GPGKey> {
    assertGpgKeysEnabled();
    const doer = doerOf(req);
    const ctx = ctxOf(req);
    return convertOne(ctx, doer, await verifyGpgKey(ctx, doer, body.key_id, body.armored_signature));
  }
}

@Route('users/{username}/gpg_keys')
@Tags('user')
export class UsersGpgKeyController extends Controller {
  /** List the given user's GPG keys. */
  @Get()
  @Security('signed', ['user'])
  @Response<ApiErrorBody>(404, 'not found')
  public async userListGpgKeys(@Path() username: string, @Request() req: ExRequest, @Query() page?: number, @Query() limit?: number): Promise<GPGKey[]> {
    const owner = await lookupUser(ctxOf(req), req.principal, username);
    return listOf(req, owner, page, limit);
  }
}
