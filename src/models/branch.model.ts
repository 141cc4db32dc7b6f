/** The branch table: each branch's last processed commit, and deleted branches with who deleted them. */
import type { DbContext } from '../db';
import { Table, Column, Model, DataType } from 'sequelize-typescript';
import { Op } from 'sequelize';
import { readOnlyRow, TableCache } from './table-cache';

@Table({ tableName: 'branch', underscored: true, timestamps: true })
export class BranchModel extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare repoId: number;
  @Column({ type: DataType.STRING(255), allowNull: false }) declare name: string;
  @Column({ type: DataType.STRING(64), allowNull: false }) declare commitId: string;
  @Column({ type: DataType.TEXT, allowNull: false, defaultValue: '' }) declare commitMessage: string;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare pusherId: number;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: false }) declare isDeleted: boolean;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare deletedById: number;
  @Column({ type: DataType.DATE, allowNull: true }) declare deletedAt: Date | null;
  @Column({ type: DataType.DATE, allowNull: true }) declare commitTime: Date | null;
  declare createdAt: Date;
  declare updatedAt: Date;
}

/** Every branch row of a repository, deleted ones included. */
export function listBranchRows(ctx: DbContext, repoId: number): Promise<BranchModel[]> {
  return BranchModel.findAll({ where: { repoId }, order: [['id', 'ASC']], transaction: ctx.tx });
}

/** The live rows of the named branches of a repository. */
export function liveBranchRows(ctx: DbContext, repoId: number, names: string[]): Promise<BranchModel[]> {
  if (names.length === 0) return Promise.resolve([]);
  return BranchModel.findAll({ where: { repoId, name: names, isDeleted: false }, transaction: ctx.tx });
}

/** A branch's new head as processed from a push. */
export interface BranchHead { name: string; commitId: string; commitMessage: string; commitTime: Date | null; pusherId: number }

/** Insert or revive-and-update the row of `head.name`. */
export async function upsertBranch(ctx: DbContext, repoId: number, head: BranchHead): Promise<void> {
  const values = { ...head, isDeleted: false, deletedById: 0, deletedAt: null };
  const [n] = await BranchModel.update(values, { where: { repoId, name: head.name }, transaction: ctx.tx });
  if (n === 0) await BranchModel.create({ repoId, ...values }, { transaction: ctx.tx });
}

/** Mark a branch deleted (kept for "restore branch" and the deleted-branch list). */
export async function markBranchDeleted(ctx: DbContext, repoId: number, name: string, deletedById: number, at: Date): Promise<void> {
  await BranchModel.update({ isDeleted: true, deletedById, deletedAt: at }, { where: { repoId, name }, transaction: ctx.tx });
}

// why: branch listings are read all day by CI systems and bots, and change only with pushes.
const pageCache = new TableCache<{ rows: BranchModel[]; count: number }>('branch-page', ['branch']);

/**
 * One page of the live (not deleted) branches of a repository in Gitea's order (newest commit
 * first, then by name), with their total (read-only rows outside a transaction).
 */
export function listLiveBranches(ctx: DbContext, repoId: number, limit: number, offset: number): Promise<{ rows: BranchModel[]; count: number }> {
  return pageCache.get(ctx, `${repoId}:${limit}:${offset}`, async () => {
    const where = { repoId, isDeleted: false };
    const rows = await BranchModel.findAll({ where, order: [['commitTime', 'DESC'], ['name', 'ASC']], limit, offset, transaction: ctx.tx });
    const count = await BranchModel.count({ where, transaction: ctx.tx });
    return { rows: rows.map(readOnlyRow), count };
  });
}

/** Live branches of a repository `pusherId` pushed since `since`, newest first. */
export function pushedBranchesSince(ctx: DbContext, repoId: number, pusherId: number, since: Date): Promise<BranchModel[]> {
  return BranchModel.findAll({ where: { repoId, pusherId, isDeleted: false, updatedAt: { [Op.gte]: since } }, order: [['updatedAt', 'DESC']], limit: 10, transaction: ctx.tx });
}
