/** Gitea's milestone table, with its issue counters (pull requests included, as Gitea counts). */
import type { DbContext } from '../db';
import { Op, QueryTypes, fn, col, literal, where as sqlWhere, type Order, type WhereOptions } from 'sequelize';
import { Table, Column, Model, DataType } from 'sequelize-typescript';
import { db } from '../db';
import { nowUnix } from './issue.model';
import { TableCache } from './table-cache';

@Table({ tableName: 'milestone', underscored: true, timestamps: false })
export class MilestoneModel extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare repoId: number;
  @Column({ type: DataType.STRING(255), allowNull: false }) declare name: string;
  @Column({ type: DataType.TEXT, allowNull: false, defaultValue: '' }) declare content: string;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: false }) declare isClosed: boolean;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare numIssues: number;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare numClosedIssues: number;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare completeness: number;
  @Column({ type: DataType.BIGINT, allowNull: false, defaultValue: 0 }) declare deadlineUnix: number;
  @Column({ type: DataType.BIGINT, allowNull: false, defaultValue: 0 }) declare closedDateUnix: number;
  @Column({ type: DataType.BIGINT, allowNull: false, defaultValue: 0 }) declare createdUnix: number;
  @Column({ type: DataType.BIGINT, allowNull: false, defaultValue: 0 }) declare updatedUnix: number;
}

/** The fields of a new milestone. */
export interface NewMilestone { name: string; content: string; isClosed: boolean; deadlineUnix: number; closedDateUnix: number }

/** Insert a milestone. */
export function insertMilestone(ctx: DbContext, repoId: number, m: NewMilestone): Promise<MilestoneModel> {
  const now = nowUnix();
  return MilestoneModel.create({ repoId, ...m, createdUnix: now, updatedUnix: now }, { transaction: ctx.tx });
}

/** A milestone of a repository by id, or null. */
export function findMilestone(ctx: DbContext, repoId: number, id: number): Promise<MilestoneModel | null> {
  if (!Number.isSafeInteger(id)) return Promise.resolve(null);
  return MilestoneModel.findOne({ where: { repoId, id }, transaction: ctx.tx });
}

/** A milestone of a repository by exact name, or null. */
export function findMilestoneByName(ctx: DbContext, repoId: number, name: string): Promise<MilestoneModel | null> {
  return MilestoneModel.findOne({ where: { repoId, name }, order: [['id', 'ASC']], transaction: ctx.tx });
}

// why: a milestone without a due date stores 0, where Gitea stores the year 9999; these orders
// put it where Gitea's does (last when the closest date comes first, first for the furthest).
const NO_DEADLINE_LAST = literal('CASE WHEN deadline_unix = 0 THEN 1 ELSE 0 END');

/** Sort orders of the milestones page (Gitea's `sort`); the API's listing keeps deadline then name. */
export const MILESTONE_SORTS: Record<string, Order> = {
  closestduedate: [[NO_DEADLINE_LAST, 'ASC'], ['deadlineUnix', 'ASC'], ['name', 'ASC'], ['id', 'ASC']],
  furthestduedate: [[NO_DEADLINE_LAST, 'DESC'], ['deadlineUnix', 'DESC'], ['name', 'ASC'], ['id', 'ASC']],
  leastcomplete: [['completeness', 'ASC'], ['id', 'ASC']],
  mostcomplete: [['completeness', 'DESC'], ['id', 'ASC']],
  leastissues: [['numIssues', 'ASC'], ['id', 'ASC']],
  mostissues: [['numIssues', 'DESC'], ['id', 'ASC']],
};

/** Milestones of a repository (open, closed or all; name containing `name`), by `sort` or else deadline then name. */
export async function listMilestones(
  ctx: DbContext, repoId: number, f: { closed?: boolean; name?: string; sort?: string }, limit?: number, offset?: number,
): Promise<{ rows: MilestoneModel[]; count: number }> {
  const and: WhereOptions[] = [{ repoId }, ...nameLike(f.name)];
  if (f.closed !== undefined) and.push({ isClosed: f.closed });
  const where = { [Op.and]: and };
  const order = (f.sort && Object.hasOwn(MILESTONE_SORTS, f.sort) ? MILESTONE_SORTS[f.sort] : undefined) ?? [['deadlineUnix', 'ASC'], ['name', 'ASC'], ['id', 'ASC']];
  const rows = await MilestoneModel.findAll({ where, order, limit, offset, transaction: ctx.tx });
  return { rows, count: limit === undefined ? rows.length : await MilestoneModel.count({ where, transaction: ctx.tx }) };
}

/** Save a changed milestone. */
export async function saveMilestone(ctx: DbContext, row: MilestoneModel): Promise<void> {
  row.updatedUnix = nowUnix();
  await row.save({ transaction: ctx.tx });
}

/** Delete a milestone row. */
export async function deleteMilestoneRow(ctx: DbContext, id: number): Promise<void> {
  await MilestoneModel.destroy({ where: { id }, transaction: ctx.tx });
}

/**
 * Add to a milestone's issue counts and recompute its completeness in the same statement.
 * why: an increment, not a recount, so a busy milestone costs one row update per change.
 */
export async function adjustMilestoneCounts(ctx: DbContext, id: number, open: number, closed: number): Promise<void> {
  if (!id || (open === 0 && closed === 0)) return;
  const total = `num_issues + ${Math.trunc(open + closed)}`;
  const done = `num_closed_issues + ${Math.trunc(closed)}`;
  await db().query(
    `UPDATE milestone SET num_issues = ${total}, num_closed_issues = ${done},
       completeness = CASE WHEN ${total} > 0 THEN (${done}) * 100 / (${total}) ELSE 0 END WHERE id = :id`,
    { replacements: { id }, transaction: ctx.tx },
  );
}

/** Delete the milestones of a repository. */
export async function deleteMilestonesOfRepo(ctx: DbContext, repoId: number): Promise<void> {
  await MilestoneModel.destroy({ where: { repoId }, transaction: ctx.tx });
}

/** Ids of milestones of any repository whose names are among `names`, ignoring case (issue search). */
export async function milestoneIdsByNamesAnywhere(ctx: DbContext, names: string[]): Promise<number[]> {
  if (names.length === 0) return [];
  const rows = await MilestoneModel.findAll({
    where: sqlWhere(fn('lower', col('name')), { [Op.in]: names.map((n) => n.toLowerCase()) }), attributes: ['id'], transaction: ctx.tx,
  });
  return rows.map((r) => r.id);
}

// why: every issue listing shows its issues' milestones; rows are kept until a milestone is written.
const milestoneRows = new TableCache<MilestoneModel | null>('milestone-rows', ['milestone']);

/** Milestones by id as read-only values, from the cache when unchanged. */
export async function milestonesByIds(ctx: DbContext, ids: number[]): Promise<MilestoneModel[]> {
  const keys = [...new Set(ids)].filter((id) => id > 0).map(String);
  if (keys.length === 0) return [];
  const got = await milestoneRows.getMany(ctx, keys, async (missing) => {
    const rows = await MilestoneModel.findAll({ where: { id: { [Op.in]: missing.map(Number) } }, raw: true, transaction: ctx.tx });
    const byId = new Map(rows.map((r) => [String(r.id), r]));
    return new Map(missing.map((k) => [k, byId.get(k) ?? null]));
  });
  return [...got.values()].filter((m): m is MilestoneModel => !!m);
}

/** Is `sort` one of the milestone orders (MILESTONE_SORTS)? */
export function isMilestoneSort(sort: string): boolean {
  return Object.hasOwn(MILESTONE_SORTS, sort);
}

/** A LIKE pattern for names containing `name` (ignoring case), with `!` escaping its wildcards. */
const containing = (name: string) => `%${name.toLowerCase().replace(/[!%_]/g, '!$&')}%`;

/**
 * The condition on a milestone's name containing `name`, ignoring case (none for an empty name).
 * why: an explicit escape character, since SQLite's LIKE has none by default and PostgreSQL's is the backslash.
 */
function nameLike(name: string | undefined): WhereOptions[] {
  return name ? [literal(`LOWER(name) LIKE ${db().escape(containing(name))} ESCAPE '!'`)] : [];
}

/** One page of the milestones of several repositories in one state, their names containing `name`. */
export function milestonesOfRepos(
  ctx: DbContext, repoIds: number[], f: { closed: boolean; name?: string }, sort: string, limit: number, offset: number,
): Promise<MilestoneModel[]> {
  if (repoIds.length === 0) return Promise.resolve([]);
  return MilestoneModel.findAll({
    where: { [Op.and]: [{ repoId: { [Op.in]: repoIds } }, { isClosed: f.closed }, ...nameLike(f.name)] },
    order: isMilestoneSort(sort) ? MILESTONE_SORTS[sort] : MILESTONE_SORTS.closestduedate, limit, offset, transaction: ctx.tx,
  });
}

/** How many milestones (their names containing `name`) each repository has, open and closed. */
export async function milestoneTallies(ctx: DbContext, repoIds: number[], name?: string): Promise<Map<number, { open: number; closed: number }>> {
  const out = new Map<number, { open: number; closed: number }>();
  if (repoIds.length === 0) return out;
  const rows = await db().query<{ repo_id: number; is_closed: boolean | number; n: number | string }>(
    `SELECT repo_id, is_closed, COUNT(*) AS n FROM milestone WHERE repo_id IN (:repoIds)${name ? " AND LOWER(name) LIKE :name ESCAPE '!'" : ''}
     GROUP BY repo_id, is_closed`,
    { replacements: { repoIds, name: containing(name ?? '') }, type: QueryTypes.SELECT, transaction: ctx.tx },
  );
  for (const r of rows) {
    const t = out.get(Number(r.repo_id)) ?? { open: 0, closed: 0 };
    if (r.is_closed === true || Number(r.is_closed) === 1) t.closed += Number(r.n);
    else t.open += Number(r.n);
    out.set(Number(r.repo_id), t);
  }
  return out;
}
