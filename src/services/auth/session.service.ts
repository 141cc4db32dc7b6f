/**
 * Browser sessions kept in the database, so every node of a cluster knows them. The cookie holds
 * 32 random bytes; the row is keyed by their SHA-256, so a copy of the database opens no session.
 * A sign-in starts a new session (the pre-sign-in one is dropped); the CSRF token of a session is
 * an HMAC of its key under SECRET_KEY.
 */
import crypto from 'node:crypto';
import { settings } from '../../config';
import { systemCtx, type DbContext } from '../../db';
import { registerCronTask, scheduleCronTask } from '../cron/cron.service';
import { nowUnix } from '../../models/issue.model';
import { findUserById, findUserByName, UserType, type UserModel } from '../../models/user.model';
import { deleteExpiredAuthTokens } from '../../models/auth-token.model';
import { deleteExpiredSessions, deleteSession, deleteSessionsOfUser, findLiveSession, insertSession, updateSession } from '../../models/web-session.model';

/** A session's lifetime once signed in (Gitea's SESSION_LIFE_TIME default), and before. */
const SIGNED_IN_SECONDS = 86400;
const ANONYMOUS_SECONDS = 3600;
// why: a session's expiry moves with use, but at most once a minute, so reading pages writes nothing.
const EXTEND_AFTER_SECONDS = 60;

/** What a session remembers between requests (small: it is one JSON column). */
export interface SessionData {
  /** A user who gave the right password and still owes the second factor. */
  pendingUid?: number;
  /** The account that gave the right password but waits for its activation mail (to resend it). */
  inactiveUid?: number;
  /** "Remember me" was ticked on the sign-in form that the second factor completes. */
  remember?: boolean;
  /** Where to go after signing in (already checked to be local). */
  redirectTo?: string;
  /** A TOTP secret shown for enrolment, waiting for its first code. */
  totpSecret?: string;
  /** The challenge of a WebAuthn ceremony under way. */
  webauthnChallenge?: string;
  /** Messages for the next page. */
  flash?: { kind: 'info' | 'success' | 'error'; text: string }[];
  /** An OAuth2 authorization shown on the consent page, waiting for Grant or Cancel. */
  oauth2?: PendingAuthorization;
}

/** What an OAuth2 authorization request asked, kept while its consent page is shown (Gitea keeps it in the session too). */
export interface PendingAuthorization {
  clientId: string; redirectUri: string; state: string; scope: string; nonce: string; codeChallenge: string; codeChallengeMethod: string;
}

/** A live session. */
export interface WebSession { id: string; uid: number; data: SessionData; user: UserModel | null; expiry: number }

const hashOf = (token: string) => crypto.createHash('sha256').update(token).digest('hex');

/** The session a cookie value opens (its user still allowed to sign in), or null. */
export async function openSession(ctx: DbContext, token: string): Promise<WebSession | null> {
  if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return null;
  const now = nowUnix();
  const row = await findLiveSession(ctx, hashOf(token), now);
  if (!row) return null;
  const user = row.uid ? await findUserById(ctx, row.uid) : null;
  // why: a user deleted, deactivated or prohibited since signing in is signed out everywhere.
  if (row.uid && (!user || !user.isActive || user.prohibitLogin || user.type !== UserType.Individual)) {
    await deleteSession(ctx, row.id);
    return null;
  }
  let data: SessionData = {};
  try { data = JSON.parse(row.data || '{}') as SessionData; } catch { /* a damaged row starts empty */ }
  const s: WebSession = { id: row.id, uid: row.uid, data, user, expiry: Number(row.expiry) };
  const life = row.uid ? SIGNED_IN_SECONDS : ANONYMOUS_SECONDS;
  if (s.expiry - now < life - EXTEND_AFTER_SECONDS) {
    s.expiry = now + life;
    await updateSession(ctx, row.id, { expiry: s.expiry });
  }
  return s;
}

/** Start a session (signed in as `uid`, or 0); returns the cookie value and the session. */
export async function startSession(ctx: DbContext, uid: number, data: SessionData = {}): Promise<{ token: string; session: WebSession }> {
  const token = crypto.randomBytes(32).toString('base64url');
  const now = nowUnix();
  const expiry = now + (uid ? SIGNED_IN_SECONDS : ANONYMOUS_SECONDS);
  const id = hashOf(token);
  await insertSession(ctx, { id, uid, data: JSON.stringify(data), createdUnix: now, expiry });
  return { token, session: { id, uid, data, user: uid ? await findUserById(ctx, uid) : null, expiry } };
}

/** Save a session's data. */
export async function saveSessionData(ctx: DbContext, s: WebSession): Promise<void> {
  await updateSession(ctx, s.id, { data: JSON.stringify(s.data) });
}

/** Sign `user` in: the old session ends and a new one starts (session fixation). */
export async function signInSession(ctx: DbContext, old: WebSession | null, user: UserModel): Promise<{ token: string; session: WebSession }> {
  if (old) await deleteSession(ctx, old.id);
  return startSession(ctx, user.id, { flash: old?.data.flash });
}

/** Sign in the user a trusted proxy names (reverse-proxy authentication); null when no such user may sign in. */
export async function signInVouchedUser(ctx: DbContext, old: WebSession | null, name: string): Promise<{ token: string; session: WebSession } | null> {
  const user = await findUserByName(ctx, name);
  if (!user || user.type !== UserType.Individual || !user.isActive || user.prohibitLogin) return null;
  return signInSession(ctx, old, user);
}

/** End a session (sign-out). */
export async function endSession(ctx: DbContext, s: WebSession): Promise<void> {
  await deleteSession(ctx, s.id);
}

/** End every other session of the user (after a change of password or second factor). */
export async function endOtherSessions(ctx: DbContext, s: WebSession): Promise<void> {
  await deleteSessionsOfUser(ctx, s.uid, s.id);
}

const CLEANUP = 'cleanup_sessions';
// why: an expired session or remember-me token is never read again; an hourly delete keeps both tables small.
registerCronTask(CLEANUP, 3600_000, () => Promise.all([deleteExpiredSessions(systemCtx, nowUnix()), deleteExpiredAuthTokens(systemCtx, nowUnix())]));

/** Start the hourly removal of expired sessions and remember-me tokens in this process (one process of a node is enough). */
export function startSessionCleanup(): { stop(): void } {
  return scheduleCronTask(CLEANUP);
}

/** The CSRF token of a session. */
export function csrfToken(s: WebSession): string {
  return crypto.createHmac('sha256', settings().security.secretKey).update(`csrf\0${s.id}`).digest('base64url');
}

/** Does `token` match the session's CSRF token (constant time)? */
export function csrfValid(s: WebSession, token: unknown): boolean {
  if (typeof token !== 'string') return false;
  const want = Buffer.from(csrfToken(s));
  const got = Buffer.from(token);
  return got.length === want.length && crypto.timingSafeEqual(got, want);
}
