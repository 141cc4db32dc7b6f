/**
 * The per-repository write lock: `withRepoLock(repoId, fn)` serializes a repository's writes
 * on whichever node receives them (docs/ARCHITECTURE.md: each repository is an actor).
 */
import { MemoryLocker } from './memory';
import { RedlockLocker } from './redlock';
import { redis, redisKey } from './redis';
import type { LockOptions, Locker } from './locker';

export type { Lock, LockOptions, Locker } from './locker';
export { DEFAULT_LOCK_OPTIONS } from './locker';
export { MemoryLocker } from './memory';
export { RedlockLocker } from './redlock';

let chosen: Locker | undefined;

/**
 * The locker for this process: Redis when [redis] CONN_STR is set (cluster), memory otherwise.
 * why: in a cluster the workers are separate processes (maybe machines); only Redis is shared.
 */
export function locker(): Locker {
  if (!chosen) {
    const client = redis();
    chosen = client ? new RedlockLocker(client, (k) => redisKey(`lock:${k}`)) : new MemoryLocker();
  }
  return chosen;
}

/** Forget the chosen locker (tests that switch settings). */
export function resetLocker(): void {
  chosen = undefined;
}

/**
 * Run fn holding repository repoId's write lock; throws RepoBusy (503, Retry-After) when the
 * lock cannot be had in time. Take it before opening a transaction and re-read inside.
 */
export function withRepoLock<T>(repoId: number, fn: (signal: AbortSignal) => Promise<T>, opts?: Partial<LockOptions>): Promise<T> {
  return locker().withLock(`repo:${repoId}`, fn, opts);
}
