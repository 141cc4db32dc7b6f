/**
 * Gitea's hook_task table: one delivery of one event to one hook, with the request sent and the
 * response kept, and what a durable, retried delivery needs (status, attempts, the next attempt's
 * time in ms); the hook row carries the lease of its deliveries.
 */
import { Op } from 'sequelize';
import { Table, Column, Model, DataType } from 'sequelize-typescript';
import { db, type DbContext } from '../db';

/** Lifecycle of a delivery. */
export enum HookTaskStatus { Pending = 'pending', Delivered = 'delivered', Failed = 'failed' }

@Table({ tableName: 'hook_task', underscored: true, timestamps: false })
export class HookTaskModel extends Model {
  @Column({ type: DataType.BIGINT, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare hookId: number;
  @Column({ type: DataType.STRING(36), allowNull: false }) declare uuid: string;
  @Column({ type: DataType.TEXT, allowNull: false, defaultValue: '' }) declare payloadContent: string;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 2 }) declare payloadVersion: number;
  @Column({ type: DataType.STRING(64), allowNull: false, defaultValue: '' }) declare eventType: string;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: false }) declare isDelivered: boolean;
  /** When it was last tried, Unix nanoseconds (Gitea's `delivered`). */
  @Column({ type: DataType.BIGINT, allowNull: false, defaultValue: 0 }) declare delivered: number;
  @Column({ type: DataType.TEXT, allowNull: false, defaultValue: '' }) declare requestContent: string;
  @Column({ type: DataType.TEXT, allowNull: false, defaultValue: '' }) declare responseContent: string;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: false }) declare isSucceed: boolean;
  @Column({ type: DataType.STRING(16), allowNull: false, defaultValue: 'pending' }) declare status: HookTaskStatus;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare attempts: number;
  @Column({ type: DataType.BIGINT, allowNull: false, defaultValue: 0 }) declare nextAttemptMs: number;
  @Column({ type: DataType.BIGINT, allowNull: false, defaultValue: 0 }) declare createdUnix: number;
}

/** A new delivery of an event to a hook. */
export interface NewHookTask { hookId: number; uuid: string; payloadContent: string; eventType: string }

/** Queue deliveries (in the transaction of the change that caused the event). */
export async function insertHookTasks(ctx: DbContext, tasks: NewHookTask[]): Promise<void> {
  if (tasks.length === 0) return;
  const now = Date.now();
  await HookTaskModel.bulkCreate(tasks.map((t) => ({
    ...t, payloadVersion: 2, status: HookTaskStatus.Pending, nextAttemptMs: now, delivered: now * 1e6, createdUnix: Math.floor(now / 1000),
  })), { transaction: ctx.tx });
}

/** A hook's waiting deliveries, oldest first (the next `limit`). */
export function pendingTasksOf(ctx: DbContext, hookId: number, limit: number): Promise<HookTaskModel[]> {
  return HookTaskModel.findAll({ where: { hookId, status: HookTaskStatus.Pending }, order: [['id', 'ASC']], limit, transaction: ctx.tx });
}

/** The outcome of one attempt, with what the history shows; `final` ends the task even when it failed. */
export interface AttemptOutcome { id: number; succeeded: boolean; final: boolean; request: string; response: string; retryAtMs: number }

/**
 * Record attempts: delivered, failed for good, or waiting until `retryAtMs`. One statement for the
 * whole run (each row's values picked from a VALUES list by id), whatever its length.
 * why: a row at a time was a round trip per delivery, more than the delivery itself took.
 */
export async function recordHookAttempts(ctx: DbContext, outcomes: AttemptOutcome[]): Promise<void> {
  if (outcomes.length === 0) return;
  // why: PostgreSQL hands BIGINT ids over as strings; quoted, they would make the VALUES column text.
  const replacements: Record<string, unknown> = { nanos: String(BigInt(Date.now()) * 1_000_000n), pending: HookTaskStatus.Pending, ids: outcomes.map((o) => Number(o.id)) };
  const rows = outcomes.map((o, i) => {
    const done = o.succeeded || o.final;
    const status = o.succeeded ? HookTaskStatus.Delivered : o.final ? HookTaskStatus.Failed : HookTaskStatus.Pending;
    Object.assign(replacements, { [`i${i}`]: Number(o.id), [`q${i}`]: o.request, [`r${i}`]: o.response, [`k${i}`]: o.succeeded, [`d${i}`]: done, [`s${i}`]: status, [`n${i}`]: done ? 0 : o.retryAtMs });
    return `(:i${i}, :q${i}, :r${i}, :k${i}, :d${i}, :s${i}, :n${i})`;
  });
  await db().query(
    `WITH v (id, req, res, ok, done, st, nxt) AS (VALUES ${rows.join(', ')})
     UPDATE hook_task SET (request_content, response_content, is_succeed, is_delivered, status, next_attempt_ms) =
       (SELECT req, res, ok, done, st, nxt FROM v WHERE v.id = hook_task.id), attempts = attempts + 1, delivered = :nanos
     WHERE id IN (:ids) AND status = :pending`,
    { replacements, transaction: ctx.tx },
  );
}

/** A hook's deliveries, newest first, one page. */
export function listHookTasks(ctx: DbContext, hookId: number, limit: number, offset: number): Promise<{ rows: HookTaskModel[]; count: number }> {
  return HookTaskModel.findAndCountAll({ where: { hookId }, order: [['id', 'DESC']], limit, offset, transaction: ctx.tx });
}

/** One delivery of a hook by its UUID, or null. */
export function findHookTask(ctx: DbContext, hookId: number, uuid: string): Promise<HookTaskModel | null> {
  return HookTaskModel.findOne({ where: { hookId, uuid }, transaction: ctx.tx });
}

/** Delete finished deliveries last tried before `beforeMs` (Gitea's OlderThan cleanup); returns how many. */
export function pruneHookTasksOlderThan(ctx: DbContext, beforeMs: number): Promise<number> {
  return HookTaskModel.destroy({ where: { isDelivered: true, delivered: { [Op.lt]: beforeMs * 1e6 } }, transaction: ctx.tx });
}

/** Delete the finished deliveries of each hook but its newest `keep` (Gitea's PerWebhook cleanup); returns how many. */
export async function pruneHookTasksPerHook(ctx: DbContext, keep: number): Promise<number> {
  const hooks = await HookTaskModel.findAll({ attributes: ['hookId'], where: { isDelivered: true }, group: ['hookId'], transaction: ctx.tx });
  let n = 0;
  for (const { hookId } of hooks) {
    const edge = await HookTaskModel.findOne({ attributes: ['id'], where: { hookId, isDelivered: true }, order: [['id', 'DESC']], offset: keep, transaction: ctx.tx });
    if (edge) n += await HookTaskModel.destroy({ where: { hookId, isDelivered: true, id: { [Op.lte]: edge.id } }, transaction: ctx.tx });
  }
  return n;
}
