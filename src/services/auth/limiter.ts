/**
 * Counts failed sign-ins within a window; past the limit the caller gets 429 before any password
 * is checked. Every failure counts against the client's address. A failed second factor (TOTP,
 * scratch code, security key: only someone who gave the right password gets that far) also
 * counts against the account. why: a wrong password counts against no account, so a stranger who
 * spends the attempts on someone's name locks out only the stranger's own address, never the
 * owner signing in from another (security finding, issue 35); a second factor's six digits still
 * cannot be guessed from many addresses. Counters live in Redis in cluster mode (shared by every
 * node) and in memory otherwise. While Redis cannot be reached, each process counts in its own
 * memory (with one warning), so signing in keeps working.
 */
import { settings } from '../../config';
import { redis, redisKey, redisReady } from '../../lock/redis';
import { TooManyRequests } from '../../errors';

interface Bucket { count: number; resetAt: number }
const memory = new Map<string, Bucket>();

let fallbackWarned = false;

/** Redis when it can answer now; null otherwise (embedded mode, or an outage: count in memory). */
function shared() {
  const r = redis();
  if (!r) return null;
  if (redisReady()) {
    fallbackWarned = false;
    return r;
  }
  if (!fallbackWarned) {
    fallbackWarned = true;
    console.warn('sign-in limiter: Redis cannot be reached; failed sign-ins are counted per process until it is back');
  }
  return null;
}

async function current(key: string): Promise<number> {
  const r = shared();
  if (r) {
    const n = await r.get(redisKey(`loginfail:${key}`)).catch(() => null);
    if (n !== null) return Number(n);
  }
  const b = memory.get(key);
  if (!b || b.resetAt < Date.now()) return 0;
  return b.count;
}

async function bump(key: string, windowSec: number): Promise<void> {
  const r = shared();
  if (r) {
    const k = redisKey(`loginfail:${key}`);
    const n = await r.incr(k).catch(() => null);
    if (n !== null) {
      if (n === 1) await r.expire(k, windowSec).catch(() => undefined);
      return;
    }
  }
  const now = Date.now();
  const b = memory.get(key);
  if (!b || b.resetAt < now) memory.set(key, { count: 1, resetAt: now + windowSec * 1000 });
  else b.count++;
  if (memory.size > 100_000) for (const [k, v] of memory) if (v.resetAt < now) memory.delete(k);
}

/** What failed: the password, or a second factor after the right password. */
export type LoginFailure = 'password' | 'second-factor';

const addressKey = (ip: string) => `ip:${ip}`;
const accountKey = (account: string) => `2fa:${account.toLowerCase()}`;

/** Throw 429 when the address, or the account by its failed second factors, has used up its failed attempts. */
export async function assertLoginAllowed(ip: string, account: string): Promise<void> {
  const { loginMaxFailures, loginFailureWindow } = settings().security;
  for (const k of [addressKey(ip), accountKey(account)]) {
    if ((await current(k)) >= loginMaxFailures) {
      throw new TooManyRequests('too many failed login attempts, try again later', loginFailureWindow);
    }
  }
}

/** Record one failed sign-in: against the address, and for a second factor against the account too. */
export async function recordLoginFailure(ip: string, account: string, what: LoginFailure = 'password'): Promise<void> {
  const { loginFailureWindow } = settings().security;
  await bump(addressKey(ip), loginFailureWindow);
  if (what === 'second-factor') await bump(accountKey(account), loginFailureWindow);
}

const quiet = new Map<string, number>();

/**
 * Take a quiet period: true when nothing took `key` in the last `seconds` (and now this call has),
 * false while an earlier one still holds it. Shared by every node through Redis in cluster mode.
 * why: a mail that anyone may ask for (a password reset, a resent activation) is sent at most once
 * per period per account, so the form cannot be used to flood someone's inbox.
 */
export async function takeQuietPeriod(key: string, seconds: number): Promise<boolean> {
  const r = shared();
  if (r) {
    const got = await r.set(redisKey(`quiet:${key}`), '1', 'EX', seconds, 'NX').catch(() => undefined);
    if (got !== undefined) return got === 'OK';
  }
  const now = Date.now();
  const until = quiet.get(key);
  if (until !== undefined && until > now) return false;
  if (quiet.size > 100_000) for (const [k, v] of quiet) if (v <= now) quiet.delete(k);
  quiet.set(key, now + seconds * 1000);
  return true;
}

/** End a quiet period early (an address was confirmed: another may be asked for at once). */
export async function endQuietPeriod(key: string): Promise<void> {
  quiet.delete(key);
  await shared()?.del(redisKey(`quiet:${key}`)).catch(() => undefined);
}
