/**
 * The durable outbox (docs/ARCHITECTURE.md: PostgreSQL is the queue): services enqueue side effects inside
 * their own transaction; workers claim them with a lease, then complete or fail them.
 */
import { EventEmitter } from 'node:events';
import type { DbContext } from '../db';
import {
  enqueueOutbox, enqueueOutboxMany, claimOutbox, completeOutbox, failOutbox, outboxBackoffMs, removeOutboxHeld, outboxBacklog, outboxDepthByTopic, type OutboxJob,
} from '../models/outbox.model';

export type { OutboxJob } from '../models/outbox.model';
export { outboxBackoffMs, outboxBacklog, outboxDepthByTopic };

/** Record a job to run after ctx's transaction commits (nothing is recorded if it rolls back). */
export function enqueue(ctx: DbContext, topic: string, payload: unknown): Promise<number> {
  return enqueueOutbox(ctx, topic, payload);
}

/** Record one job per payload, in one statement, inside ctx's transaction. */
export function enqueueMany(ctx: DbContext, topic: string, payloads: unknown[]): Promise<void> {
  return enqueueOutboxMany(ctx, topic, payloads);
}

/** Lease up to `limit` due jobs of `topics` to `workerId` for `leaseMs`. */
export function claim(ctx: DbContext, topics: string[], limit: number, leaseMs: number, workerId: string): Promise<OutboxJob[]> {
  return claimOutbox(ctx, topics, limit, leaseMs, workerId);
}

/** Mark a job done; false when workerId no longer holds it (idempotent by id). */
export function complete(ctx: DbContext, id: number, workerId: string): Promise<boolean> {
  return completeOutbox(ctx, id, workerId);
}

/**
 * Complete a job inside the transaction that writes its effects, so they commit together and a
 * replay after a crash finds the job done. Throws (rolling the transaction back) when the lease
 * was lost: the runner that now holds the job writes them.
 */
export async function completeInTx(tx: DbContext, job: { id: number; workerId: string }): Promise<void> {
  if (!(await completeOutbox(tx, job.id, job.workerId))) throw new Error(`outbox job ${job.id}: the lease was lost; its new holder runs it`);
}

/** Finish held jobs by removing them (their payload was the whole work); returns how many were still held. */
export function completeAndRemove(ctx: DbContext, ids: number[], workerId: string): Promise<number> {
  return removeOutboxHeld(ctx, ids, workerId);
}

/** Record a failure: retried after an exponential backoff, dead after too many attempts. */
export function fail(ctx: DbContext, id: number, workerId: string, error: unknown): Promise<boolean> {
  const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
  return failOutbox(ctx, id, workerId, text);
}

const signals = new EventEmitter();

/**
 * Tell this process's outbox runners that jobs were committed, so they claim them now instead of
 * at their next poll. Call after the enqueuing transaction commits.
 */
export function notifyEnqueued(): void {
  signals.emit('enqueued');
}

/** Subscribe to notifyEnqueued; returns the unsubscribe function. */
export function onEnqueued(fn: () => void): () => void {
  signals.on('enqueued', fn);
  return () => signals.off('enqueued', fn);
}
