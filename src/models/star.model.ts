/** uid starred repo_id; the counters on users and repository are kept in step by these functions. */
import type { DbContext } from '../db';
import { Table, Column, Model, DataType } from 'sequelize-typescript';
import { UserModel } from './user.model';
import { RepositoryModel } from './repository.model';

@Table({ tableName: 'star', underscored: true, timestamps: true })
export class StarModel extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare uid: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare repoId: number;
  declare createdAt: Date;
}

/** Has `uid` starred `repoId`? */
export async function isStarring(ctx: DbContext, uid: number, repoId: number): Promise<boolean> {
  return (await StarModel.count({ where: { uid, repoId }, transaction: ctx.tx })) > 0;
}

/** Record a star and bump both counters (call inside a transaction). */
export async function insertStar(ctx: DbContext, uid: number, repoId: number): Promise<void> {
  await StarModel.create({ uid, repoId }, { transaction: ctx.tx });
  await UserModel.increment({ numStars: 1 }, { where: { id: uid }, transaction: ctx.tx });
  await RepositoryModel.increment({ numStars: 1 }, { where: { id: repoId }, transaction: ctx.tx });
}

/** Remove a star and lower both counters; false when there was none (call inside a transaction). */
export async function deleteStar(ctx: DbContext, uid: number, repoId: number): Promise<boolean> {
  const n = await StarModel.destroy({ where: { uid, repoId }, transaction: ctx.tx });
  if (n === 0) return false;
  await UserModel.decrement({ numStars: n }, { where: { id: uid }, transaction: ctx.tx });
  await RepositoryModel.decrement({ numStars: n }, { where: { id: repoId }, transaction: ctx.tx });
  return true;
}

/** Ids of the repositories `uid` starred, newest star first. */
export async function starredRepoIds(ctx: DbContext, uid: number): Promise<number[]> {
  const rows = await StarModel.findAll({ where: { uid }, attributes: ['repoId'], order: [['id', 'DESC']], transaction: ctx.tx });
  return rows.map((r) => r.repoId);
}

/** One page of the users who starred `repoId`, in starring order. */
export async function listStargazers(ctx: DbContext, repoId: number, limit: number, offset: number): Promise<{ ids: number[]; count: number }> {
  const { rows, count } = await StarModel.findAndCountAll({ where: { repoId }, attributes: ['uid'], order: [['id', 'ASC']], limit, offset, transaction: ctx.tx });
  return { ids: rows.map((r) => r.uid), count };
}

/** Repositories by id (any order); used to resolve star and watch lists. */
export function findReposByIds(ctx: DbContext, ids: number[]): Promise<RepositoryModel[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return RepositoryModel.findAll({ where: { id: ids }, transaction: ctx.tx });
}
