/**
 * Gitea's webhook table: a hook of a repository (repo_id), of a user or organization (owner_id),
 * or of the instance (neither: a system hook, or a default hook copied into new repositories).
 * `events` holds Gitea's HookEvent JSON (push_only, send_everything, choose_events, the chosen
 * events and the branch filter). Times are Unix seconds.
 */
import { Op, literal } from 'sequelize';
import { Table, Column, Model, DataType } from 'sequelize-typescript';
import type { DbContext } from '../db';
import { HookTaskModel } from './hook-task.model';
import { nowUnix } from './issue.model';
import { TableCache, readOnlyRow } from './table-cache';

/** Gitea's HookContentType. */
export enum HookContentType { Json = 1, Form = 2 }

/** Gitea's HookStatus (the last delivery's outcome). */
export enum HookStatus { None = 0, Succeed = 1, Fail = 2 }

@Table({ tableName: 'webhook', underscored: true, timestamps: false })
export class WebhookModel extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare repoId: number;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare ownerId: number;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: false }) declare isSystemWebhook: boolean;
  @Column({ type: DataType.TEXT, allowNull: false, defaultValue: '' }) declare url: string;
  @Column({ type: DataType.STRING(8), allowNull: false, defaultValue: 'POST' }) declare httpMethod: string;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare contentType: HookContentType;
  @Column({ type: DataType.TEXT, allowNull: false, defaultValue: '' }) declare secret: string;
  @Column({ type: DataType.TEXT, allowNull: false, defaultValue: '' }) declare events: string;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: false }) declare isActive: boolean;
  @Column({ type: DataType.STRING(16), allowNull: false, defaultValue: 'gitea' }) declare type: string;
  @Column({ type: DataType.TEXT, allowNull: false, defaultValue: '' }) declare meta: string;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare lastStatus: HookStatus;
  @Column({ type: DataType.TEXT, allowNull: false, defaultValue: '' }) declare headerAuthorizationEncrypted: string;
  @Column({ type: DataType.STRING(128), allowNull: false, defaultValue: '' }) declare deliveryLeasedBy: string;
  @Column({ type: DataType.BIGINT, allowNull: false, defaultValue: 0 }) declare deliveryLeaseUntil: number;
  @Column({ type: DataType.BIGINT, allowNull: false, defaultValue: 0 }) declare nextDeliveryMs: number;
  @Column({ type: DataType.BIGINT, allowNull: false, defaultValue: 0 }) declare createdUnix: number;
  @Column({ type: DataType.BIGINT, allowNull: false, defaultValue: 0 }) declare updatedUnix: number;
}

/** Where a hook belongs. */
export type HookScope = { repoId: number } | { ownerId: number } | { system: boolean };

function scopeWhere(s: HookScope): Record<string, unknown> {
  if ('repoId' in s) return { repoId: s.repoId };
  if ('ownerId' in s) return { ownerId: s.ownerId, repoId: 0 };
  // why: instance hooks have neither a repository nor an owner; the flag tells system hooks from default ones.
  return { repoId: 0, ownerId: 0, isSystemWebhook: s.system };
}

/** The fields of a new hook. */
export type NewWebhook = Omit<WebhookModel, 'id' | 'createdUnix' | 'updatedUnix' | 'lastStatus' | 'deliveryLeasedBy' | 'deliveryLeaseUntil' | 'nextDeliveryMs'>;

/** Insert a hook. */
export function insertWebhook(ctx: DbContext, h: Partial<NewWebhook>): Promise<WebhookModel> {
  const now = nowUnix();
  return WebhookModel.create({ ...h, createdUnix: now, updatedUnix: now }, { transaction: ctx.tx });
}

/** The hooks of one scope, oldest first, one page. */
export function listWebhooks(ctx: DbContext, s: HookScope, limit: number, offset: number): Promise<{ rows: WebhookModel[]; count: number }> {
  return WebhookModel.findAndCountAll({ where: scopeWhere(s), order: [['id', 'ASC']], limit, offset, transaction: ctx.tx });
}

/** The instance's hooks, system and default ones both, oldest first, one page. */
export function listInstanceWebhooks(ctx: DbContext, limit: number, offset: number): Promise<{ rows: WebhookModel[]; count: number }> {
  return WebhookModel.findAndCountAll({ where: { repoId: 0, ownerId: 0 }, order: [['id', 'ASC']], limit, offset, transaction: ctx.tx });
}

/** A hook of a scope by id (instance scope: either kind), or null. */
export function findWebhook(ctx: DbContext, s: HookScope | 'instance', id: number): Promise<WebhookModel | null> {
  if (!Number.isSafeInteger(id)) return Promise.resolve(null);
  const where = s === 'instance' ? { id, repoId: 0, ownerId: 0 } : { id, ...scopeWhere(s) };
  return WebhookModel.findOne({ where, transaction: ctx.tx });
}

const eventHooks = new TableCache<WebhookModel[]>('event-hooks', ['webhook']);

/**
 * The active hooks an event of repository `repoId` (owned by `ownerId`) goes to: its own, its
 * owner's and the system's (cached until a hook is written).
 */
export function hooksForEvent(ctx: DbContext, repoId: number, ownerId: number): Promise<WebhookModel[]> {
  return eventHooks.get(ctx, `${repoId}:${ownerId}`, async () => (await WebhookModel.findAll({
    where: { isActive: true, [Op.or]: [{ repoId }, { ownerId, repoId: 0 }, { repoId: 0, ownerId: 0, isSystemWebhook: true }] },
    order: [['id', 'ASC']], transaction: ctx.tx,
  })).map(readOnlyRow));
}

/** Save a changed hook. */
export async function saveWebhook(ctx: DbContext, h: WebhookModel): Promise<void> {
  h.updatedUnix = nowUnix();
  await h.save({ transaction: ctx.tx });
}

/** Delete a hook and its deliveries. */
export async function deleteWebhook(ctx: DbContext, id: number): Promise<void> {
  await HookTaskModel.destroy({ where: { hookId: id }, transaction: ctx.tx });
  await WebhookModel.destroy({ where: { id }, transaction: ctx.tx });
}

/**
 * Lease up to `limit` hooks with deliveries to make to `workerId` until `now + leaseMs`: hooks with
 * a waiting delivery, not waiting for a retry, and not leased by a live worker. The conditional
 * update decides between claimers on any node; the leaseholder alone sends the hook's deliveries,
 * one at a time in event order. Returns the leased hooks.
 */
export async function leaseDueHooks(ctx: DbContext, limit: number, leaseMs: number, workerId: string): Promise<WebhookModel[]> {
  const now = Date.now();
  const due = await WebhookModel.findAll({
    attributes: ['id'],
    where: {
      deliveryLeaseUntil: { [Op.lt]: now }, nextDeliveryMs: { [Op.lte]: now },
      // why: by the (hook_id, status, id) index, one probe per hook; a list of the pending tasks' hooks read every task.
      [Op.and]: [literal(`EXISTS (SELECT 1 FROM hook_task t WHERE t.hook_id = "WebhookModel"."id" AND t.status = 'pending')`)],
    },
    order: [['deliveryLeaseUntil', 'ASC']], limit, transaction: ctx.tx,
  });
  if (due.length === 0) return [];
  const ids = due.map((h) => h.id);
  const until = now + leaseMs;
  await WebhookModel.update({ deliveryLeasedBy: workerId, deliveryLeaseUntil: until }, {
    where: { id: { [Op.in]: ids }, deliveryLeaseUntil: { [Op.lt]: now } }, transaction: ctx.tx,
  });
  return WebhookModel.findAll({ where: { id: { [Op.in]: ids }, deliveryLeasedBy: workerId, deliveryLeaseUntil: until }, transaction: ctx.tx });
}

/** Extend a lease still held; false when it was lost (expired and taken by another worker). */
export async function renewHookLease(ctx: DbContext, id: number, workerId: string, leaseMs: number): Promise<boolean> {
  const [n] = await WebhookModel.update({ deliveryLeaseUntil: Date.now() + leaseMs }, { where: { id, deliveryLeasedBy: workerId }, transaction: ctx.tx });
  return n > 0;
}

/** Give a hook's lease back, with when its next delivery is due (0: now) and the last delivery's outcome. */
export async function releaseHook(ctx: DbContext, id: number, workerId: string, nextDeliveryMs: number, lastStatus: HookStatus): Promise<void> {
  await WebhookModel.update({ deliveryLeasedBy: '', deliveryLeaseUntil: 0, nextDeliveryMs, ...(lastStatus ? { lastStatus } : {}) }, {
    where: { id, deliveryLeasedBy: workerId }, transaction: ctx.tx,
  });
}

/** Give back every hook lease (a node alone on its database starting: no worker holding one is alive). */
export async function releaseAllHookLeases(ctx: DbContext): Promise<void> {
  await WebhookModel.update({ deliveryLeasedBy: '', deliveryLeaseUntil: 0 }, { where: { deliveryLeaseUntil: { [Op.gt]: 0 } }, transaction: ctx.tx });
}

/** Delete the hooks of a repository or of an owner (user or organization) with their deliveries. */
export async function deleteWebhooksOf(ctx: DbContext, s: { repoId: number } | { ownerId: number }): Promise<void> {
  const where = 'repoId' in s ? { repoId: s.repoId } : { ownerId: s.ownerId, repoId: 0 };
  const ids = (await WebhookModel.findAll({ attributes: ['id'], where, transaction: ctx.tx })).map((h) => h.id);
  if (ids.length === 0) return;
  await HookTaskModel.destroy({ where: { hookId: ids }, transaction: ctx.tx });
  await WebhookModel.destroy({ where: { id: ids }, transaction: ctx.tx });
}

/** Copy the instance's default hooks into a new repository (Gitea's CopyDefaultWebhooksToRepo). */
export async function copyDefaultWebhooks(ctx: DbContext, repoId: number): Promise<void> {
  const defaults = await WebhookModel.findAll({ where: { repoId: 0, ownerId: 0, isSystemWebhook: false }, transaction: ctx.tx });
  const now = nowUnix();
  if (defaults.length === 0) return;
  await WebhookModel.bulkCreate(defaults.map((h) => {
    const { id: _id, deliveryLeasedBy: _by, deliveryLeaseUntil: _until, nextDeliveryMs: _next, lastStatus: _last, ...rest } = h.get({ plain: true }) as WebhookModel;
    return { ...rest, repoId, createdUnix: now, updatedUnix: now };
  }), { transaction: ctx.tx });
}
