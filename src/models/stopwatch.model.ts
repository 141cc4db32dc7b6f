/** Gitea's stopwatch table: a running timer of a user on an issue. */
import type { DbContext } from '../db';
import { Table, Column, Model, DataType } from 'sequelize-typescript';
import { nowUnix } from './issue.model';

@Table({ tableName: 'stopwatch', underscored: true, timestamps: false })
export class StopwatchModel extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare issueId: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare userId: number;
  @Column({ type: DataType.BIGINT, allowNull: false, defaultValue: 0 }) declare createdUnix: number;
}

/** The user's running stopwatches (Gitea allows one; the oldest first). */
export function stopwatchesOf(ctx: DbContext, userId: number): Promise<StopwatchModel[]> {
  return StopwatchModel.findAll({ where: { userId }, order: [['id', 'ASC']], transaction: ctx.tx });
}

/** The user's stopwatch on an issue, or null. */
export function findStopwatch(ctx: DbContext, userId: number, issueId: number): Promise<StopwatchModel | null> {
  return StopwatchModel.findOne({ where: { userId, issueId }, transaction: ctx.tx });
}

/** Start a stopwatch. */
export function insertStopwatch(ctx: DbContext, userId: number, issueId: number): Promise<StopwatchModel> {
  return StopwatchModel.create({ userId, issueId, createdUnix: nowUnix() }, { transaction: ctx.tx });
}

/** Remove a stopwatch. */
export async function deleteStopwatch(ctx: DbContext, id: number): Promise<void> {
  await StopwatchModel.destroy({ where: { id }, transaction: ctx.tx });
}
