/**
 * MemoryLocker: locks inside one process (embedded mode, one worker).
 */
import crypto from 'node:crypto';
import { DEFAULT_LOCK_OPTIONS, busy, runLocked, type Lock, type LockOptions, type Locker } from './locker';

interface Held { token: string; expiresAt: number }

/**
 * In-process locker with the same contract as the Redis one: expiry, extension, bounded wait.
 * why: embedded mode has a single worker, so a Map is the whole truth; expiry is kept anyway so
 * a holder that forgets to release (a bug) cannot wedge a repository forever, and so both
 * implementations pass one contract test.
 */
export class MemoryLocker implements Locker {
  private readonly held = new Map<string, Held>();
  private readonly waiters = new Map<string, Set<() => void>>();

  /** Take the lock on key, waiting at most opts.waitMs. */
  async acquire(key: string, opts: LockOptions): Promise<Lock> {
    const deadline = Date.now() + opts.waitMs;
    for (;;) {
      const now = Date.now();
      const cur = this.held.get(key);
      if (!cur || cur.expiresAt <= now) {
        const token = crypto.randomUUID();
        this.held.set(key, { token, expiresAt: now + opts.ttlMs });
        return this.handle(key, token);
      }
      if (now >= deadline) throw busy();
      // why: sleep until a release, the holder's expiry or our deadline, whichever comes first.
      await this.wait(key, Math.min(cur.expiresAt, deadline) - now);
    }
  }

  /** Run fn under the lock on key (see runLocked). */
  async withLock<T>(key: string, fn: (signal: AbortSignal) => Promise<T>, opts: Partial<LockOptions> = {}): Promise<T> {
    const o = { ...DEFAULT_LOCK_OPTIONS, ...opts };
    return runLocked(await this.acquire(key, o), o.ttlMs, fn);
  }

  private wait(key: string, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const set = this.waiters.get(key) ?? new Set<() => void>();
      this.waiters.set(key, set);
      const done = () => {
        clearTimeout(timer);
        set.delete(done);
        if (set.size === 0 && this.waiters.get(key) === set) this.waiters.delete(key);
        resolve();
      };
      const timer = setTimeout(done, Math.max(1, ms));
      set.add(done);
    });
  }

  private wake(key: string): void {
    // why: wake only one waiter; it takes the lock and the others keep sleeping (no thundering herd).
    const first = this.waiters.get(key)?.values().next().value;
    if (first) first();
  }

  private handle(key: string, token: string): Lock {
    return {
      key,
      extend: async (ttlMs: number) => {
        const cur = this.held.get(key);
        if (!cur || cur.token !== token || cur.expiresAt <= Date.now()) throw new Error(`lock ${key} was lost`);
        cur.expiresAt = Date.now() + ttlMs;
      },
      release: async () => {
        if (this.held.get(key)?.token !== token) return;
        this.held.delete(key);
        this.wake(key);
      },
    };
  }
}
