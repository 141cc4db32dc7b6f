/**
 * Account mails: activation, confirmation of an added address, password reset, security notices,
 * the welcome of an account an administrator made, an administrator's announcement and the test
 * mail. Each is queued in the caller's transaction (so it exists exactly when the change does),
 * except the test mail, which is sent at once so the administrator sees the server's answer.
 */
import { settings } from '../../config';
import type { DbContext } from '../../db';
import type { UserModel } from '../../models/user.model';
import { takeQuietPeriod } from '../auth/limiter';
import { codeLifetime, makeCode } from './codes';
import { addressed, queueMails } from './message';
import {
  activateEmailMail, activateMail, announcementMail, registerNotifyMail, resetPasswordMail, securityNoticeMail, testMail,
} from './templates';
import { deliver } from './transport';

/** Seconds between two mails anyone may ask for on an account (Gitea's MailResendLimit). */
export const RESEND_LIMIT_SECONDS = 180;

/** Is the mailer on? Account mail flows are offered only then. */
export function mailEnabled(): boolean {
  return settings().mailer.enabled;
}

/** The resend limit's key of an account. */
export const resendKey = (user: UserModel) => `mail-resend:${user.lowerName}`;

/** To the user by name at their primary address. */
const toUser = (u: UserModel) => ({ address: u.email, name: u.fullName || u.name });

/**
 * Queue the activation mail, unless one was sent in the last RESEND_LIMIT_SECONDS; false when the
 * limit held it back.
 */
export async function queueActivationMail(tx: DbContext, user: UserModel): Promise<boolean> {
  if (!mailEnabled() || !(await takeQuietPeriod(resendKey(user), RESEND_LIMIT_SECONDS))) return false;
  await queueMails(tx, [addressed(activateMail(user.name, makeCode('activate_account', user, user.email), codeLifetime('activate_account')), toUser(user))]);
  return true;
}

/** Queue the confirmation mail of an address the user added (to that address). */
export async function queueEmailConfirmation(tx: DbContext, user: UserModel, email: string): Promise<void> {
  await queueMails(tx, [addressed(activateEmailMail(user.name, email, makeCode('activate_email', user, email), codeLifetime('activate_email')), { address: email })]);
}

/** Queue a password reset mail to the primary address, unless the resend limit holds it back. */
export async function queueResetMail(tx: DbContext, user: UserModel): Promise<boolean> {
  if (!mailEnabled() || !(await takeQuietPeriod(resendKey(user), RESEND_LIMIT_SECONDS))) return false;
  await queueMails(tx, [addressed(resetPasswordMail(user.name, makeCode('reset_password', user, user.email), codeLifetime('reset_password')), toUser(user))]);
  return true;
}

/** Queue the notice that something changed the account's security (`what`: "your password was changed"). */
export async function queueSecurityNotice(tx: DbContext, user: UserModel, what: string): Promise<void> {
  if (!user.email) return;
  await queueMails(tx, [addressed(securityNoticeMail(user.name, what), toUser(user))]);
}

/** Queue the welcome mail of an account an administrator made (`send_notify`), when the mailer is on. */
export async function queueRegisterNotify(ctx: DbContext, user: UserModel): Promise<void> {
  await queueMails(ctx, [addressed(registerNotifyMail(user.name), toUser(user))]);
}

/** Queue an announcement to each of `users` (one message each); returns how many were queued. */
export async function queueAnnouncement(tx: DbContext, users: UserModel[], subject: string, content: string): Promise<number> {
  const c = announcementMail(subject, content);
  const messages = users.filter((u) => u.email).map((u) => addressed(c, toUser(u)));
  await queueMails(tx, messages);
  return messages.length;
}

/** Send the test mail to `email` now; throws the server's answer when it is refused. */
export async function sendTestMail(email: string): Promise<void> {
  await deliver(addressed(testMail(), { address: email }));
}
