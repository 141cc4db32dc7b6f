/**
 * When the generated indexes of the Linux formats go stale, and waiting until they are not. A
 * change to a package file counts one change to its index (a Debian distribution, an RPM group, an
 * Alpine branch) and queues a rebuild in the durable outbox, both in the change's transaction; the
 * rebuild (index-jobs.ts) records which count the stored index reflects and announces it to every
 * process. A writer then waits for that announcement, so that, as with Gitea, an upload or a
 * delete answers once the index shows it.
 */
import { systemCtx, type DbContext } from '../../db';
import type { PackageType } from '../../config';
import { indexState, wantIndex, type IndexRef } from '../../models/package-index.model';
import { enqueue, notifyEnqueued } from '../../queue/outbox';
import { publish, subscribe } from '../../queue/bus';

export type { IndexRef } from '../../models/package-index.model';

/** The outbox topic of index rebuilds. */
export const INDEX_TOPIC = 'packages.index';

/** The file property that names the index a file of each indexed type belongs to. */
const INDEX_PROPERTY: Partial<Record<PackageType, string>> = { alpine: 'alpine.branch', debian: 'debian.distribution', rpm: 'rpm.group' };

/** The index property of `type` (undefined: the type has no generated index). */
export function indexProperty(type: string): string | undefined {
  return INDEX_PROPERTY[type as PackageType];
}

/** A counted change: its index, and the count the index must reach to show it. */
export interface IndexTicket extends IndexRef { wanted: number }

/**
 * Count a change to the index of an owner's file of `type` with `props` (nothing for a type without
 * one), and queue its rebuild; inside the change's transaction.
 */
export async function indexChanged(tx: DbContext, ownerId: number, type: string, props: Record<string, string>): Promise<IndexTicket | null> {
  const property = indexProperty(type);
  if (!property || props[property] === undefined) return null;
  const ref = { ownerId, type, key: props[property] };
  const wanted = await wantIndex(tx, ref);
  await enqueue(tx, INDEX_TOPIC, ref);
  return { ...ref, wanted };
}

const BUILT = 'package-index-built';
const refKey = (r: IndexRef) => `${r.ownerId}\n${r.type}\n${r.key}`;
/** Waiters by index: the count each waits for, and its wake-up. */
const waiters = new Map<string, Set<{ wanted: number; woken: boolean; wake: () => void }>>();

subscribe(BUILT, (payload) => {
  const { built, ...ref } = payload as IndexRef & { built: number };
  for (const w of waiters.get(refKey(ref)) ?? []) if (built >= w.wanted) w.wake();
});

/** Tell every process that an index now reflects `built` changes. */
export function announceIndexBuilt(ref: IndexRef, built: number): void {
  publish(BUILT, { ownerId: ref.ownerId, type: ref.type, key: ref.key, built });
}

/**
 * Wait (after the change's commit) until the stored indexes show the changes of `tickets`, at most
 * `timeoutMs`; answers whether they do. why: a client that uploads and then updates its package
 * lists (a CI job's next step) sees the package; a rebuild that takes longer only delays the answer,
 * the change is already stored and its index follows.
 */
export async function awaitIndexes(tickets: (IndexTicket | null)[], timeoutMs = 30_000): Promise<boolean> {
  const due = tickets.filter((t): t is IndexTicket => !!t);
  if (due.length === 0) return true;
  notifyEnqueued();
  const deadline = Date.now() + timeoutMs;
  const results = await Promise.all(due.map(async (t) => {
    const key = refKey(t);
    const set = waiters.get(key) ?? new Set();
    waiters.set(key, set);
    const w = { wanted: t.wanted, woken: false, wake: () => { w.woken = true; } };
    set.add(w);
    try {
      // why: the announcement may have gone out before this waiter was listening, or been lost
      // with Redis; the stored count is read again at each wake-up and every few seconds.
      while (Date.now() < deadline) {
        if ((await indexState(systemCtx, t)).built >= t.wanted) return true;
        if (!w.woken) {
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, Math.min(3_000, Math.max(0, deadline - Date.now())));
            w.wake = () => { w.woken = true; clearTimeout(timer); resolve(); };
          });
        }
        w.woken = false;
      }
      return (await indexState(systemCtx, t)).built >= t.wanted;
    } finally {
      set.delete(w);
      if (set.size === 0) waiters.delete(key);
    }
  }));
  return results.every(Boolean);
}
