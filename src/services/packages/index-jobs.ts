/**
 * The outbox runner of index rebuilds (index-state.ts queues them). A rebuild holds the lock of its
 * index, so one runs at a time per owner and distribution (or group, or branch) across the
 * cluster; it builds from the database as it is, so a rebuild answers every change counted before
 * it began, and the jobs of a burst that find the index already built end at once.
 */
import { systemCtx } from '../../db';
import { locker } from '../../lock';
import { indexState } from '../../models/package-index.model';
import { findUserById, type UserModel } from '../../models/user.model';
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

/** Bring index `ref` up to date (nothing when it already is). */
export async function rebuildIndex(ref: IndexRef): Promise<void> {
  const build = BUILDERS[ref.type];
  if (!build) return;
  const built = await locker().withLock(`package-index:${ref.ownerId}:${ref.type}:${ref.key}`, async () => {
    const state = await indexState(systemCtx, ref);
    if (state.built >= state.wanted) return null;
    const owner = await findUserById(systemCtx, ref.ownerId);
    // why: the owner is gone with its packages; the count is left as it is.
    if (!owner) return null;
    await storeIndex(systemCtx, ref, await build(systemCtx, owner, ref.key), state.wanted);
    return state.wanted;
  }, { ttlMs: 30_000, waitMs: 5 * 60_000 });
  if (built !== null) announceIndexBuilt(ref, built);
}

/** Start this process's runner of index rebuilds; `stop` ends it. */
export function startPackageIndexing(): { stop(): Promise<void> } {
  return startOutboxWorker({ [INDEX_TOPIC]: (p) => rebuildIndex(p as IndexRef) }, { leaseMs: 10 * 60_000, pollMs: 1000, batch: 16, concurrency: 2 });
}
