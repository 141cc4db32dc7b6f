/**
 * Gitea's action table, the activity behind the feeds: one row per event (who did what, where).
 * why: Gitea writes a copy of each event for every receiver (the actor, the organization, every
 * watcher), so one push to a watched repository costs hundreds of rows; here a feed selects the
 * events of the repositories it covers when it is read, and the watchers are the current ones.
 */
import { QueryTypes } from 'sequelize';
import { Table, Column, Model, DataType } from 'sequelize-typescript';
import { db, type DbContext } from '../db';
import { nowUnix } from './issue.model';

/** Gitea's ActionType, by the numbers it stores; the API shows the names (opTypeName). */
export enum ActionType {
  CreateRepo = 1, RenameRepo = 2, StarRepo = 3, WatchRepo = 4, CommitRepo = 5, CreateIssue = 6, CreatePullRequest = 7,
  TransferRepo = 8, PushTag = 9, CommentIssue = 10, MergePullRequest = 11, CloseIssue = 12, ReopenIssue = 13,
  ClosePullRequest = 14, ReopenPullRequest = 15, DeleteTag = 16, DeleteBranch = 17, MirrorSyncPush = 18,
  MirrorSyncCreate = 19, MirrorSyncDelete = 20, ApprovePullRequest = 21, RejectPullRequest = 22, CommentPull = 23,
  PublishRelease = 24, PullReviewDismissed = 25, PullRequestReadyForReview = 26, AutoMergePullRequest = 27,
}

const OP_NAMES: Record<number, string> = {
  1: 'create_repo', 2: 'rename_repo', 3: 'star_repo', 4: 'watch_repo', 5: 'commit_repo', 6: 'create_issue', 7: 'create_pull_request',
  8: 'transfer_repo', 9: 'push_tag', 10: 'comment_issue', 11: 'merge_pull_request', 12: 'close_issue', 13: 'reopen_issue',
  14: 'close_pull_request', 15: 'reopen_pull_request', 16: 'delete_tag', 17: 'delete_branch', 18: 'mirror_sync_push',
  19: 'mirror_sync_create', 20: 'mirror_sync_delete', 21: 'approve_pull_request', 22: 'reject_pull_request', 23: 'comment_pull',
  24: 'publish_release', 25: 'pull_review_dismissed', 26: 'pull_request_ready_for_review', 27: 'auto_merge_pull_request',
};

/** The API's name of an op type (Gitea's `action-<n>` for one it does not know). */
export function opTypeName(t: number): string {
  return OP_NAMES[t] ?? `action-${t}`;
}

@Table({ tableName: 'action', underscored: true, timestamps: false })
export class ActionModel extends Model {
  @Column({ type: DataType.BIGINT, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare opType: ActionType;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare actUserId: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare repoId: number;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare commentId: number;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: false }) declare isDeleted: boolean;
  @Column({ type: DataType.TEXT, allowNull: false, defaultValue: '' }) declare refName: string;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: false }) declare isPrivate: boolean;
  @Column({ type: DataType.TEXT, allowNull: false, defaultValue: '' }) declare content: string;
  @Column({ type: DataType.BIGINT, allowNull: false }) declare createdUnix: number;
}

/** An event to record. */
export interface NewAction {
  opType: ActionType; actUserId: number; repoId: number; isPrivate: boolean;
  commentId?: number; refName?: string; content?: string;
}

/** Record events (in the transaction of the change that caused them). */
export async function insertActions(ctx: DbContext, rows: NewAction[]): Promise<void> {
  if (rows.length === 0) return;
  const now = nowUnix();
  await ActionModel.bulkCreate(rows.map((r) => ({ commentId: 0, refName: '', content: '', ...r, isDeleted: false, createdUnix: now })), { transaction: ctx.tx });
}

/** Hide the events of deleted comments (Gitea keeps them, flagged). */
export async function markCommentActionsDeleted(ctx: DbContext, commentIds: number[]): Promise<void> {
  if (commentIds.length === 0) return;
  await ActionModel.update({ isDeleted: true }, { where: { commentId: commentIds }, transaction: ctx.tx });
}

/**
 * Delete the events of deleted issues: those of their comments, and their creation (found, as
 * Gitea, by the number at the head of the content).
 */
export async function deleteIssueActions(ctx: DbContext, issues: { repoId: number; index: number }[], commentIds: number[]): Promise<void> {
  if (commentIds.length) await db().query('DELETE FROM action WHERE comment_id IN (:commentIds)', { replacements: { commentIds }, transaction: ctx.tx });
  for (const i of issues) {
    await db().query('DELETE FROM action WHERE repo_id = :repoId AND op_type IN (:created) AND content LIKE :prefix', {
      replacements: { repoId: i.repoId, created: [ActionType.CreateIssue, ActionType.CreatePullRequest], prefix: `${i.index}|%` }, transaction: ctx.tx,
    });
  }
}

/** Mark a repository's past events private (when it becomes private; as Gitea, never undone). */
export async function markRepoActionsPrivate(ctx: DbContext, repoId: number): Promise<void> {
  await ActionModel.update({ isPrivate: true }, { where: { repoId, isPrivate: false }, transaction: ctx.tx });
}

/** Which events a feed covers. */
export type FeedScope =
  | { kind: 'user'; userId: number; isOrg: boolean; onlyPerformedBy: boolean }
  | { kind: 'org'; orgId: number }
  | { kind: 'team'; orgId: number; teamId: number; allRepos: boolean }
  | { kind: 'repo'; repoId: number };

/** One page of a feed, as a viewer may see it. */
export interface FeedQuery {
  scope: FeedScope;
  /** SQL selecting the repository ids the viewer reads (numbers only), or null for all. */
  readableRepos: string | null;
  /** SQL condition on users whose acts the viewer sees (numbers only), or null for all. */
  visibleActors: string | null;
  includePrivate: boolean;
  /** Unix seconds, inclusive. */
  from?: number; to?: number;
  limit: number; offset: number;
}

function scopeSql(s: FeedScope): string {
  switch (s.kind) {
    case 'user': {
      const u = Number(s.userId);
      if (s.onlyPerformedBy) return `a.act_user_id = ${u}`;
      const ors = [`a.act_user_id = ${u}`, `a.repo_id IN (SELECT repo_id FROM watch WHERE user_id = ${u} AND mode <> 2)`];
      // why: an organization's feed holds the events of its repositories (Gitea's copy to the owner organization).
      if (s.isOrg) ors.push(`a.repo_id IN (SELECT id FROM repository WHERE owner_id = ${u})`);
      return `(${ors.join(' OR ')})`;
    }
    case 'org':
      return `a.repo_id IN (SELECT id FROM repository WHERE owner_id = ${Number(s.orgId)})`;
    case 'team':
      return `a.repo_id IN (SELECT id FROM repository WHERE owner_id = ${Number(s.orgId)})`
        + (s.allRepos ? '' : ` AND a.repo_id IN (SELECT repo_id FROM team_repo WHERE team_id = ${Number(s.teamId)})`);
    case 'repo':
      return `a.repo_id = ${Number(s.repoId)}`;
  }
}

/** One page of a feed, newest first, and the number of its events. */
export async function findFeed(ctx: DbContext, q: FeedQuery): Promise<{ rows: ActionModel[]; count: number }> {
  const where = [scopeSql(q.scope), 'a.is_deleted = :no'];
  if (!q.includePrivate) where.push('a.is_private = :no');
  if (q.readableRepos !== null) where.push(`a.repo_id IN (${q.readableRepos})`);
  if (q.visibleActors !== null) where.push(`a.act_user_id IN (SELECT id FROM users WHERE ${q.visibleActors})`);
  if (q.from !== undefined) where.push('a.created_unix >= :from');
  if (q.to !== undefined) where.push('a.created_unix <= :to');
  const replacements = { no: false, from: q.from ?? 0, to: q.to ?? 0 };
  const sql = `FROM action a WHERE ${where.join(' AND ')}`;
  // why: the page and the total come from one statement, so they agree even while entries are
  // being written (two statements on two connections could each see another moment).
  const rows = await db().query<ActionModel>(`SELECT a.*, COUNT(*) OVER () AS feed_total ${sql} ORDER BY a.created_unix DESC, a.id DESC LIMIT ${Math.trunc(q.limit)} OFFSET ${Math.trunc(q.offset)}`, {
    type: QueryTypes.SELECT, model: ActionModel, mapToModel: true, replacements, transaction: ctx.tx,
  });
  if (rows.length > 0) return { rows, count: Number(rows[0].get('feed_total')) };
  // a page past the end has no row to carry the total
  const counted = q.offset > 0 ? await db().query<{ n: number | string }>(`SELECT COUNT(*) AS n ${sql}`, { type: QueryTypes.SELECT, replacements, transaction: ctx.tx }) : [{ n: 0 }];
  return { rows, count: Number(counted[0].n) };
}

/** One 15-minute bucket of a heatmap: its start (unix seconds) and how many events fell in it. */
export interface HeatmapBucket { timestamp: number; contributions: number }

/**
 * Events per 15-minute bucket since `since` (unix seconds), oldest first, in one grouped query:
 * the acts of a user (`actorId`), or every event of an organization's repositories (`orgId`),
 * deleted and private ones included, limited to `readableRepos` (SQL of repository ids, numbers
 * only) unless it is null.
 */
export async function heatmapBuckets(ctx: DbContext, q: { actorId?: number; orgId?: number; readableRepos: string | null; since: number }): Promise<HeatmapBucket[]> {
  const where = [q.orgId !== undefined ? `a.repo_id IN (SELECT id FROM repository WHERE owner_id = ${Number(q.orgId)})` : `a.act_user_id = ${Number(q.actorId)}`, 'a.created_unix > :since'];
  if (q.readableRepos !== null) where.push(`a.repo_id IN (${q.readableRepos})`);
  // why: created_unix is an integer column on both databases, so `/` divides without a remainder;
  // 15 minutes lets a client shift buckets to zones such as UTC+5:30 or +12:45 (Gitea's choice).
  const bucket = '(a.created_unix / 900) * 900';
  const rows = await db().query<{ ts: number | string; n: number | string }>(
    `SELECT ${bucket} AS ts, COUNT(*) AS n FROM action a WHERE ${where.join(' AND ')} GROUP BY ${bucket} ORDER BY ts`,
    { type: QueryTypes.SELECT, replacements: { since: q.since }, transaction: ctx.tx },
  );
  return rows.map((r) => ({ timestamp: Number(r.ts), contributions: Number(r.n) }));
}
