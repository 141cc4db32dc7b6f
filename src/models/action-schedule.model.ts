/** A cron of a workflow of a repository's default branch, with the next time it fires. */
import { Op } from 'sequelize';
import { Table, Column, Model, DataType } from 'sequelize-typescript';
import type { DbContext } from '../db';
import { bigintColumn } from './action-runner.model';

@Table({ tableName: 'action_schedule', underscored: true, timestamps: false })
export class ActionScheduleModel extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare repoId: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare ownerId: number;
  @Column({ type: DataType.STRING(255), allowNull: false }) declare workflowId: string;
  @Column({ type: DataType.STRING(255), allowNull: false }) declare spec: string;
  @Column({ type: DataType.STRING(255), allowNull: false }) declare ref: string;
  @Column({ type: DataType.STRING(64), allowNull: false }) declare commitSha: string;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare triggerUserId: number;
  @Column(bigintColumn('next')) declare next: number;
  @Column(bigintColumn('created')) declare created: number;
}

/** A new schedule. */
export type NewSchedule = Pick<ActionScheduleModel, 'repoId' | 'ownerId' | 'workflowId' | 'spec' | 'ref' | 'commitSha' | 'triggerUserId' | 'next'>;

/** Replace the schedules of a repository (nothing is written when it has none and gets none). */
export async function replaceSchedules(ctx: DbContext, repoId: number, rows: NewSchedule[], now: number): Promise<void> {
  // why: most repositories have no schedule; their pushes need not write.
  if (rows.length === 0 && (await ActionScheduleModel.count({ where: { repoId }, transaction: ctx.tx })) === 0) return;
  await ActionScheduleModel.destroy({ where: { repoId }, transaction: ctx.tx });
  if (rows.length) await ActionScheduleModel.bulkCreate(rows.map((r) => ({ ...r, created: now })), { transaction: ctx.tx });
}

/** Schedules due at `now`, the most overdue first. */
export function dueSchedules(ctx: DbContext, now: number, limit: number): Promise<ActionScheduleModel[]> {
  return ActionScheduleModel.findAll({ where: { next: { [Op.lte]: now } }, order: [['next', 'ASC']], limit, transaction: ctx.tx });
}

/** Move a schedule on from `from` to `to`; false when another process already did (it fires there). */
export async function advanceSchedule(ctx: DbContext, id: number, from: number, to: number): Promise<boolean> {
  const [n] = await ActionScheduleModel.update({ next: to }, { where: { id, next: from }, transaction: ctx.tx });
  return n > 0;
}
