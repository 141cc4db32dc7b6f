/**
 * Per repository: the last issue number given out and the issue, pull request and milestone
 * counts Gitea keeps on its repository table.
 * why: kept apart from `repository`, whose rows every route reads through a cache; an issue write
 * here leaves that cache alone.
 */
import { QueryTypes } from 'sequelize';
import { Table, Column, Model, DataType } from 'sequelize-typescript';
import { db, type DbContext } from '../db';
import { TableCache } from './table-cache';

@Table({ tableName: 'repo_issue_counter', underscored: true, timestamps: false })
export class RepoIssueCounterModel extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true }) declare repoId: number;
  @Column({ type: DataType.BIGINT, allowNull: false, defaultValue: 0 }) declare maxIndex: number;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare numIssues: number;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare numClosedIssues: number;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare numPulls: number;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare numClosedPulls: number;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare numMilestones: number;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare numClosedMilestones: number;
}

/** Counts of a repository's issues, pull requests and milestones. */
export interface IssueCounts {
  numIssues: number; numClosedIssues: number; numPulls: number; numClosedPulls: number; numMilestones: number; numClosedMilestones: number;
}

/** Changes to apply to a repository's counts (missing fields: no change). */
export type CountDelta = Partial<IssueCounts>;

const COLUMNS: Record<keyof IssueCounts, string> = {
  numIssues: 'num_issues', numClosedIssues: 'num_closed_issues', numPulls: 'num_pulls', numClosedPulls: 'num_closed_pulls',
  numMilestones: 'num_milestones', numClosedMilestones: 'num_closed_milestones',
};

/** Make sure a repository has its counter row. */
export async function ensureCounterRow(ctx: DbContext, repoId: number): Promise<void> {
  await db().query('INSERT INTO repo_issue_counter (repo_id) VALUES (:repoId) ON CONFLICT (repo_id) DO NOTHING', {
    replacements: { repoId }, transaction: ctx.tx,
  });
}

/** `, col = col + n` for each change of `delta` (empty when nothing changes). */
export function countSet(delta: CountDelta): string {
  const set = setClause(delta);
  return set ? `, ${set}` : '';
}

function setClause(delta: CountDelta): string {
  return Object.entries(delta).filter(([, v]) => v).map(([k, v]) => {
    const col = COLUMNS[k as keyof IssueCounts];
    return `${col} = ${col} + ${Math.trunc(Number(v))}`;
  }).join(', ');
}

/**
 * Give out the next issue number of a repository and apply `delta` to its counts, in the caller's
 * transaction. why: the UPDATE locks the counter row until the transaction ends (PostgreSQL) or
 * runs under SQLite's single writer, so concurrent creators on any node get consecutive numbers,
 * and a rolled-back creation gives its number back: no gaps, no duplicates.
 */
export async function allocateIssueIndex(ctx: DbContext, repoId: number, delta: CountDelta): Promise<number> {
  const set = ['max_index = max_index + 1', setClause(delta)].filter(Boolean).join(', ');
  const sql = `UPDATE repo_issue_counter SET ${set} WHERE repo_id = :repoId RETURNING max_index`;
  const bump = () => db().query<{ max_index: number | string }>(sql, { replacements: { repoId }, type: QueryTypes.SELECT, transaction: ctx.tx });
  let rows = await bump();
  if (rows.length === 0) {
    await ensureCounterRow(ctx, repoId);
    rows = await bump();
  }
  return Number(rows[0].max_index);
}

/** Apply `delta` to a repository's counts, in the caller's transaction. */
export async function adjustIssueCounts(ctx: DbContext, repoId: number, delta: CountDelta): Promise<void> {
  const set = setClause(delta);
  if (!set) return;
  await ensureCounterRow(ctx, repoId);
  await db().query(`UPDATE repo_issue_counter SET ${set} WHERE repo_id = :repoId`, { replacements: { repoId }, transaction: ctx.tx });
}

const ZERO: IssueCounts = { numIssues: 0, numClosedIssues: 0, numPulls: 0, numClosedPulls: 0, numMilestones: 0, numClosedMilestones: 0 };
const cache = new TableCache<IssueCounts>('repo-issue-counter', ['repo_issue_counter']);

/** The counts of each repository (zero for a repository without issues). */
export async function issueCountsOf(ctx: DbContext, repoIds: number[]): Promise<Map<number, IssueCounts>> {
  const got = await cache.getMany(ctx, repoIds.map(String), async (keys) => {
    const rows = await RepoIssueCounterModel.findAll({ where: { repoId: keys.map(Number) }, transaction: ctx.tx });
    const byId = new Map(rows.map((r) => [String(r.repoId), r]));
    return new Map(keys.map((k) => {
      const r = byId.get(k);
      return [k, r ? { numIssues: r.numIssues, numClosedIssues: r.numClosedIssues, numPulls: r.numPulls, numClosedPulls: r.numClosedPulls,
        numMilestones: r.numMilestones, numClosedMilestones: r.numClosedMilestones } : ZERO];
    }));
  });
  return new Map(repoIds.map((id) => [id, got.get(String(id)) ?? ZERO]));
}

/** Forget a repository's counter row (the repository is gone). */
export async function deleteIssueCounter(ctx: DbContext, repoId: number): Promise<void> {
  await RepoIssueCounterModel.destroy({ where: { repoId }, transaction: ctx.tx });
}
