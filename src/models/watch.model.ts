/** user_id watches repo_id; repository.num_watches is kept in step by these functions. */
import type { DbContext } from '../db';
import { Table, Column, Model, DataType } from 'sequelize-typescript';
import { RepositoryModel } from './repository.model';

@Table({ tableName: 'watch', underscored: true, timestamps: true })
export class WatchModel extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare userId: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare repoId: number;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 1 }) declare mode: number;
  declare createdAt: Date;
}

/** The watch row of `userId` on `repoId`, or null. */
export function findWatch(ctx: DbContext, userId: number, repoId: number): Promise<WatchModel | null> {
  return WatchModel.findOne({ where: { userId, repoId }, transaction: ctx.tx });
}

/** Does anyone but `userId` watch the repository (so that an event in it reaches someone)? */
export async function othersWatch(ctx: DbContext, repo: RepositoryModel, userId: number): Promise<boolean> {
  if (repo.numWatches === 0) return false;
  return repo.numWatches > 1 || !(await findWatch(ctx, userId, repo.id));
}

/** Record a watch and bump repository.num_watches (call inside a transaction). */
export async function insertWatch(ctx: DbContext, userId: number, repoId: number): Promise<WatchModel> {
  const w = await WatchModel.create({ userId, repoId, mode: 1 }, { transaction: ctx.tx });
  await RepositoryModel.increment({ numWatches: 1 }, { where: { id: repoId }, transaction: ctx.tx });
  return w;
}

/** Remove a watch and lower the counter; false when there was none (call inside a transaction). */
export async function deleteWatch(ctx: DbContext, userId: number, repoId: number): Promise<boolean> {
  const n = await WatchModel.destroy({ where: { userId, repoId }, transaction: ctx.tx });
  if (n === 0) return false;
  await RepositoryModel.decrement({ numWatches: n }, { where: { id: repoId }, transaction: ctx.tx });
  return true;
}

/** Ids of the repositories `userId` watches, newest first. */
export async function watchedRepoIds(ctx: DbContext, userId: number): Promise<number[]> {
  const rows = await WatchModel.findAll({ where: { userId }, attributes: ['repoId'], order: [['id', 'DESC']], transaction: ctx.tx });
  return rows.map((r) => r.repoId);
}

/** One page of the ids of users watching `repoId`. */
export async function listWatcherIds(ctx: DbContext, repoId: number, limit: number, offset: number): Promise<{ ids: number[]; count: number }> {
  const { rows, count } = await WatchModel.findAndCountAll({ where: { repoId }, attributes: ['userId'], order: [['id', 'ASC']], limit, offset, transaction: ctx.tx });
  return { ids: rows.map((r) => r.userId), count };
}
