/**
 * Personal access tokens: 40 hex characters shown once at creation, stored as sha256.
 */
import crypto from 'node:crypto';
import { isUniqueViolation, type DbContext } from '../../db';
import { Validation, BadRequest } from '../../errors';
import { findTokenOf, insertToken, listTokensOf, type AccessTokenModel } from '../../models/access-token.model';
import type { UserModel } from '../../models/user.model';
import { hashToken, revokeCachedToken } from '../auth/token-cache';
import { parseScopes, formatScopes, InvalidScope } from '../auth/scope';

/** A freshly created token with its raw value. */
export interface NewToken { row: AccessTokenModel; raw: string }

/** Create a token for `user`; scopes use Gitea's names and must not be empty. */
export async function createAccessToken(ctx: DbContext, user: UserModel, name: string, scopes: string[] | undefined): Promise<NewToken> {
  if (typeof name !== 'string' || name.trim() === '') throw new Validation('[Name]: Required');
  if (name.length > 255) throw new Validation('[Name]: must be at most 255 characters');
  let scope: string;
  try {
    scope = formatScopes(parseScopes(scopes ?? []));
  } catch (err) {
    if (err instanceof InvalidScope) throw new BadRequest(err.message);
    throw err;
  }
  if (scope === '' || scope === 'public-only') throw new BadRequest('access token must have a scope');
  if (await findTokenOf(ctx, user.id, { name })) throw new BadRequest('access token name has been used already');
  const raw = crypto.randomBytes(20).toString('hex');
  try {
    const row = await insertToken(ctx, { uid: user.id, name, tokenHash: hashToken(raw), tokenLastEight: raw.slice(-8), scope });
    return { row, raw };
  } catch (err) {
    if (isUniqueViolation(err)) throw new BadRequest('access token name has been used already');
    throw err;
  }
}

/** Delete a token and make every process forget it at once. */
export async function deleteAccessToken(ctx: DbContext, token: AccessTokenModel): Promise<void> {
  await token.destroy({ transaction: ctx.tx });
  revokeCachedToken(token.tokenHash);
}

/** A user's tokens, newest first (the settings page lists them all). */
export async function tokensOf(ctx: DbContext, user: UserModel): Promise<AccessTokenModel[]> {
  return (await listTokensOf(ctx, user.id, 1000, 0)).rows;
}

/** Delete one of the user's own tokens by id; false when the user has no such token. */
export async function deleteOwnToken(ctx: DbContext, user: UserModel, id: number): Promise<boolean> {
  const token = Number.isSafeInteger(id) && id > 0 ? await findTokenOf(ctx, user.id, { id }) : null;
  if (!token) return false;
  await deleteAccessToken(ctx, token);
  return true;
}
