/**
 * A user's name and password checked, under the failure limits per address and account: the one
 * check behind HTTP Basic auth and the sign-in form.
 */
import type { DbContext } from '../../db';
import { findUserById, findUserByName, UserType, type UserModel } from '../../models/user.model';
import { findEmail } from '../../models/email-address.model';
import { assertLoginAllowed, recordLoginFailure } from './limiter';
import { NO_PASSWORD_HASH, verifyPassword } from './password';

/** The user a sign-in names: by user name, or (with an `@`) by any of their email addresses, as Gitea's sign-in reads it. */
async function userOfLogin(ctx: DbContext, login: string): Promise<UserModel | null> {
  if (!login.includes('@')) return findUserByName(ctx, login);
  const row = await findEmail(ctx, login.trim());
  return row ? findUserById(ctx, row.uid) : null;
}

/**
 * The individual user whose name or email and password these are, or null; a wrong pair counts
 * as a failure, and too many failures are a 429. An unknown name costs one password check too.
 */
export async function checkPassword(ctx: DbContext, ip: string, login: string, password: string): Promise<UserModel | null> {
  if (login.includes('\0') || login === '') return null;
  await assertLoginAllowed(ip, login);
  const user = await userOfLogin(ctx, login);
  const stored = user && user.type === UserType.Individual && user.passwdHash ? user.passwdHash : null;
  // why: an account without a password is checked against a hash all the same, so both take the time of a real check.
  const matches = await verifyPassword(password, stored ?? NO_PASSWORD_HASH);
  const ok = stored !== null && matches;
  if (!ok) {
    await recordLoginFailure(ip, login);
    return null;
  }
  return user;
}
