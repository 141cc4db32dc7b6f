/** File locks of the LFS locking API, one per (repository, path) with paths compared case-insensitively. */
import type { DbContext } from '../db';
import { Op, col, fn, where } from 'sequelize';
import { Table, Column, Model, DataType } from 'sequelize-typescript';

@Table({ tableName: 'lfs_lock', underscored: true, timestamps: false })
export class LfsLockModel extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare repoId: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare ownerId: number;
  @Column({ type: DataType.TEXT, allowNull: false }) declare path: string;
  @Column({ type: DataType.BIGINT, allowNull: false }) declare createdUnix: number;
}

/** The lock on `path` (any case) in a repository, or null. */
export function findLfsLockByPath(ctx: DbContext, repoId: number, path: string): Promise<LfsLockModel | null> {
  return LfsLockModel.findOne({ where: { [Op.and]: [{ repoId }, where(fn('lower', col('path')), path.toLowerCase())] }, transaction: ctx.tx });
}

/** A lock by id, only when it belongs to `repoId` (locks of other repositories do not exist here). */
export function findLfsLockInRepo(ctx: DbContext, repoId: number, id: number): Promise<LfsLockModel | null> {
  return LfsLockModel.findOne({ where: { id, repoId }, transaction: ctx.tx });
}

/** Insert a lock; a unique violation (the path is locked) propagates to the caller. */
export function insertLfsLock(ctx: DbContext, repoId: number, ownerId: number, path: string): Promise<LfsLockModel> {
  return LfsLockModel.create({ repoId, ownerId, path, createdUnix: Math.floor(Date.now() / 1000) }, { transaction: ctx.tx });
}

/** One page of a repository's locks in creation order. */
export function listLfsLocks(ctx: DbContext, repoId: number, limit: number, offset: number): Promise<LfsLockModel[]> {
  return LfsLockModel.findAll({ where: { repoId }, order: [['id', 'ASC']], limit, offset, transaction: ctx.tx });
}

/** Delete a lock of a repository; false when it was already gone. */
export async function deleteLfsLock(ctx: DbContext, repoId: number, id: number): Promise<boolean> {
  return (await LfsLockModel.destroy({ where: { id, repoId }, transaction: ctx.tx })) > 0;
}
