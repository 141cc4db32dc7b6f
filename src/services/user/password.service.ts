/**
 * A user changing their own password: on the account page with the current one (wrong guesses
 * count as failed sign-ins), or on `/user/change_password` when an administrator requires it.
 * Either way the password's rules apply, the notice mail is queued and every "remember me" token
 * of the account is forgotten (through `setPassword`).
 */
import type { DbContext } from '../../db';
import { Validation } from '../../errors';
import type { UserModel } from '../../models/user.model';
import { checkPassword } from '../auth/credentials';
import { setPassword } from './admin.service';

/** Change the password, given the current one (an account without one needs none). */
export async function changeOwnPassword(ctx: DbContext, ip: string, user: UserModel, current: string, next: string, retype: string): Promise<void> {
  if (user.passwdHash) {
    const checked = await checkPassword(ctx, ip, user.name, current);
    if (checked?.id !== user.id) throw new Validation('The current password is incorrect.');
  }
  if (next !== retype) throw new Validation('The passwords do not match.');
  await setPassword(ctx, user, next, false);
}

/** Set the new password an administrator asked for (must_change_password), which clears the demand. */
export async function changeRequiredPassword(ctx: DbContext, user: UserModel, next: string, retype: string): Promise<void> {
  if (next !== retype) throw new Validation('The passwords do not match.');
  await setPassword(ctx, user, next, false);
}
