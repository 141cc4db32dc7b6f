/**
 * The background side of pushes in each worker process: the outbox handler that processes
 * recorded pushes, and the reconciler that finds ref changes no push reported (a crash between
 * git's ref update and the recording of the push, or a change made outside the server) and
 * brings the server-owned hooks of every repository up to date (after an upgrade).
 */
import { settings } from '../../config';
import { systemCtx } from '../../db';
import { alteredHooks, installHooks } from '../../git/hooks';
import { dirExists } from '../../git/init';
import { repoPath } from '../../git/paths';
import { removeStaleQuarantines } from '../../git/quarantine';
import { findRepoById, listRepoIdsAfter } from '../../models/repository.model';
import { findUserById } from '../../models/user.model';
import { startOutboxWorker, type OutboxWorker } from '../../queue/worker';
import { subscriberJobs } from '../notify/notifier';
import { PUSH_TOPIC, syncRepoRefs, type PushJob } from './sync.service';

/** Record a push whose recording failed on its answer path (idempotent: a replay finds nothing left to record). */
export async function processPush(payload: unknown): Promise<void> {
  const job = payload as PushJob;
  await syncRepoRefs(job.repoId, { pusherId: job.pusherId, transport: job.transport, updates: job.updates });
}

/** Rewrite the server-owned hooks of a repository and its wiki where they are missing or not what this version writes. */
async function refreshHooks(repoId: number): Promise<void> {
  const repo = await findRepoById(systemCtx, repoId);
  const owner = repo && (await findUserById(systemCtx, repo.ownerId));
  if (!repo || !owner) return;
  for (const dir of [repoPath(owner.name, repo.name), repoPath(owner.name, repo.name, true)]) {
    if ((await dirExists(dir)) && (await alteredHooks(dir)).length > 0) await installHooks(dir);
  }
}

/**
 * Sync every repository, in id order, one at a time, and refresh its hooks; returns how many it
 * checked and how many had unrecorded changes.
 */
export async function reconcileAll(shouldStop: () => boolean = () => false): Promise<{ checked: number; changed: number }> {
  let after = 0;
  let changed = 0;
  let checked = 0;
  while (!shouldStop()) {
    const ids = await listRepoIdsAfter(systemCtx, after, 100);
    if (ids.length === 0) break;
    for (const id of ids) {
      if (shouldStop()) break;
      checked++;
      try {
        await refreshHooks(id);
        if ((await syncRepoRefs(id)).length > 0) changed++;
      } catch (err) {
        console.error(`reconcile repository ${id}:`, err);
      }
    }
    after = ids[ids.length - 1];
  }
  return { checked, changed };
}

/** Running push processing. */
export interface PushProcessing { stop(): Promise<void> }

// why: a push runs for hours at most; a quarantine nobody wrote to for an hour belongs to a dead receive-pack.
const QUARANTINE_AGE_MS = 3600_000;

/** Remove leftover push quarantines; logs what it removed. */
async function cleanQuarantines(olderThanMs: number): Promise<void> {
  const n = await removeStaleQuarantines(settings().repository.root, olderThanMs);
  if (n) console.log(`removed ${n} quarantine director${n === 1 ? 'y' : 'ies'} left by interrupted pushes`);
}

/**
 * Start the outbox handler for pushes and the jobs of the notifier's subscribers; with `reconcile`,
 * also walk every repository once; with `cleanQuarantine`, remove what interrupted pushes left
 * behind, at start and every hour.
 * why: one worker per node does the start-up jobs (the primary chooses it); syncs are idempotent,
 * so several nodes doing it at once only cost time. At start, a node alone on its storage (no
 * Redis: embedded mode) removes every quarantine older than itself; in a cluster, other nodes may
 * be receiving, so only stale ones go.
 */
export function startPushProcessing(opts: { reconcile: boolean; cleanQuarantine: boolean }): PushProcessing {
  // why: a push job takes seconds at most; a crashed worker's lease is taken over after a minute.
  // why: what follows an event (hook payloads, pull request checks, Actions, notifications, references)
  // is the subscribers' work; they name their jobs when they register, so this folder imports none of them.
  const handlers = { [PUSH_TOPIC]: processPush, ...subscriberJobs() };
  // why: a pull request check mostly waits on git children; four at a time keep both cores busy.
  const worker: OutboxWorker = startOutboxWorker(handlers, { leaseMs: 60_000, pollMs: 1000, batch: 16, concurrency: 4 });
  let stopping = false;
  const started = Date.now();
  const reconciling = opts.reconcile
    ? reconcileAll(() => stopping).then(({ checked, changed }) => {
      console.log(`reconciler: ${checked} repositories checked in ${((Date.now() - started) / 1000).toFixed(1)} s, ${changed} had unrecorded ref changes`);
    }, (err: unknown) => console.error('reconciler:', err))
    : Promise.resolve();
  let sweeper: NodeJS.Timeout | null = null;
  if (opts.cleanQuarantine) {
    const failed = (err: unknown) => console.error('quarantine cleanup:', err);
    // why: FORGE_NODE_STARTED is when the primary started: older quarantines cannot belong to a push this node serves.
    const nodeAge = Date.now() - Number(process.env.FORGE_NODE_STARTED ?? Date.now());
    cleanQuarantines(settings().redis.connStr ? QUARANTINE_AGE_MS : Math.max(0, nodeAge)).catch(failed);
    sweeper = setInterval(() => { cleanQuarantines(QUARANTINE_AGE_MS).catch(failed); }, QUARANTINE_AGE_MS);
    sweeper.unref();
  }
  return {
    stop: async () => {
      stopping = true;
      if (sweeper) clearInterval(sweeper);
      await Promise.all([worker.stop(), reconciling]);
    },
  };
}
