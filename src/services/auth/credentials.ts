/**
 * A user's name and password checked, under the failure limits per address and account: the one
 * check behind HTTP Basic auth and the sign-in form.
 */
import type { DbContext } from '../../db';
import { findUserByName, UserType, type UserModel } from '../../models/user.model';
import { assertLoginAllowed, recordLoginFailure } from './limiter';
import { verifyPassword } from './password';

/**
 * The individual user whose name (not email) and password these are, or null; a wrong pair counts
 * as a failure, and too many failures are a 429.
 */
export async function checkPassword(ctx: DbContext, ip: string, login: string, password: string): Promise<UserModel | null> {
  if (login.includes('\0') || login === '') return null;
  await assertLoginAllowed(ip, login);
  const user = await findUserByName(ctx, login);
  const ok = !!user && user.type === UserType.Individual && !!user.passwdHash && (await verifyPassword(password, user.passwdHash));
  if (!ok) {
    await recordLoginFailure(ip, login);
    return null;
  }
  return user;
}
