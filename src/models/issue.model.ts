/**
 * Gitea's issue table: issues and pull requests of a repository, numbered per repository by
 * `index`. Times are Unix seconds.
 */
import type { DbContext } from '../db';
import { Op, type WhereOptions } from 'sequelize';
import { Table, Column, Model, DataType } from 'sequelize-typescript';

@Table({ tableName: 'issue', underscored: true, timestamps: false })
export class IssueModel extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare repoId: number;
  @Column({ type: DataType.BIGINT, allowNull: false }) declare index: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare posterId: number;
  /** The title. */
  @Column({ type: DataType.STRING(255), allowNull: false, defaultValue: '' }) declare name: string;
  @Column({ type: DataType.TEXT, allowNull: false, defaultValue: '' }) declare content: string;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare milestoneId: number;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare priority: number;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: false }) declare isClosed: boolean;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: false }) declare isPull: boolean;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare numComments: number;
  @Column({ type: DataType.STRING(255), allowNull: false, defaultValue: '' }) declare ref: string;
  @Column({ type: DataType.BIGINT, allowNull: false, defaultValue: 0 }) declare deadlineUnix: number;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: false }) declare isLocked: boolean;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare contentVersion: number;
  @Column({ type: DataType.BIGINT, allowNull: false, defaultValue: 0 }) declare closedUnix: number;
  @Column({ type: DataType.BIGINT, allowNull: false, defaultValue: 0 }) declare createdUnix: number;
  @Column({ type: DataType.BIGINT, allowNull: false, defaultValue: 0 }) declare updatedUnix: number;
}

/** Now, in Unix seconds (the tracker's clock). */
export function nowUnix(): number {
  return Math.floor(Date.now() / 1000);
}

/** The fields of a new issue row (index and times are set by insertIssue). */
export interface NewIssue {
  repoId: number; index: number; posterId: number; name: string; content: string; milestoneId: number; isPull: boolean; ref: string;
  deadlineUnix: number;
}

/** Insert an issue row numbered `index`. */
export function insertIssue(ctx: DbContext, i: NewIssue): Promise<IssueModel> {
  const now = nowUnix();
  return IssueModel.create({ ...i, createdUnix: now, updatedUnix: now }, { transaction: ctx.tx });
}

/** An issue (or pull request) of a repository by its number, or null. */
export function findIssueByIndex(ctx: DbContext, repoId: number, index: number): Promise<IssueModel | null> {
  if (!Number.isSafeInteger(index)) return Promise.resolve(null);
  return IssueModel.findOne({ where: { repoId, index }, transaction: ctx.tx });
}

/** An issue by id, or null. */
export function findIssueById(ctx: DbContext, id: number): Promise<IssueModel | null> {
  return IssueModel.findByPk(id, { transaction: ctx.tx });
}

/** Issues by id, in no particular order. */
export function findIssuesByIds(ctx: DbContext, ids: number[]): Promise<IssueModel[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return IssueModel.findAll({ where: { id: { [Op.in]: [...new Set(ids)] } }, transaction: ctx.tx });
}

/** Issues by id, in the order of `ids` (ids without a row are skipped). */
export async function issuesInOrder(ctx: DbContext, ids: number[]): Promise<IssueModel[]> {
  const byId = new Map((await findIssuesByIds(ctx, ids)).map((i) => [i.id, i]));
  return ids.map((id) => byId.get(id)).filter((i): i is IssueModel => !!i);
}

/** Save changed columns of an issue and bump its update time. */
export async function saveIssue(ctx: DbContext, row: IssueModel): Promise<void> {
  row.updatedUnix = nowUnix();
  await row.save({ transaction: ctx.tx });
}

/** Bump an issue's update time (a comment or history entry was added). */
export async function touchIssue(ctx: DbContext, id: number): Promise<void> {
  await IssueModel.update({ updatedUnix: nowUnix() }, { where: { id }, transaction: ctx.tx });
}

/** Add `delta` to an issue's comment count. */
export async function addIssueComments(ctx: DbContext, id: number, delta: number): Promise<void> {
  await IssueModel.increment({ numComments: delta }, { where: { id }, transaction: ctx.tx });
}

/** Delete an issue row. */
export async function deleteIssueRow(ctx: DbContext, id: number): Promise<void> {
  await IssueModel.destroy({ where: { id }, transaction: ctx.tx });
}

/** Clear a milestone from every issue that has it. */
export async function clearMilestoneOfIssues(ctx: DbContext, milestoneId: number): Promise<void> {
  await IssueModel.update({ milestoneId: 0 }, { where: { milestoneId }, transaction: ctx.tx });
}

/** Ids of every issue of the given repositories. */
export async function issueIdsOfRepos(ctx: DbContext, repoIds: number[]): Promise<number[]> {
  if (repoIds.length === 0) return [];
  const rows = await IssueModel.findAll({ where: { repoId: { [Op.in]: repoIds } } as WhereOptions, attributes: ['id'], transaction: ctx.tx });
  return rows.map((r) => r.id);
}

/** Re-read an issue inside a transaction, locking its row until the transaction ends (PostgreSQL). */
export function lockIssue(ctx: DbContext, id: number): Promise<IssueModel | null> {
  // why: every change to an issue re-reads it under this lock first, so two writers of one issue
  // (close and label, say) run one after the other and its counters stay exact. SQLite has one writer anyway.
  return IssueModel.findByPk(id, { transaction: ctx.tx, lock: ctx.tx ? true : undefined });
}
