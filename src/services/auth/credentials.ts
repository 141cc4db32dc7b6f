/**
 * A user's name and password checked, under the failure limits per address and account: the one
 * check behind HTTP Basic auth and the sign-in form.
 */
import type { DbContext } from '../../db';
import { findUserByName, UserType, type UserModel } from '../../models/user.model';
import { assertLoginAllowed, recordLoginFailure } from './limiter';
import { NO_PASSWORD_HASH, verifyPassword } from './password';

/**
 * The individual user whose name (not email) and password these are, or null; a wrong pair counts
 * as a failure, and too many failures are a 429. An unknown name costs one password check too.
 */
export async function checkPassword(ctx: DbContext, ip: string, login: string, password: string): Promise<UserModel | null> {
  if (login.includes('\0') || login === '') return null;
  await assertLoginAllowed(ip, login);
  const user = await findUserByName(ctx, login);
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
