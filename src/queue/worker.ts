/**
 * The outbox runner started in each worker process: claims due jobs of the topics it has
 * handlers for, runs them, and completes or fails them.
 */
import crypto from 'node:crypto';
import os from 'node:os';
import { systemCtx } from '../db';
import { claim, complete, fail, onEnqueued } from './outbox';

/** The job a handler runs: its id, how often it was tried, and the runner that holds its lease. */
export interface OutboxJobRef { id: number; attempts: number; workerId: string }

/**
 * A job handler; it must be idempotent (a job can run again after a crash mid-way), or complete its
 * job inside its own transaction (completeInTx) so that its writes and the completion commit together.
 */
export type OutboxHandler = (payload: unknown, job: OutboxJobRef) => Promise<void>;

/** Runner settings. */
export interface OutboxWorkerOptions {
  /** Pause between polls when nothing was due. */
  pollMs?: number;
  /** How long a claimed job is ours; a crashed worker's jobs are taken over after this. */
  leaseMs?: number;
  /** Jobs claimed per poll. */
  batch?: number;
  /** Identifies this runner in leased_by. */
  workerId?: string;
  /** Jobs of a batch run at the same time (default 1: one after another). */
  concurrency?: number;
}

/** A running outbox worker. */
export interface OutboxWorker {
  readonly workerId: string;
  /** Stop polling and wait for the jobs in hand to finish. */
  stop(): Promise<void>;
}

/**
 * Claim one batch and run it, up to `concurrency` jobs at a time; returns how many were claimed.
 * why: per-topic ordering is not promised, but a batch finishing before the next claim keeps a
 * slow handler from hoarding leases it cannot honour. Jobs that wait on git children (checks of
 * many pull requests) gain from running side by side.
 */
export async function runOutboxOnce(
  handlers: Record<string, OutboxHandler>, opts: Required<Pick<OutboxWorkerOptions, 'leaseMs' | 'batch' | 'workerId'>> & { concurrency?: number },
): Promise<number> {
  const jobs = await claim(systemCtx, Object.keys(handlers), opts.batch, opts.leaseMs, opts.workerId);
  let next = 0;
  const lane = async () => {
    while (next < jobs.length) {
      const job = jobs[next++];
      try {
        await handlers[job.topic](job.payload, { id: job.id, attempts: job.attempts, workerId: opts.workerId });
        await complete(systemCtx, job.id, opts.workerId);
      } catch (err) {
        await fail(systemCtx, job.id, opts.workerId, err).catch(() => undefined);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, opts.concurrency ?? 1) }, lane));
  return jobs.length;
}

/** Start polling the outbox for the topics in `handlers`. */
export function startOutboxWorker(handlers: Record<string, OutboxHandler>, options: OutboxWorkerOptions = {}): OutboxWorker {
  const opts = {
    leaseMs: options.leaseMs ?? 5 * 60_000,
    batch: options.batch ?? 10,
    concurrency: options.concurrency ?? 1,
    workerId: options.workerId ?? `${os.hostname()}:${process.pid}:${crypto.randomUUID().slice(0, 8)}`,
  };
  const pollMs = options.pollMs ?? 1000;
  let stopped = false;
  let wake: (() => void) | null = null;
  let kicked = false;
  const unsubscribe = onEnqueued(() => {
    kicked = true;
    wake?.();
  });
  const loop = (async () => {
    while (!stopped) {
      let claimed = 0;
      try {
        claimed = await runOutboxOnce(handlers, opts);
      } catch (err) {
        // why: a database hiccup must not kill the runner; the next poll retries.
        console.error(`outbox worker ${opts.workerId}:`, err);
      }
      // why: a notification that arrived while this batch ran must not wait for the next poll.
      if (claimed === 0 && !stopped && !kicked) {
        await new Promise<void>((resolve) => { wake = resolve; setTimeout(resolve, pollMs); });
        wake = null;
      }
      kicked = false;
    }
  })();
  return {
    workerId: opts.workerId,
    stop: async () => {
      stopped = true;
      unsubscribe();
      wake?.();
      await loop;
    },
  };
}
