/**
 * The durable outbox table and its queue operations: enqueue inside the caller's transaction,
 * claim with a lease (FOR UPDATE SKIP LOCKED on PostgreSQL), complete, fail with backoff.
 */
import { Op, Transaction, col, fn } from 'sequelize';
import { Table, Column, Model, DataType } from 'sequelize-typescript';
import { withTx, type DbContext } from '../db';

/** Lifecycle of an outbox row. */
export enum OutboxStatus {
  Pending = 'pending',
  Leased = 'leased',
  Done = 'done',
  /** Gave up after MAX_ATTEMPTS failures; kept for inspection. */
  Dead = 'dead',
}

/** Failures after which a job stops being retried. */
export const OUTBOX_MAX_ATTEMPTS = 10;
/** First retry delay; doubles with every attempt. */
export const OUTBOX_BACKOFF_BASE_MS = 1000;
/** Longest retry delay. */
export const OUTBOX_BACKOFF_MAX_MS = 60 * 60 * 1000;

@Table({ tableName: 'outbox', underscored: true, timestamps: true })
export class OutboxModel extends Model {
  @Column({ type: DataType.BIGINT, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.STRING(64), allowNull: false }) declare topic: string;
  @Column({ type: DataType.TEXT, allowNull: false }) declare payload: string;
  @Column({ type: DataType.STRING(16), allowNull: false }) declare status: OutboxStatus;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare attempts: number;
  @Column({ type: DataType.BIGINT, allowNull: false }) declare availableAt: number;
  @Column({ type: DataType.BIGINT, allowNull: true }) declare leaseUntil: number | null;
  @Column({ type: DataType.STRING(128), allowNull: true }) declare leasedBy: string | null;
  @Column({ type: DataType.TEXT, allowNull: true }) declare lastError: string | null;
  declare createdAt: Date;
  declare updatedAt: Date;
}

/** A claimed job as a worker sees it. */
export interface OutboxJob {
  id: number;
  topic: string;
  payload: unknown;
  /** Including this one. */
  attempts: number;
}

/**
 * Record a job. Pass the transaction of the change that causes it.
 * why: the job commits or rolls back with that change, so a crash never loses a side effect
 * of a committed change nor runs one for a rolled-back change.
 */
export async function enqueueOutbox(ctx: DbContext, topic: string, payload: unknown, delayMs = 0): Promise<number> {
  const row = await OutboxModel.create({
    topic, payload: JSON.stringify(payload ?? null), status: OutboxStatus.Pending, attempts: 0, availableAt: Date.now() + delayMs,
  }, { transaction: ctx.tx });
  return Number(row.id);
}

/**
 * Lease up to `limit` due jobs of `topics` to `workerId` for `leaseMs`. A job is due when it is
 * pending and available, or leased with an expired lease (its worker crashed or stalled).
 * why: on PostgreSQL the rows are selected FOR UPDATE SKIP LOCKED inside one transaction, so
 * concurrent claimers on any node take disjoint rows without waiting on each other; on SQLite
 * the transaction is IMMEDIATE (the database's single write lock), which serializes claimers.
 */
export async function claimOutbox(ctx: DbContext, topics: string[], limit: number, leaseMs: number, workerId: string): Promise<OutboxJob[]> {
  if (topics.length === 0 || limit <= 0) return [];
  return withTx(ctx, async ({ tx }) => {
    const now = Date.now();
    const rows = await OutboxModel.findAll({
      where: {
        topic: { [Op.in]: topics },
        [Op.or]: [
          { status: OutboxStatus.Pending, availableAt: { [Op.lte]: now } },
          { status: OutboxStatus.Leased, leaseUntil: { [Op.lte]: now } },
        ],
      },
      order: [['id', 'ASC']],
      limit,
      transaction: tx,
      ...(tx && OutboxModel.sequelize?.getDialect() === 'postgres' ? { lock: Transaction.LOCK.UPDATE, skipLocked: true } : {}),
    });
    if (rows.length === 0) return [];
    const ids = rows.map((r) => Number(r.id));
    await OutboxModel.update(
      { status: OutboxStatus.Leased, leaseUntil: now + leaseMs, leasedBy: workerId, attempts: OutboxModel.sequelize!.literal('attempts + 1') },
      { where: { id: { [Op.in]: ids } }, transaction: tx },
    );
    return rows.map((r) => ({ id: Number(r.id), topic: r.topic, payload: JSON.parse(r.payload) as unknown, attempts: r.attempts + 1 }));
  });
}

/**
 * Mark a job done. Only the current lease holder can; returns false otherwise (already done,
 * or the lease expired and another worker took the job).
 * why: completion is idempotent by id — a stalled worker that wakes up late cannot mark done a
 * job now owned by someone else, and completing twice changes nothing.
 */
export async function completeOutbox(ctx: DbContext, id: number, workerId: string): Promise<boolean> {
  const [n] = await OutboxModel.update(
    { status: OutboxStatus.Done, leaseUntil: null, lastError: null },
    { where: { id, status: OutboxStatus.Leased, leasedBy: workerId }, transaction: ctx.tx },
  );
  return n > 0;
}

/** The retry delay after `attempts` failed attempts: base x 2^(attempts-1), capped. */
export function outboxBackoffMs(attempts: number): number {
  return Math.min(OUTBOX_BACKOFF_MAX_MS, OUTBOX_BACKOFF_BASE_MS * 2 ** Math.max(0, attempts - 1));
}

/**
 * Record a failed attempt: back to pending after an exponential backoff, or dead after
 * OUTBOX_MAX_ATTEMPTS. Only the lease holder can; returns false otherwise.
 */
export async function failOutbox(ctx: DbContext, id: number, workerId: string, error: string): Promise<boolean> {
  return withTx(ctx, async ({ tx }) => {
    const row = await OutboxModel.findOne({ where: { id, status: OutboxStatus.Leased, leasedBy: workerId }, transaction: tx });
    if (!row) return false;
    const dead = row.attempts >= OUTBOX_MAX_ATTEMPTS;
    await OutboxModel.update({
      status: dead ? OutboxStatus.Dead : OutboxStatus.Pending,
      availableAt: Date.now() + outboxBackoffMs(row.attempts),
      leaseUntil: null, leasedBy: null, lastError: error.slice(0, 4000),
    }, { where: { id, leasedBy: workerId, status: OutboxStatus.Leased }, transaction: tx });
    return true;
  });
}

/** One job by id (tests, admin inspection). */
export function findOutbox(ctx: DbContext, id: number): Promise<OutboxModel | null> {
  return OutboxModel.findByPk(id, { transaction: ctx.tx });
}

/** Number of jobs, optionally of one topic (tests, admin inspection). */
export function countOutbox(ctx: DbContext, topic?: string): Promise<number> {
  return OutboxModel.count({ where: topic ? { topic } : {}, transaction: ctx.tx });
}

/** Record many jobs of one topic in one statement (a mail per recipient); ids are not returned. */
export async function enqueueOutboxMany(ctx: DbContext, topic: string, payloads: unknown[]): Promise<void> {
  if (payloads.length === 0) return;
  const now = Date.now();
  await OutboxModel.bulkCreate(payloads.map((p) => ({
    topic, payload: JSON.stringify(p ?? null), status: OutboxStatus.Pending, attempts: 0, availableAt: now,
  })), { transaction: ctx.tx });
}

/**
 * Finish jobs this worker holds by deleting them, in one statement; returns how many it still held.
 * why: for jobs whose payload is the whole work (a rendered mail), a kept row is only a copy of
 * what was sent; deleting by lease holder is as idempotent as marking done.
 */
export async function removeOutboxHeld(ctx: DbContext, ids: number[], workerId: string): Promise<number> {
  if (ids.length === 0) return 0;
  return OutboxModel.destroy({ where: { id: { [Op.in]: ids }, status: OutboxStatus.Leased, leasedBy: workerId }, transaction: ctx.tx });
}

/** Jobs of a topic by status: how many wait (pending or leased), how many were given up, the oldest waiting one's creation. */
export async function outboxBacklog(ctx: DbContext, topic: string): Promise<{ waiting: number; dead: number; oldest: Date | null }> {
  const [waiting, dead, first] = await Promise.all([
    OutboxModel.count({ where: { topic, status: { [Op.in]: [OutboxStatus.Pending, OutboxStatus.Leased] } }, transaction: ctx.tx }),
    OutboxModel.count({ where: { topic, status: OutboxStatus.Dead }, transaction: ctx.tx }),
    OutboxModel.findOne({ where: { topic, status: { [Op.in]: [OutboxStatus.Pending, OutboxStatus.Leased] } }, order: [['id', 'ASC']], attributes: ['createdAt'], transaction: ctx.tx }),
  ]);
  return { waiting, dead, oldest: first?.createdAt ?? null };
}

/** One topic's jobs by state, for the monitor page. */
export interface OutboxTopicDepth { topic: string; pending: number; leased: number; dead: number; oldestWaiting: Date | null }

/**
 * Every topic's jobs by state in one grouped statement, and the oldest waiting job of each.
 * why: done rows are left out (the table keeps them a while); the monitor page must stay cheap.
 */
export async function outboxDepthByTopic(ctx: DbContext): Promise<OutboxTopicDepth[]> {
  const rows = await OutboxModel.findAll({
    attributes: ['topic', 'status', [fn('COUNT', col('id')), 'n'], [fn('MIN', col('created_at')), 'oldest']],
    where: { status: { [Op.in]: [OutboxStatus.Pending, OutboxStatus.Leased, OutboxStatus.Dead] } },
    group: ['topic', 'status'], raw: true, transaction: ctx.tx,
  }) as unknown as { topic: string; status: OutboxStatus; n: number | string; oldest: string | Date | null }[];
  const by = new Map<string, OutboxTopicDepth>();
  for (const r of rows) {
    const d = by.get(r.topic) ?? { topic: r.topic, pending: 0, leased: 0, dead: 0, oldestWaiting: null };
    const n = Number(r.n);
    if (r.status === OutboxStatus.Dead) d.dead += n;
    else {
      if (r.status === OutboxStatus.Leased) d.leased += n; else d.pending += n;
      const at = r.oldest ? new Date(r.oldest) : null;
      if (at && (!d.oldestWaiting || at < d.oldestWaiting)) d.oldestWaiting = at;
    }
    by.set(r.topic, d);
  }
  return [...by.values()].sort((a, b) => a.topic.localeCompare(b.topic));
}
