/** Gitea's tracked_time table: time users spent on issues, in seconds (deleted rows are kept, flagged). */
import type { DbContext } from '../db';
import { Op, type WhereOptions } from 'sequelize';
import { Table, Column, Model, DataType } from 'sequelize-typescript';

@Table({ tableName: 'tracked_time', underscored: true, timestamps: false })
export class TrackedTimeModel extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare issueId: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare userId: number;
  @Column({ type: DataType.BIGINT, allowNull: false, defaultValue: 0 }) declare createdUnix: number;
  @Column({ type: DataType.BIGINT, allowNull: false, defaultValue: 0 }) declare time: number;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: false }) declare deleted: boolean;
}

/** Insert a tracked time. */
export function insertTrackedTime(ctx: DbContext, t: { issueId: number; userId: number; createdUnix: number; time: number }): Promise<TrackedTimeModel> {
  return TrackedTimeModel.create({ ...t }, { transaction: ctx.tx });
}

/** What a tracked-time listing filters on (deleted rows never show). */
export interface TrackedTimeFilter { issueId?: number; userId?: number; repoId?: number; since?: number; before?: number }

/** Tracked times matching `f`, oldest first; one page when `limit` is given. */
export async function listTrackedTimes(ctx: DbContext, f: TrackedTimeFilter, limit?: number, offset?: number): Promise<{ rows: TrackedTimeModel[]; count: number }> {
  const and: WhereOptions[] = [{ deleted: false }];
  if (f.issueId !== undefined) and.push({ issueId: f.issueId });
  if (f.userId !== undefined) and.push({ userId: f.userId });
  if (f.repoId !== undefined) and.push({ issueId: { [Op.in]: TrackedTimeModel.sequelize!.literal(`(SELECT id FROM issue WHERE repo_id = ${Number(f.repoId)})`) } });
  if (f.since) and.push({ createdUnix: { [Op.gte]: f.since } });
  if (f.before) and.push({ createdUnix: { [Op.lte]: f.before } });
  const where = { [Op.and]: and };
  const rows = await TrackedTimeModel.findAll({ where, order: [['createdUnix', 'ASC'], ['id', 'ASC']], limit, offset, transaction: ctx.tx });
  return { rows, count: limit === undefined ? rows.length : await TrackedTimeModel.count({ where, transaction: ctx.tx }) };
}

/** A tracked time by id, or null. */
export function findTrackedTime(ctx: DbContext, id: number): Promise<TrackedTimeModel | null> {
  if (!Number.isSafeInteger(id)) return Promise.resolve(null);
  return TrackedTimeModel.findByPk(id, { transaction: ctx.tx });
}

/** Tracked times by id. */
export function findTrackedTimes(ctx: DbContext, ids: number[]): Promise<TrackedTimeModel[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return TrackedTimeModel.findAll({ where: { id: { [Op.in]: ids } }, transaction: ctx.tx });
}

/** Flag tracked times deleted. */
export async function markTrackedTimesDeleted(ctx: DbContext, ids: number[]): Promise<void> {
  if (ids.length === 0) return;
  await TrackedTimeModel.update({ deleted: true }, { where: { id: { [Op.in]: ids } }, transaction: ctx.tx });
}
