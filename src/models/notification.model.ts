/**
 * Gitea's notification table: a user's threads, one per issue or pull request (and one per
 * repository offered by a transfer), unread, read or pinned.
 */
import { QueryTypes } from 'sequelize';
import { Table, Column, Model, DataType } from 'sequelize-typescript';
import { db, type DbContext } from '../db';
import { nowUnix } from './issue.model';

/** A thread's status, in Gitea's numbering. */
export enum NotificationStatus { Unread = 1, Read = 2, Pinned = 3 }

/** What a thread is about, in Gitea's numbering. */
export enum NotificationSource { Issue = 1, PullRequest = 2, Commit = 3, Repository = 4 }

@Table({ tableName: 'notification', underscored: true, timestamps: false })
export class NotificationModel extends Model {
  @Column({ type: DataType.BIGINT, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare userId: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare repoId: number;
  @Column({ type: DataType.SMALLINT, allowNull: false }) declare status: NotificationStatus;
  @Column({ type: DataType.SMALLINT, allowNull: false }) declare source: NotificationSource;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare issueId: number;
  @Column({ type: DataType.STRING(64), allowNull: false, defaultValue: '' }) declare commitId: string;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare commentId: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare updatedBy: number;
  @Column({ type: DataType.BIGINT, allowNull: false }) declare createdUnix: number;
  @Column({ type: DataType.BIGINT, allowNull: false }) declare updatedUnix: number;
}

/** An event on an issue for one user. */
export interface IssueNotice { userId: number; repoId: number; issueId: number; source: NotificationSource; commentId: number; updatedBy: number }

/**
 * Notify users of an event on an issue: a new unread thread, or the user's thread brought up. As
 * Gitea, a read thread becomes unread and points at the new comment; an unread or pinned one keeps
 * its status and first unread comment (the user would miss the older ones otherwise).
 */
export async function upsertIssueNotifications(ctx: DbContext, notices: IssueNotice[]): Promise<void> {
  if (notices.length === 0) return;
  const now = nowUnix();
  const values = notices.map(() => `(?, ?, ${NotificationStatus.Unread}, ?, ?, ?, ?, ?, ?)`).join(', ');
  const read = NotificationStatus.Read;
  await db().query(
    `INSERT INTO notification (user_id, repo_id, status, source, issue_id, comment_id, updated_by, created_unix, updated_unix) VALUES ${values}
     ON CONFLICT (user_id, issue_id) WHERE issue_id > 0 DO UPDATE SET
       comment_id = CASE WHEN notification.status = ${read} THEN excluded.comment_id ELSE notification.comment_id END,
       status = CASE WHEN notification.status = ${read} THEN ${NotificationStatus.Unread} ELSE notification.status END,
       updated_by = excluded.updated_by, updated_unix = excluded.updated_unix`,
    { replacements: notices.flatMap((n) => [n.userId, n.repoId, n.source, n.issueId, n.commentId, n.updatedBy, now, now]), transaction: ctx.tx },
  );
}

/** Tell users that a repository is offered to them (a pending transfer). */
export async function insertRepoNotifications(ctx: DbContext, userIds: number[], repoId: number, updatedBy: number): Promise<void> {
  if (userIds.length === 0) return;
  const now = nowUnix();
  await NotificationModel.bulkCreate(userIds.map((userId) => ({
    userId, repoId, status: NotificationStatus.Unread, source: NotificationSource.Repository, issueId: 0, commitId: '', commentId: 0, updatedBy, createdUnix: now, updatedUnix: now,
  })), { transaction: ctx.tx });
}

/** Which threads of a user to list or change. */
export interface NotificationFilter {
  userId: number; repoId?: number;
  /** These threads only. */
  ids?: number[];
  /** Empty or absent: any status. */
  statuses?: NotificationStatus[];
  /** Empty or absent: any source. */
  sources?: NotificationSource[];
  /** Unix seconds on the update time, inclusive. */
  since?: number; before?: number;
  /** SQL selecting the repository ids the user still reads (numbers only), or null for all. */
  readableRepos: string | null;
}

function filterSql(f: NotificationFilter): { sql: string; replacements: Record<string, unknown> } {
  const where = ['user_id = :userId'];
  if (f.repoId !== undefined) where.push('repo_id = :repoId');
  if (f.ids) where.push('id IN (:ids)');
  if (f.statuses?.length) where.push('status IN (:statuses)');
  if (f.sources?.length) where.push('source IN (:sources)');
  if (f.since !== undefined) where.push('updated_unix >= :since');
  if (f.before !== undefined) where.push('updated_unix <= :before');
  if (f.readableRepos !== null) where.push(`repo_id IN (${f.readableRepos})`);
  return { sql: where.join(' AND '), replacements: { userId: f.userId, repoId: f.repoId ?? 0, ids: f.ids?.length ? f.ids : [0], statuses: f.statuses ?? [], sources: f.sources ?? [], since: f.since ?? 0, before: f.before ?? 0 } };
}

/** How many threads `f` selects. */
export async function countNotifications(ctx: DbContext, f: NotificationFilter): Promise<number> {
  const { sql, replacements } = filterSql(f);
  const [{ n }] = await db().query<{ n: number | string }>(`SELECT COUNT(*) AS n FROM notification WHERE ${sql}`, { type: QueryTypes.SELECT, replacements, transaction: ctx.tx });
  return Number(n);
}

/** One page of a user's threads, the most recently updated first, and their number. */
export async function findNotifications(ctx: DbContext, f: NotificationFilter, page: { limit: number; offset: number }): Promise<{ rows: NotificationModel[]; count: number }> {
  const { sql, replacements } = filterSql(f);
  const rows = await db().query<NotificationModel>(
    `SELECT * FROM notification WHERE ${sql} ORDER BY updated_unix DESC, id DESC LIMIT ${Math.trunc(page.limit)} OFFSET ${Math.trunc(page.offset)}`,
    { type: QueryTypes.SELECT, model: NotificationModel, mapToModel: true, replacements, transaction: ctx.tx },
  );
  return { rows, count: await countNotifications(ctx, f) };
}

/**
 * Set the status of the threads `f` selects (all of them, no page) and bring them up, as Gitea;
 * the changed threads, most recently updated first.
 */
export async function setNotificationsStatus(ctx: DbContext, f: NotificationFilter, status: NotificationStatus): Promise<NotificationModel[]> {
  const { sql, replacements } = filterSql(f);
  const ids = (await db().query<{ id: number }>(`SELECT id FROM notification WHERE ${sql}`, { type: QueryTypes.SELECT, replacements, transaction: ctx.tx })).map((r) => Number(r.id));
  if (ids.length === 0) return [];
  await NotificationModel.update({ status, updatedUnix: nowUnix() }, { where: { id: ids }, transaction: ctx.tx });
  return NotificationModel.findAll({ where: { id: ids }, order: [['updatedUnix', 'DESC'], ['id', 'DESC']], transaction: ctx.tx });
}

/** A thread by id, or null. */
export function findNotificationById(ctx: DbContext, id: number): Promise<NotificationModel | null> {
  if (!Number.isSafeInteger(id) || id <= 0) return Promise.resolve(null);
  return NotificationModel.findByPk(id, { transaction: ctx.tx });
}

/** Mark a user's unread thread of an issue read (pinned and read ones stay), as Gitea does when the user merges it. */
export async function markIssueNotificationRead(ctx: DbContext, userId: number, issueId: number): Promise<void> {
  await NotificationModel.update({ status: NotificationStatus.Read, updatedUnix: nowUnix() }, { where: { userId, issueId, status: NotificationStatus.Unread }, transaction: ctx.tx });
}

/** Delete the threads of issues (deleted with them). */
export async function deleteIssueNotifications(ctx: DbContext, issueIds: number[]): Promise<void> {
  if (issueIds.length === 0) return;
  await NotificationModel.destroy({ where: { issueId: issueIds }, transaction: ctx.tx });
}
