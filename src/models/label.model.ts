/**
 * Gitea's label table (labels of a repository or of an organization; colour stored as `#rrggbb`)
 * and issue_label links through their queries. Counters include pull requests, as Gitea's do.
 */
import type { DbContext } from '../db';
import { Op, QueryTypes, type Order } from 'sequelize';
import { Table, Column, Model, DataType } from 'sequelize-typescript';
import { db } from '../db';
import { nowUnix } from './issue.model';
import { TableCache } from './table-cache';

@Table({ tableName: 'label', underscored: true, timestamps: false })
export class LabelModel extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare repoId: number;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare orgId: number;
  @Column({ type: DataType.STRING(255), allowNull: false }) declare name: string;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: false }) declare exclusive: boolean;
  @Column({ type: DataType.STRING(255), allowNull: false, defaultValue: '' }) declare description: string;
  @Column({ type: DataType.STRING(7), allowNull: false }) declare color: string;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare numIssues: number;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare numClosedIssues: number;
  @Column({ type: DataType.BIGINT, allowNull: false, defaultValue: 0 }) declare archivedUnix: number;
  @Column({ type: DataType.BIGINT, allowNull: false, defaultValue: 0 }) declare createdUnix: number;
  @Column({ type: DataType.BIGINT, allowNull: false, defaultValue: 0 }) declare updatedUnix: number;
}

/** Who owns a label: a repository or an organization. */
export interface LabelOwner { repoId?: number; orgId?: number }

/** The fields of a new label. */
export interface NewLabel { name: string; color: string; description: string; exclusive: boolean; archivedUnix: number }

/** Insert a label of a repository or an organization. */
export function insertLabel(ctx: DbContext, owner: LabelOwner, l: NewLabel): Promise<LabelModel> {
  const now = nowUnix();
  return LabelModel.create({ repoId: owner.repoId ?? 0, orgId: owner.orgId ?? 0, ...l, createdUnix: now, updatedUnix: now }, { transaction: ctx.tx });
}

/** Sort orders of a label listing (Gitea's `sort`). */
export const LABEL_SORTS: Record<string, Order> = {
  reversealphabetically: [['name', 'DESC'], ['id', 'DESC']],
  leastissues: [['numIssues', 'ASC'], ['id', 'ASC']],
  mostissues: [['numIssues', 'DESC'], ['id', 'DESC']],
  alphabetically: [['name', 'ASC'], ['id', 'ASC']],
};

/** The labels of an owner, one page (all when `limit` is absent), with the total. */
export async function listLabels(
  ctx: DbContext, owner: LabelOwner, sort: string | undefined, limit?: number, offset?: number,
): Promise<{ rows: LabelModel[]; count: number }> {
  const where = owner.orgId ? { orgId: owner.orgId, repoId: 0 } : { repoId: owner.repoId ?? -1 };
  // why: a sort named like a prototype member (`constructor`) is unknown, not a function handed to the query.
  const order = sort && Object.hasOwn(LABEL_SORTS, sort) ? LABEL_SORTS[sort] : LABEL_SORTS.alphabetically;
  const rows = await LabelModel.findAll({ where, order, limit, offset, transaction: ctx.tx });
  return { rows, count: limit === undefined ? rows.length : await LabelModel.count({ where, transaction: ctx.tx }) };
}

/** A label of an owner by id, or null. */
export function findLabel(ctx: DbContext, owner: LabelOwner, id: number): Promise<LabelModel | null> {
  if (!Number.isSafeInteger(id)) return Promise.resolve(null);
  const where = owner.orgId ? { id, orgId: owner.orgId, repoId: 0 } : { id, repoId: owner.repoId ?? -1 };
  return LabelModel.findOne({ where, transaction: ctx.tx });
}

/** A label of an owner by exact name (the first made), or null. */
export function findLabelByName(ctx: DbContext, owner: LabelOwner, name: string): Promise<LabelModel | null> {
  const where = owner.orgId ? { name, orgId: owner.orgId, repoId: 0 } : { name, repoId: owner.repoId ?? -1 };
  return LabelModel.findOne({ where, order: [['id', 'ASC']], transaction: ctx.tx });
}

/** Labels by id. */
export function findLabelsByIds(ctx: DbContext, ids: number[]): Promise<LabelModel[]> {
  const safe = [...new Set(ids)].filter(Number.isSafeInteger);
  if (safe.length === 0) return Promise.resolve([]);
  return LabelModel.findAll({ where: { id: { [Op.in]: safe } }, order: [['name', 'ASC'], ['id', 'ASC']], transaction: ctx.tx });
}

/** Labels a repository may use (its own, and its organization's), by exact names. */
export function findUsableLabelsByNames(ctx: DbContext, repoId: number, orgId: number, names: string[]): Promise<LabelModel[]> {
  if (names.length === 0) return Promise.resolve([]);
  const owners = orgId ? [{ repoId }, { orgId, repoId: 0 }] : [{ repoId }];
  return LabelModel.findAll({ where: { name: { [Op.in]: names }, [Op.or]: owners }, order: [['name', 'ASC'], ['id', 'ASC']], transaction: ctx.tx });
}

/** Save a changed label. */
export async function saveLabel(ctx: DbContext, row: LabelModel): Promise<void> {
  row.updatedUnix = nowUnix();
  await row.save({ transaction: ctx.tx });
}

/** Delete a label row. */
export async function deleteLabelRow(ctx: DbContext, id: number): Promise<void> {
  await LabelModel.destroy({ where: { id }, transaction: ctx.tx });
}

/** Add to the issue counts of labels (a link was made or removed, an issue closed or reopened). */
export async function adjustLabelCounts(ctx: DbContext, ids: number[], open: number, closed: number): Promise<void> {
  if (ids.length === 0 || (open === 0 && closed === 0)) return;
  await db().query(
    `UPDATE label SET num_issues = num_issues + ${Math.trunc(open + closed)}, num_closed_issues = num_closed_issues + ${Math.trunc(closed)} WHERE id IN (:ids)`,
    { replacements: { ids }, transaction: ctx.tx },
  );
}

/** Delete the labels of a repository, or of an organization. */
export async function deleteLabelsOf(ctx: DbContext, owner: LabelOwner): Promise<number[]> {
  const where = owner.orgId ? { orgId: owner.orgId } : { repoId: owner.repoId ?? -1 };
  const rows = await LabelModel.findAll({ where, attributes: ['id'], transaction: ctx.tx });
  await LabelModel.destroy({ where, transaction: ctx.tx });
  return rows.map((r) => r.id);
}

/** Label ids of each issue. */
export async function labelIdsOfIssues(ctx: DbContext, issueIds: number[]): Promise<Map<number, number[]>> {
  const out = new Map<number, number[]>(issueIds.map((id) => [id, []]));
  if (issueIds.length === 0) return out;
  const rows = await db().query<{ issue_id: number; label_id: number }>('SELECT issue_id, label_id FROM issue_label WHERE issue_id IN (:ids)', {
    replacements: { ids: issueIds }, type: QueryTypes.SELECT, transaction: ctx.tx,
  });
  for (const r of rows) out.get(Number(r.issue_id))?.push(Number(r.label_id));
  return out;
}

/** Link labels to an issue (links that exist are left alone). */
export async function linkLabels(ctx: DbContext, issueId: number, labelIds: number[]): Promise<void> {
  for (const labelId of labelIds) {
    await db().query('INSERT INTO issue_label (issue_id, label_id) VALUES (:issueId, :labelId) ON CONFLICT DO NOTHING', {
      replacements: { issueId, labelId }, transaction: ctx.tx,
    });
  }
}

/** Unlink labels from an issue. */
export async function unlinkLabels(ctx: DbContext, issueId: number, labelIds: number[]): Promise<void> {
  if (labelIds.length === 0) return;
  await db().query('DELETE FROM issue_label WHERE issue_id = :issueId AND label_id IN (:labelIds)', {
    replacements: { issueId, labelIds }, transaction: ctx.tx,
  });
}

/** Remove every link of the given labels, or of the given issues. */
export async function unlinkAllLabels(ctx: DbContext, by: { labelId?: number; issueIds?: number[] }): Promise<void> {
  if (by.labelId !== undefined) {
    await db().query('DELETE FROM issue_label WHERE label_id = :id', { replacements: { id: by.labelId }, transaction: ctx.tx });
  } else if (by.issueIds && by.issueIds.length > 0) {
    await db().query('DELETE FROM issue_label WHERE issue_id IN (:ids)', { replacements: { ids: by.issueIds }, transaction: ctx.tx });
  }
}

/** How many open issues and pull requests of one repository carry each of `labelIds` (an organization's labels seen from a repository). */
export async function openIssueCountsInRepo(ctx: DbContext, repoId: number, labelIds: number[]): Promise<Map<number, number>> {
  const out = new Map<number, number>(labelIds.map((id) => [id, 0]));
  if (labelIds.length === 0) return out;
  const rows = await db().query<{ label_id: number; n: number | string }>(
    `SELECT il.label_id, COUNT(*) AS n FROM issue_label il JOIN issue i ON i.id = il.issue_id
      WHERE i.repo_id = :repoId AND i.is_closed = :no AND il.label_id IN (:ids) GROUP BY il.label_id`,
    { replacements: { repoId, no: false, ids: labelIds }, type: QueryTypes.SELECT, transaction: ctx.tx },
  );
  for (const r of rows) out.set(Number(r.label_id), Number(r.n));
  return out;
}

/** Labels of any repository or organization by exact names (issue search across repositories). */
export function findLabelsByNamesAnywhere(ctx: DbContext, names: string[]): Promise<LabelModel[]> {
  if (names.length === 0) return Promise.resolve([]);
  return LabelModel.findAll({ where: { name: { [Op.in]: names } }, attributes: ['id'], transaction: ctx.tx });
}

// why: every issue listing shows its issues' labels; rows are kept until a label is written.
const labelRows = new TableCache<LabelModel | null>('label-rows', ['label']);

/** Labels by id as read-only values, from the cache when unchanged. */
export async function labelsByIds(ctx: DbContext, ids: number[]): Promise<LabelModel[]> {
  const keys = [...new Set(ids)].map(String);
  const got = await labelRows.getMany(ctx, keys, async (missing) => {
    const rows = await LabelModel.findAll({ where: { id: { [Op.in]: missing.map(Number) } }, raw: true, transaction: ctx.tx });
    const byId = new Map(rows.map((r) => [String(r.id), r]));
    return new Map(missing.map((k) => [k, byId.get(k) ?? null]));
  });
  return [...got.values()].filter((l): l is LabelModel => !!l);
}
