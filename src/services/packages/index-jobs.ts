/**
 * The outbox runner of index rebuilds (index-state.ts queues them). A rebuild holds the lock of its
 * index, so one runs at a time per owner and distribution (or group, or branch) across the
 * cluster; it builds from the database as it is, so a rebuild answers every change counted before
 * it began, and the jobs of a burst end at once when the index is built or being built. A job
 * whose runner died is run again when its lease ends.
 */
import { systemCtx, withTx } from '../../db';
import { RepoBusy } from '../../errors';
import { locker } from '../../lock';
import { indexState } from '../../models/package-index.model';
import { findUserById, type UserModel } from '../../models/user.model';
import { enqueue, notifyEnqueued } from '../../queue/outbox';
import { startOutboxWorker } from '../../queue/worker';
import type { DbContext } from '../../db';
import { buildAlpineIndex } from './alpine.service';
import { buildDebianIndex } from './debian.service';
import { announceIndexBuilt, INDEX_TOPIC, type IndexRef } from './index-state';
import { storeIndex, type IndexFile } from './index-store';
import { buildRpmIndex } from './rpm.service';

/** The builders by package type: every file of one index, as it should now be. */
const BUILDERS: Record<string, (ctx: DbContext, owner: UserModel, key: string) => Promise<IndexFile[]>> = {
  alpine: buildAlpineIndex,
  debian: buildDebianIndex,
  rpm: buildRpmIndex,
};

/**
 * Bring index `ref` up to date: rebuilt while changes keep coming, each rebuild taking every change
 * counted when it began. The lock is tried, never waited for: a job that finds it taken ends, and
 * the holder, once it let go, looks again and queues one more job when a change came in meanwhile,
 * so none is left out.
 */
export async function rebuildIndex(ref: IndexRef): Promise<void> {
  const build = BUILDERS[ref.type];
  if (!build) return;
  const due = async () => { const s = await indexState(systemCtx, ref); return s.built < s.wanted ? s.wanted : null; };
  let ownerGone = false;
  try {
    await locker().withLock(`package-index:${ref.ownerId}:${ref.type}:${ref.key}`, async () => {
      for (let wanted = await due(); wanted !== null; wanted = await due()) {
        const owner = await findUserById(systemCtx, ref.ownerId);
        // why: the owner is gone with its packages; nothing is left to index.
        if (!owner) { ownerGone = true; return; }
        await storeIndex(systemCtx, ref, await build(systemCtx, owner, ref.key), wanted);
        announceIndexBuilt(ref, wanted);
      }
    }, { ttlMs: 30_000, waitMs: 0 });
  } catch (err) {
    if (err instanceof RepoBusy) return;
    throw err;
  }
  if (!ownerGone && (await due()) !== null) {
    await withTx(systemCtx, (tx) => enqueue(tx, INDEX_TOPIC, ref));
    notifyEnqueued();
  }
}

/** Rebuilds one process runs at once, each index on its own. */
const RUNNERS = 4;

/**
 * Start this process's runners of index rebuilds; `stop` ends them. why: each runner takes one job
 * at a time, so a rebuild that goes on while uploads keep coming never holds up another index's
 * jobs, as it would in a shared batch.
 */
export function startPackageIndexing(): { stop(): Promise<void> } {
  const runners = Array.from({ length: RUNNERS }, () => startOutboxWorker({ [INDEX_TOPIC]: (p) => rebuildIndex(p as IndexRef) }, { leaseMs: 2 * 60_000, pollMs: 1000, batch: 1 }));
  return { stop: async () => { await Promise.all(runners.map((r) => r.stop())); } };
}
