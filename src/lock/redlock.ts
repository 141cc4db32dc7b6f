/**
 * RedlockLocker: locks shared by every node of a cluster, through Redis (redlock).
 */
import type Redis from 'ioredis';
import Redlock, { type Lock as RLock } from 'redlock';
import { ServiceUnavailable } from '../errors';
import { DEFAULT_LOCK_OPTIONS, busy, runLocked, type Lock, type LockOptions, type Locker } from './locker';

/** The answer while the lock service cannot be reached: at once, never after the wait bound. */
export function lockServiceDown(): ServiceUnavailable {
  return new ServiceUnavailable('the lock service (Redis) cannot be reached, so changes to repositories are paused; try again shortly');
}

/** Pause between attempts while waiting; jitter spreads competing nodes apart. */
const RETRY_DELAY_MS = 50;

/**
 * Redis-backed locker. `keyOf` maps a lock name to a Redis key (the installation prefix).
 * why: one Redis instance (no quorum of independent masters) is the deployment we support;
 * redlock still gives token-checked release/extend scripts, so a holder that lost its lock
 * can never delete or extend the new holder's.
 */
export class RedlockLocker implements Locker {
  private readonly redlock: Redlock;

  constructor(private readonly client: Redis, private readonly keyOf: (key: string) => string = (k) => k) {
    // why: retryCount 0 — we run the waiting loop ourselves so the wait bound is exact (waitMs),
    // not retryCount x delay. Auto-extension is ours too (runLocked), shared with MemoryLocker.
    this.redlock = new Redlock([client], { retryCount: 0, driftFactor: 0.01 });
    this.redlock.on('error', () => undefined);
  }

  /** Take the lock on key, waiting at most opts.waitMs. */
  async acquire(key: string, opts: LockOptions): Promise<Lock> {
    const deadline = Date.now() + opts.waitMs;
    const resource = this.keyOf(key);
    for (;;) {
      // why: with Redis away (commands fail at once, see ./redis), waiting out the bound would only delay the same answer.
      if (this.lost()) throw lockServiceDown();
      try {
        return this.handle(key, await this.redlock.acquire([resource], opts.ttlMs));
      } catch (err) {
        if (this.lost()) throw lockServiceDown();
        if (!retryable(err)) throw err;
      }
      const left = deadline - Date.now();
      if (left <= 0) throw busy();
      await sleep(Math.min(left, RETRY_DELAY_MS + Math.floor(Math.random() * RETRY_DELAY_MS)));
    }
  }

  /** Has the connection to Redis been lost (it is reconnecting, or gave up)? */
  private lost(): boolean {
    return ['reconnecting', 'close', 'end'].includes(this.client.status);
  }

  /** Run fn under the lock on key (see runLocked). */
  async withLock<T>(key: string, fn: (signal: AbortSignal) => Promise<T>, opts: Partial<LockOptions> = {}): Promise<T> {
    const o = { ...DEFAULT_LOCK_OPTIONS, ...opts };
    return runLocked(await this.acquire(key, o), o.ttlMs, fn);
  }

  private handle(key: string, first: RLock): Lock {
    let cur = first;
    return {
      key,
      extend: async (ttlMs: number) => { cur = await cur.extend(ttlMs); },
      // why: releasing an expired lock fails in redlock; that is fine (it is gone already).
      release: async () => { await cur.release().catch(() => undefined); },
    };
  }
}

/**
 * True when an attempt failed in a way worth retrying until the deadline.
 * why: redlock reports both "held by someone else" and "Redis did not answer" as ExecutionError;
 * with the connection up, both are retried (a blip within waitMs is invisible); with it down, the
 * caller is answered at once (lockServiceDown).
 */
function retryable(err: unknown): boolean {
  const name = (err as { name?: string })?.name;
  return name === 'ExecutionError' || name === 'ResourceLockedError';
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
