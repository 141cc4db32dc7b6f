/** Commit statuses reported by CI systems, numbered per commit. */
import type { Order } from 'sequelize';
import { Table, Column, Model, DataType } from 'sequelize-typescript';
import type { DbContext } from '../db';
import { readOnlyRow, TableCache } from './table-cache';

/** The states a status may have. */
export const COMMIT_STATUS_STATES = ['pending', 'success', 'error', 'failure', 'warning', 'skipped'] as const;
export type CommitStatusState = (typeof COMMIT_STATUS_STATES)[number];

@Table({ tableName: 'commit_status', underscored: true, timestamps: true })
export class CommitStatusModel extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare index: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare repoId: number;
  @Column({ type: DataType.STRING(16), allowNull: false }) declare state: CommitStatusState;
  @Column({ type: DataType.STRING(64), allowNull: false }) declare sha: string;
  @Column({ type: DataType.TEXT, allowNull: false, defaultValue: '' }) declare targetUrl: string;
  @Column({ type: DataType.TEXT, allowNull: false, defaultValue: '' }) declare description: string;
  @Column({ type: DataType.STRING(40), allowNull: false }) declare contextHash: string;
  @Column({ type: DataType.TEXT, allowNull: false, defaultValue: '' }) declare context: string;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare creatorId: number;
  declare createdAt: Date;
  declare updatedAt: Date;
}

/** A new status (index assigned by insertCommitStatus). */
export interface NewCommitStatus {
  repoId: number; sha: string; state: CommitStatusState; targetUrl: string; description: string; context: string; contextHash: string; creatorId: number;
}

/** Insert a status with the next index of its commit (call inside a transaction). */
export async function insertCommitStatus(ctx: DbContext, row: NewCommitStatus): Promise<CommitStatusModel> {
  const last = (await CommitStatusModel.max('index', { where: { repoId: row.repoId, sha: row.sha }, transaction: ctx.tx })) as number | null;
  return CommitStatusModel.create({ ...row, index: (last ?? 0) + 1 }, { transaction: ctx.tx });
}

const SORTS: Record<string, Order> = {
  oldest: [['createdAt', 'ASC'], ['id', 'ASC']],
  recentupdate: [['updatedAt', 'DESC'], ['id', 'DESC']],
  leastupdate: [['updatedAt', 'ASC'], ['id', 'ASC']],
  leastindex: [['index', 'ASC']],
  highestindex: [['index', 'DESC']],
};

/** One page of a commit's statuses; Gitea's sorts (default: newest first) and an optional state filter. */
export function listCommitStatuses(ctx: DbContext, repoId: number, sha: string, q: { sort?: string; state?: string; limit: number; offset: number }): Promise<{ rows: CommitStatusModel[]; count: number }> {
  return CommitStatusModel.findAndCountAll({
    where: { repoId, sha, ...(q.state ? { state: q.state } : {}) },
    order: SORTS[q.sort ?? ''] ?? [['createdAt', 'DESC'], ['id', 'DESC']],
    limit: q.limit, offset: q.offset, transaction: ctx.tx,
  });
}

// why: CI systems and bots ask for a commit's combined status far more often than statuses are reported.
const latestCache = new TableCache<CommitStatusModel[]>('commit-status-latest', ['commit_status']);

/** The latest status of each context of a commit, newest first (read-only rows outside a transaction). */
export function latestCommitStatuses(ctx: DbContext, repoId: number, sha: string): Promise<CommitStatusModel[]> {
  return latestCache.get(ctx, `${repoId}:${sha}`, async () => {
    const all = await CommitStatusModel.findAll({ where: { repoId, sha }, order: [['index', 'DESC']], transaction: ctx.tx });
    const seen = new Set<string>();
    return all.filter((s) => !seen.has(s.contextHash) && !!seen.add(s.contextHash)).map(readOnlyRow);
  });
}
