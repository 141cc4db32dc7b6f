/**
 * Gitea's hook_task table: one delivery of one event to one hook, with the request sent and the
 * response kept, and what a durable, leased, retried delivery needs (status, attempts, the next
 * attempt's time in ms, the lease).
 */
import { Op, literal } from 'sequelize';
import { Table, Column, Model, DataType } from 'sequelize-typescript';
import type { DbContext } from '../db';

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
  @Column({ type: DataType.BIGINT, allowNull: false, defaultValue: 0 }) declare leaseUntil: number;
  @Column({ type: DataType.STRING(128), allowNull: false, defaultValue: '' }) declare leasedBy: string;
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

/**
 * Lease up to `limit` due deliveries to `workerId` for `leaseMs`: of each hook only its oldest
 * waiting delivery, when its next attempt is due and no live lease holds it, so a hook's deliveries
 * go out in event order (a delivery waiting for a retry holds back the later ones of its hook) while
 * hooks go in parallel. The conditional update decides between claimers on any node.
 */
export async function claimHookTasks(ctx: DbContext, limit: number, leaseMs: number, workerId: string): Promise<HookTaskModel[]> {
  const now = Date.now();
  const heads = await HookTaskModel.findAll({
    attributes: ['id'],
    where: {
      status: HookTaskStatus.Pending, nextAttemptMs: { [Op.lte]: now }, leaseUntil: { [Op.lt]: now },
      id: { [Op.eq]: literal(`(SELECT MIN(t2.id) FROM hook_task t2 WHERE t2.hook_id = "HookTaskModel"."hook_id" AND t2.status = 'pending')`) },
    },
    order: [['id', 'ASC']], limit, transaction: ctx.tx,
  });
  if (heads.length === 0) return [];
  const ids = heads.map((h) => Number(h.id));
  await HookTaskModel.update({ leasedBy: workerId, leaseUntil: now + leaseMs }, {
    where: { id: { [Op.in]: ids }, status: HookTaskStatus.Pending, leaseUntil: { [Op.lt]: now } }, transaction: ctx.tx,
  });
  return HookTaskModel.findAll({ where: { id: { [Op.in]: ids }, leasedBy: workerId, leaseUntil: now + leaseMs }, order: [['id', 'ASC']], transaction: ctx.tx });
}

/** The outcome of one attempt, with what the history shows. */
export interface AttemptOutcome { succeeded: boolean; request: string; response: string; final: boolean; retryAtMs: number }

/** Record an attempt by the lease holder: delivered, failed for good, or back to waiting until `retryAtMs`; false when the lease was lost. */
export async function recordHookAttempt(ctx: DbContext, id: number, workerId: string, o: AttemptOutcome): Promise<boolean> {
  const done = o.succeeded || o.final;
  const [n] = await HookTaskModel.update({
    attempts: literal('attempts + 1'), requestContent: o.request, responseContent: o.response, isSucceed: o.succeeded, delivered: Date.now() * 1e6,
    isDelivered: done, status: o.succeeded ? HookTaskStatus.Delivered : o.final ? HookTaskStatus.Failed : HookTaskStatus.Pending,
    nextAttemptMs: done ? 0 : o.retryAtMs, leaseUntil: 0, leasedBy: '',
  }, { where: { id, leasedBy: workerId, status: HookTaskStatus.Pending }, transaction: ctx.tx });
  return n > 0;
}
