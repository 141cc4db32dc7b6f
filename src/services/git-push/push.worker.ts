/**
 * The background side of pushes in each worker process: the outbox handler that processes
 * recorded pushes, and the reconciler that finds ref changes no push reported (a crash between
 * git's ref update and the post-receive hook, or a change made outside the server).
 */
import { systemCtx } from '../../db';
import { listRepoIdsAfter } from '../../models/repository.model';
import { startOutboxWorker, type OutboxWorker } from '../../queue/worker';
import { PUSH_TOPIC, type PushJob } from './hook.service';
import { refreshCommitGraph, syncRepoRefs } from './sync.service';

/** Process one recorded push (idempotent: a replay finds nothing left to record). */
export async function processPush(payload: unknown): Promise<void> {
  const job = payload as PushJob;
  const changes = await syncRepoRefs(job.repoId, { pusherId: job.pusherId, transport: job.transport, updates: job.updates });
  if (changes.length) await refreshCommitGraph(job.repoId);
}

/** Sync every repository, in id order, one at a time; returns how many had unrecorded changes. */
export async function reconcileAll(shouldStop: () => boolean = () => false): Promise<number> {
  let after = 0;
  let changed = 0;
  while (!shouldStop()) {
    const ids = await listRepoIdsAfter(systemCtx, after, 100);
    if (ids.length === 0) break;
    for (const id of ids) {
      if (shouldStop()) break;
      try {
        if ((await syncRepoRefs(id)).length > 0) changed++;
      } catch (err) {
        console.error(`reconcile repository ${id}:`, err);
      }
    }
    after = ids[ids.length - 1];
  }
  return changed;
}

/** Running push processing. */
export interface PushProcessing { stop(): Promise<void> }

/**
 * Start the outbox handler for pushes; with `reconcile`, also walk every repository once.
 * why: one worker per node reconciles at start (the primary chooses it); syncs are idempotent, so
 * several nodes doing it at once only cost time.
 */
export function startPushProcessing(opts: { reconcile: boolean }): PushProcessing {
  // why: a push job takes seconds at most; a crashed worker's lease is taken over after a minute.
  const worker: OutboxWorker = startOutboxWorker({ [PUSH_TOPIC]: processPush }, { leaseMs: 60_000, pollMs: 1000 });
  let stopping = false;
  const reconciling = opts.reconcile
    ? reconcileAll(() => stopping).then((n) => { if (n) console.log(`reconciler: ${n} repositories had unrecorded ref changes`); }, (err: unknown) => console.error('reconciler:', err))
    : Promise.resolve();
  return {
    stop: async () => {
      stopping = true;
      await Promise.all([worker.stop(), reconciling]);
    },
  };
}
