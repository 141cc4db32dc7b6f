/**
 * "Remember me" (Gitea's long-lived sign-in cookie): `{lookup id}:{validator}`, both random. The
 * row holds the id and the validator's SHA-256, lasts `[security] LOGIN_REMEMBER_DAYS`, and is
 * used once: redeeming it signs the user in with a new session and a new token. A right id with
 * a wrong validator (a stolen, already-rotated cookie) removes the token.
 */
import crypto from 'node:crypto';
import { settings } from '../../config';
import type { DbContext } from '../../db';
import { nowUnix } from '../../models/issue.model';
import { findUserById, UserType, type UserModel } from '../../models/user.model';
import { deleteAuthToken, deleteAuthTokensOfUser, findAuthToken, insertAuthToken } from '../../models/auth-token.model';

const sha256 = (s: string) => crypto.createHash('sha256').update(s).digest('hex');

/** A cookie value and how many seconds it lasts. */
export interface RememberCookie { value: string; maxAgeSeconds: number }

/** Make a token for `user` and the cookie that carries it. */
export async function issueRememberToken(ctx: DbContext, user: UserModel): Promise<RememberCookie> {
  const id = crypto.randomBytes(16).toString('hex');
  const validator = crypto.randomBytes(32).toString('base64url');
  const maxAgeSeconds = settings().security.loginRememberDays * 86400;
  await insertAuthToken(ctx, { id, tokenHash: sha256(validator), userId: user.id, expiresUnix: nowUnix() + maxAgeSeconds });
  return { value: `${id}:${validator}`, maxAgeSeconds };
}

/**
 * The user a remember cookie signs in, with the cookie that replaces it; null when the cookie
 * opens nothing (unknown, expired, already used, or its user may no longer sign in).
 */
export async function redeemRememberToken(ctx: DbContext, cookie: string): Promise<{ user: UserModel; next: RememberCookie } | null> {
  const m = /^([0-9a-f]{32}):([A-Za-z0-9_-]{43})$/.exec(cookie);
  if (!m) return null;
  const row = await findAuthToken(ctx, m[1]);
  if (!row) return null;
  const want = Buffer.from(row.tokenHash);
  const got = Buffer.from(sha256(m[2]));
  // why: a token is used once; only the request that removes it goes on, so two racing requests cannot both sign in with it.
  const removed = await deleteAuthToken(ctx, row.id);
  if (!removed || want.length !== got.length || !crypto.timingSafeEqual(want, got) || Number(row.expiresUnix) <= nowUnix()) return null;
  const user = await findUserById(ctx, row.userId);
  if (!user || user.type !== UserType.Individual || !user.isActive || user.prohibitLogin) return null;
  return { user, next: await issueRememberToken(ctx, user) };
}

/** Forget the token a cookie carries (sign-out). */
export async function forgetRememberToken(ctx: DbContext, cookie: string): Promise<void> {
  const id = cookie.split(':')[0];
  if (/^[0-9a-f]{32}$/.test(id)) await deleteAuthToken(ctx, id);
}

/** Forget every token of a user: every "remembered" browser must sign in again. */
export async function forgetRememberTokensOf(ctx: DbContext, userId: number): Promise<void> {
  await deleteAuthTokensOfUser(ctx, userId);
}
