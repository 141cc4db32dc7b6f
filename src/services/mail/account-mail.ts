/**
 * Account mails: activation, confirmation of an added address, password reset, security notices,
 * the welcome of an account an administrator made, an administrator's announcement and the test
 * mail. Each is queued in the caller's transaction (so it exists exactly when the change does),
 * except the test mail, which is sent at once so the administrator sees the server's answer.
 */
import { settings } from '../../config';
import { withTx, type DbContext } from '../../db';
import { Validation } from '../../errors';
import { UserType, type UserModel } from '../../models/user.model';
import { listAllUsers } from '../user/admin.service';
import { takeQuietPeriod } from '../auth/limiter';
import { codeHours, makeCode } from './codes';
import { addressed, queueMails, textOf } from './message';
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
  await queueMails(tx, [addressed(activateMail(user.name, makeCode('activate_account', user, user.email), codeHours('activate_account')), toUser(user))]);
  return true;
}

/** Queue the confirmation mail of an address the user added (to that address). */
export async function queueEmailConfirmation(tx: DbContext, user: UserModel, email: string): Promise<void> {
  await queueMails(tx, [addressed(activateEmailMail(user.name, email, makeCode('activate_email', user, email), codeHours('activate_email')), { address: email })]);
}

/** Queue a password reset mail to the primary address, unless the resend limit holds it back. */
export async function queueResetMail(tx: DbContext, user: UserModel): Promise<boolean> {
  if (!mailEnabled() || !(await takeQuietPeriod(resendKey(user), RESEND_LIMIT_SECONDS))) return false;
  await queueMails(tx, [addressed(resetPasswordMail(user.name, makeCode('reset_password', user, user.email), codeHours('reset_password')), toUser(user))]);
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

/**
 * Queue an administrator's announcement (`forge admin sendmail`) to every active user with an
 * address, or to the users named in `names` (by name or address); one message each. Returns how
 * many were queued. Unknown names are refused before anything is queued.
 */
export async function queueAnnouncement(ctx: DbContext, subject: string, content: string, names: string[] = []): Promise<number> {
  if (!mailEnabled()) throw new Validation('Mail service is not enabled.');
  if (!subject.trim()) throw new Validation('title is required');
  const everyone = (await listAllUsers(ctx)).filter((u) => u.type === UserType.Individual && u.isActive && u.email);
  let users = everyone;
  if (names.length) {
    const wanted = new Set(names.map((n) => n.toLowerCase()));
    users = everyone.filter((u) => wanted.has(u.lowerName) || wanted.has(u.email.toLowerCase()));
    const found = new Set(users.flatMap((u) => [u.lowerName, u.email.toLowerCase()]));
    const missing = [...wanted].filter((n) => !found.has(n));
    if (missing.length) throw new Validation(`no active user with an address: ${missing.join(', ')}`);
  }
  const c = announcementMail(subject, content);
  const text = textOf(c.html);
  await withTx(ctx, (tx) => queueMails(tx, users.map((u) => addressed(c, toUser(u), text))));
  return users.length;
}

/** Send the test mail to `email` now; throws the server's answer when it is refused. */
export async function sendTestMail(email: string): Promise<void> {
  await deliver(addressed(testMail(), { address: email }));
}
