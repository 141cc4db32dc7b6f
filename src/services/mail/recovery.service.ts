/**
 * The account flows that run through mail: activating a new account, confirming an added address,
 * and resetting a forgotten password. Their links carry codes (mail/codes.ts) that expire and work
 * once: activation and confirmation rotate the user's `rands`, and a reset changes the password
 * hash, either of which voids the code.
 */
import { settings } from '../../config';
import { withTx, type DbContext } from '../../db';
import { Forbidden, NotFound, Validation } from '../../errors';
import { findEmail, findEmailOf, setEmailActivated } from '../../models/email-address.model';
import { findUserById, UserType, type UserModel } from '../../models/user.model';
import { findUserForUpdate, updateUserColumns } from '../../models/user-admin';
import { notify } from '../notify/notifier';
import { hashPassword, verifyPassword } from '../auth/password';
import { forgetRememberTokensOf } from '../auth/remember.service';
import { checkTotp, secondFactorsOf } from '../auth/two-factor.service';
import { assertLoginAllowed, endQuietPeriod, recordLoginFailure, takeQuietPeriod } from '../auth/limiter';
import { assertPassword } from '../user/validate';
import { createUser, type NewUser } from '../user/user.service';
import { newRands, verifyCode } from './codes';
import { queueActivationMail, queueEmailConfirmation, queueResetMail, RESEND_LIMIT_SECONDS, resendKey } from './account-mail';

/** Does signing up (or adding an address) wait for a confirmation by mail? */
export function confirmationRequired(): boolean {
  return settings().service.registerEmailConfirm;
}

/**
 * Sign a new user up: active at once, or (with REGISTER_EMAIL_CONFIRM) inactive until the link of
 * the activation mail queued here is followed.
 */
export async function signUp(ctx: DbContext, input: Pick<NewUser, 'username' | 'email' | 'password'>): Promise<UserModel> {
  const confirm = confirmationRequired();
  const { user } = await createUser(ctx, { ...input, isActive: !confirm }, 'signup');
  if (confirm) await withTx(ctx, (tx) => queueActivationMail(tx, user));
  return user;
}

/**
 * Mail a reset link to the owner of `email` (any of their confirmed addresses); the link goes to
 * the primary address. Nothing tells whether the address is known: the caller answers the same.
 */
export async function requestPasswordReset(ctx: DbContext, email: string): Promise<void> {
  const row = email.includes('@') ? await findEmail(ctx, email.trim()) : null;
  const user = row?.isActivated ? await findUserById(ctx, row.uid) : null;
  if (!user || user.type !== UserType.Individual || user.prohibitLogin) return;
  await withTx(ctx, async (tx) => { await queueResetMail(tx, user); });
}

/** The user a reset code is for, or null when it is unknown, used or expired. */
export function userOfResetCode(ctx: DbContext, code: string): Promise<UserModel | null> {
  return verifyCode(ctx, 'reset_password', code);
}

/** Does resetting this user's password also ask for a TOTP passcode? */
export async function resetNeedsPasscode(ctx: DbContext, user: UserModel): Promise<boolean> {
  return (await secondFactorsOf(ctx, user.id)).totp;
}

/**
 * Set a new password with a reset code (and the TOTP passcode of an enrolled user; wrong passcodes
 * count as failed second factors from `ip`, as at sign-in). The code is spent by the change of
 * hash; the user's notice of the change is queued with it.
 */
export async function resetPassword(ctx: DbContext, code: string, password: string, passcode: string, ip: string): Promise<UserModel> {
  const user = await userOfResetCode(ctx, code);
  if (!user) throw new Forbidden('The reset link is not valid or has expired. Ask for a new one.');
  // why: the password's rules first, so a refused password does not spend a passcode.
  assertPassword(password);
  if (await resetNeedsPasscode(ctx, user)) {
    // why: a reset link must not become a way around the sign-in's limit on guessing six digits.
    await assertLoginAllowed(ip, user.name);
    if (!(await checkTotp(ctx, user, passcode, true))) {
      await recordLoginFailure(ip, user.name, 'second-factor');
      throw new Validation('Your passcode is incorrect.');
    }
  }
  const passwdHash = await hashPassword(password);
  return withTx(ctx, async (tx) => {
    const fresh = await findUserForUpdate(tx, user.id);
    // why: two uses of one link racing: the second finds the hash changed and is refused.
    if (!fresh || fresh.passwdHash !== user.passwdHash) throw new Forbidden('The reset link is not valid or has expired. Ask for a new one.');
    await updateUserColumns(tx, user.id, { passwdHash, mustChangePassword: false });
    await notify.accountSecurityChanged(tx, { user: fresh, change: 'password' });
    await forgetRememberTokensOf(tx, user.id);
    return (await findUserById(tx, user.id))!;
  });
}

/** Queue the activation mail again for a signed-in inactive user; false when the resend limit holds it. */
export async function resendActivation(ctx: DbContext, user: UserModel): Promise<boolean> {
  if (user.isActive || !confirmationRequired()) return false;
  return withTx(ctx, (tx) => queueActivationMail(tx, user));
}

/** The inactive user an activation code is for, or null. */
export async function userOfActivationCode(ctx: DbContext, code: string): Promise<UserModel | null> {
  const user = await verifyCode(ctx, 'activate_account', code);
  return user && !user.isActive ? user : null;
}

/** Activate an account with its code and its password (a stranger with the link alone cannot). */
export async function activateAccount(ctx: DbContext, code: string, password: string): Promise<UserModel> {
  const user = await userOfActivationCode(ctx, code);
  if (!user) throw new Forbidden('The activation link is not valid or has expired.');
  if (!user.passwdHash || !(await verifyPassword(password, user.passwdHash))) throw new Validation('The password is incorrect.');
  return withTx(ctx, async (tx) => {
    const fresh = await findUserForUpdate(tx, user.id);
    if (!fresh || fresh.rands !== user.rands || fresh.isActive) throw new Forbidden('The activation link is not valid or has expired.');
    await updateUserColumns(tx, user.id, { isActive: true, rands: newRands() });
    await setEmailActivated(tx, user.id, user.email);
    return (await findUserById(tx, user.id))!;
  });
}

/** Confirm an added address with the code mailed to it; false when the code or address does not fit. */
export async function activateEmail(ctx: DbContext, code: string, email: string): Promise<boolean> {
  const user = await verifyCode(ctx, 'activate_email', code, email);
  if (!user) return false;
  const done = await withTx(ctx, async (tx) => {
    const fresh = await findUserForUpdate(tx, user.id);
    if (!fresh || fresh.rands !== user.rands || !(await setEmailActivated(tx, user.id, email))) return false;
    await updateUserColumns(tx, user.id, { rands: newRands() });
    return true;
  });
  if (done) await endQuietPeriod(resendKey(user));
  return done;
}

/**
 * Mail the confirmation link of an unconfirmed address of the user again; false when the resend
 * limit (shared with the account's other mails) holds it back. 404 for an address not theirs.
 */
export async function resendEmailConfirmation(ctx: DbContext, user: UserModel, email: string): Promise<boolean> {
  const row = typeof email === 'string' ? await findEmailOf(ctx, user.id, email) : null;
  if (!row) throw new NotFound(`email address does not exist [email: ${email}]`);
  if (row.isActivated) throw new Validation(`${row.email} is confirmed already.`);
  if (!confirmationRequired() || !(await takeQuietPeriod(resendKey(user), RESEND_LIMIT_SECONDS))) return false;
  await withTx(ctx, (tx) => queueEmailConfirmation(tx, user, row.email));
  return true;
}
