/**
 * The Locker contract: a named, expiring, extendable mutual-exclusion lock, and `runLocked`,
 * the one way callers hold a lock around work (auto-extension, release in `finally`).
 */
import { RepoBusy } from '../errors';

/** How long a lock lives without extension, and how long a caller may wait for it. */
export interface LockOptions {
  /** Lifetime of the lock in ms; a holder that stops extending (crash) loses it after this. */
  ttlMs: number;
  /** Longest wait for the lock in ms before giving up with RepoBusy. */
  waitMs: number;
}

/**
 * Defaults for repository write locks.
 * why: eight API writers to one branch on a loaded two-core machine waited over 10 s for the last
 * turn; a client would rather wait than retry, and Gitea waits without bound.
 */
export const DEFAULT_LOCK_OPTIONS: LockOptions = { ttlMs: 30_000, waitMs: 30_000 };

/** A held lock. */
export interface Lock {
  readonly key: string;
  /** Push the expiry to ttlMs from now; rejects if the lock was lost (expired and taken). */
  extend(ttlMs: number): Promise<void>;
  /** Give the lock up; a no-op when it already expired. Never releases another holder's lock. */
  release(): Promise<void>;
}

/** Something that hands out locks by key. */
export interface Locker {
  /** Take the lock on `key`, waiting at most `opts.waitMs`; throws RepoBusy when that runs out. */
  acquire(key: string, opts: LockOptions): Promise<Lock>;
  /** Run fn holding the lock on `key`, extended while fn runs, released afterwards. */
  withLock<T>(key: string, fn: (signal: AbortSignal) => Promise<T>, opts?: Partial<LockOptions>): Promise<T>;
}

/** The error both lockers throw when the wait bound runs out. */
export function busy(): RepoBusy {
  return new RepoBusy();
}

/**
 * Hold `lock` around fn: extend it every ttl/3 while fn runs, release it afterwards.
 * why: long operations (big pushes, mirror syncs) outlive any fixed ttl; a short ttl plus
 * extension keeps crash recovery fast without letting a live holder be overtaken.
 * The signal aborts when an extension fails (the lock was lost), so fn can stop writing.
 */
export async function runLocked<T>(lock: Lock, ttlMs: number, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const lost = new AbortController();
  let extending: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    extending = lock.extend(ttlMs).catch((err: unknown) => { lost.abort(err); clearInterval(timer); });
  }, Math.max(10, Math.floor(ttlMs / 3)));
  try {
    return await fn(lost.signal);
  } finally {
    clearInterval(timer);
    await extending;
    await lock.release();
  }
}
