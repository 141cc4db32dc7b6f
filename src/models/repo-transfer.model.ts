/** A pending repository transfer (Gitea's repo_transfer): waiting for the recipient to accept or reject. */
import { Op } from 'sequelize';
import { Table, Column, Model, DataType } from 'sequelize-typescript';
import type { DbContext } from '../db';
import { TableCache } from './table-cache';

@Table({ tableName: 'repo_transfer', underscored: true, timestamps: true })
export class RepoTransferModel extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare doerId: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare recipientId: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare repoId: number;
  @Column({ type: DataType.TEXT, allowNull: false, defaultValue: '[]' }) declare teamIds: string;
  declare createdAt: Date;
}

/** The team ids a transfer carries (a JSON list of numbers; anything else reads as none). */
export function transferTeamIds(t: RepoTransferModel): number[] {
  try {
    const v: unknown = JSON.parse(t.teamIds);
    return Array.isArray(v) ? v.filter((x): x is number => Number.isSafeInteger(x)) : [];
  } catch {
    return [];
  }
}

/** The pending transfer of a repository, or null. */
export function findTransferOfRepo(ctx: DbContext, repoId: number): Promise<RepoTransferModel | null> {
  return RepoTransferModel.findOne({ where: { repoId }, transaction: ctx.tx });
}

const pendingCache = new TableCache<boolean>('repo-transfer', ['repo_transfer']);

/** Whether a repository has a pending transfer (asked by every repository view; kept briefly, see ./table-cache). */
export function hasTransfer(ctx: DbContext, repoId: number): Promise<boolean> {
  return pendingCache.get(ctx, String(repoId), async () => (await RepoTransferModel.count({ where: { repoId }, transaction: ctx.tx })) > 0);
}

/** Record a pending transfer (the unique repo_id index refuses a second one). */
export async function insertTransfer(ctx: DbContext, row: { doerId: number; recipientId: number; repoId: number; teamIds: number[] }): Promise<void> {
  await RepoTransferModel.create({ ...row, teamIds: JSON.stringify(row.teamIds) }, { transaction: ctx.tx });
}

/** Drop the pending transfer of a repository; false when there was none. */
export async function deleteTransferOfRepo(ctx: DbContext, repoId: number): Promise<boolean> {
  return (await RepoTransferModel.destroy({ where: { repoId }, transaction: ctx.tx })) > 0;
}

/** Drop the pending transfers between two users, in both directions (when one blocks the other, as Gitea). */
export async function deleteTransfersBetween(ctx: DbContext, a: number, b: number): Promise<void> {
  await RepoTransferModel.destroy({ where: { [Op.or]: [{ doerId: a, recipientId: b }, { doerId: b, recipientId: a }] }, transaction: ctx.tx });
}
