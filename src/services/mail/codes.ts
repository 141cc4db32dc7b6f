/**
 * The codes in account mails (activate an account, confirm an address, reset a password), made as
 * Gitea makes them: the minute they were made, their lifetime, an HMAC and the user's name, all hex,
 * so nothing is stored. The HMAC covers the purpose, the user, the address, the password hash and
 * the user's `rands`: a code stops working when it expires, when the password changes (a reset
 * uses its own code up), or when `rands` is rotated (activation and confirmation rotate it).
 */
import crypto from 'node:crypto';
import { settings } from '../../config';
import type { DbContext } from '../../db';
import { findUserByName, type UserModel } from '../../models/user.model';

/** What a code lets its bearer do. */
export type CodePurpose = 'activate_account' | 'activate_email' | 'reset_password';

/** Minutes a code of this purpose lives ([service] ACTIVE_CODE_LIVE_MINUTES, RESET_PASSWD_CODE_LIVE_MINUTES). */
export function codeLifetime(purpose: CodePurpose): number {
  const s = settings().service;
  return purpose === 'reset_password' ? s.resetPasswdCodeLiveMinutes : s.activeCodeLiveMinutes;
}

/** A code's lifetime in words ("3 hours", "90 minutes"), as the pages and mails say it. */
export function codeHours(purpose: CodePurpose): string {
  const minutes = codeLifetime(purpose);
  return minutes % 60 === 0 ? `${minutes / 60} hour${minutes === 60 ? '' : 's'}` : `${minutes} minutes`;
}

const stamp = (d: Date) => d.toISOString().slice(0, 16).replace(/[-T:]/g, '');

function mac(purpose: CodePurpose, user: UserModel, email: string, start: string, minutes: string): string {
  const data = [purpose, user.id, email.toLowerCase(), user.lowerName, user.passwdHash, user.rands].join('|');
  return crypto.createHmac('sha256', `forge-mail-code\0${settings().security.secretKey}`).update(`${data}|${start}|${minutes}`).digest('hex').slice(0, 40);
}

/** A new code for `user` (for `email`, the address it confirms or the primary one). */
export function makeCode(purpose: CodePurpose, user: UserModel, email: string, now = new Date()): string {
  const start = stamp(now);
  const minutes = String(codeLifetime(purpose)).padStart(6, '0');
  return `${start}${minutes}${mac(purpose, user, email, start, minutes)}${Buffer.from(user.lowerName).toString('hex')}`;
}

/**
 * The user a code was made for, when it is genuine, of this purpose, for `email` (the primary
 * address when not given) and not expired; null otherwise.
 */
export async function verifyCode(ctx: DbContext, purpose: CodePurpose, code: string, email?: string): Promise<UserModel | null> {
  if (!/^\d{18}[0-9a-f]{40}(?:[0-9a-f]{2})+$/.test(code)) return null;
  const start = code.slice(0, 12);
  const minutes = code.slice(12, 18);
  const name = Buffer.from(code.slice(58), 'hex').toString('utf8');
  const user = /^[a-z0-9_.-]{1,40}$/.test(name) ? await findUserByName(ctx, name) : null;
  if (!user) return null;
  const expected = mac(purpose, user, email ?? user.email, start, minutes);
  if (!crypto.timingSafeEqual(Buffer.from(expected), Buffer.from(code.slice(18, 58)))) return null;
  const made = Date.UTC(+start.slice(0, 4), +start.slice(4, 6) - 1, +start.slice(6, 8), +start.slice(8, 10), +start.slice(10, 12));
  // why: a lifetime shortened in app.ini applies to codes already sent, as in Gitea.
  const live = Math.min(Number(minutes), codeLifetime(purpose)) * 60_000;
  const now = Date.now();
  return made <= now + 60_000 && now < made + live ? user : null;
}

/** A fresh `rands`, which voids every code made before it. */
export function newRands(): string {
  return crypto.randomBytes(16).toString('hex');
}
