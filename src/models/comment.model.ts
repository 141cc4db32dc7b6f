/**
 * Gitea's comment table: plain comments and the history entries of an issue's timeline, told apart
 * by `type` (numbered as Gitea's CommentType). Times are Unix seconds.
 */
import { db, type DbContext } from '../db';
import { Op, QueryTypes, col, fn, literal, type WhereOptions } from 'sequelize';
import { Table, Column, Model, DataType } from 'sequelize-typescript';
import { nowUnix } from './issue.model';

/** Comment types, numbered as in Gitea's database. */
export enum CommentType {
  Comment = 0, Reopen = 1, Close = 2, IssueRef = 3, CommitRef = 4, CommentRef = 5, PullRef = 6, Label = 7, Milestone = 8,
  Assignees = 9, ChangeTitle = 10, DeleteBranch = 11, StartTracking = 12, StopTracking = 13, AddTimeManual = 14,
  CancelTracking = 15, AddedDeadline = 16, ModifiedDeadline = 17, RemovedDeadline = 18, AddDependency = 19,
  RemoveDependency = 20, Code = 21, Review = 22, Lock = 23, Unlock = 24, ChangeTargetBranch = 25, DeleteTimeManual = 26,
  ReviewRequest = 27, MergePull = 28, PullPush = 29, Project = 30, ProjectColumn = 31, DismissReview = 32,
  ChangeIssueRef = 33, PullScheduledMerge = 34, PullCancelScheduledMerge = 35, Pin = 36, Unpin = 37, ChangeTimeEstimate = 38,
}

/** The API names of the comment types (TimelineComment.type). */
export const COMMENT_TYPE_NAMES = [
  'comment', 'reopen', 'close', 'issue_ref', 'commit_ref', 'comment_ref', 'pull_ref', 'label', 'milestone', 'assignees',
  'change_title', 'delete_branch', 'start_tracking', 'stop_tracking', 'add_time_manual', 'cancel_tracking', 'added_deadline',
  'modified_deadline', 'removed_deadline', 'add_dependency', 'remove_dependency', 'code', 'review', 'lock', 'unlock',
  'change_target_branch', 'delete_time_manual', 'review_request', 'merge_pull', 'pull_push', 'project', 'project_board',
  'dismiss_review', 'change_issue_ref', 'pull_scheduled_merge', 'pull_cancel_scheduled_merge', 'pin', 'unpin',
  'change_time_estimate',
];

/** Types counted in an issue's `comments`. */
export const COUNTED_TYPES = [CommentType.Comment, CommentType.Review];

@Table({ tableName: 'comment', underscored: true, timestamps: false })
export class CommentModel extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare type: CommentType;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare posterId: number;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare issueId: number;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare labelId: number;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare oldMilestoneId: number;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare milestoneId: number;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare assigneeId: number;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: false }) declare removedAssignee: boolean;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare assigneeTeamId: number;
  @Column({ type: DataType.STRING(255), allowNull: false, defaultValue: '' }) declare oldTitle: string;
  @Column({ type: DataType.STRING(255), allowNull: false, defaultValue: '' }) declare newTitle: string;
  @Column({ type: DataType.STRING(255), allowNull: false, defaultValue: '' }) declare oldRef: string;
  @Column({ type: DataType.STRING(255), allowNull: false, defaultValue: '' }) declare newRef: string;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare dependentIssueId: number;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare timeId: number;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare refRepoId: number;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare refIssueId: number;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare refCommentId: number;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare refAction: number;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: false }) declare refIsPull: boolean;
  @Column({ type: DataType.STRING(64), allowNull: false, defaultValue: '' }) declare commitSha: string;
  @Column({ type: DataType.TEXT, allowNull: false, defaultValue: '' }) declare content: string;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare contentVersion: number;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare reviewId: number;
  /** A code comment's file, and line: new side when positive, old side when negative. */
  @Column({ type: DataType.STRING(4000), allowNull: false, defaultValue: '' }) declare treePath: string;
  @Column({ type: DataType.BIGINT, allowNull: false, defaultValue: 0 }) declare line: number;
  /** The diff lines a code comment was made on (headers and one short hunk ending at its line). */
  @Column({ type: DataType.TEXT, allowNull: false, defaultValue: '' }) declare patch: string;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: false }) declare invalidated: boolean;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare resolveDoerId: number;
  @Column({ type: DataType.BIGINT, allowNull: false, defaultValue: 0 }) declare createdUnix: number;
  @Column({ type: DataType.BIGINT, allowNull: false, defaultValue: 0 }) declare updatedUnix: number;
  /** A migrated row's author on its source, when no local user is that person (Gitea's original_author). */
  @Column({ type: DataType.STRING(255), allowNull: false, defaultValue: '' }) declare originalAuthor: string;
  @Column({ type: DataType.BIGINT, allowNull: false, defaultValue: 0 }) declare originalAuthorId: number;
  /** A `project` entry: the project the issue went to, and the one it left (0: none). */
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare projectId: number;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare oldProjectId: number;
  /** A `project_board` entry's JSON (Gitea's CommentMetaData: ProjectColumnID, ProjectColumnTitle, ProjectTitle). */
  @Column({ type: DataType.TEXT, allowNull: false, defaultValue: '' }) declare commentMetaData: string;
}

/** The fields of a new comment (type, issue and poster required; the rest default to empty). */
export type NewComment = Partial<Omit<CommentModel, 'id' | 'createdUnix' | 'updatedUnix'>> & { type: CommentType; issueId: number; posterId: number };

/** Insert a comment or history entry. */
export function insertComment(ctx: DbContext, c: NewComment): Promise<CommentModel> {
  const now = nowUnix();
  return CommentModel.create({ ...c, createdUnix: now, updatedUnix: now }, { transaction: ctx.tx });
}

/** A comment by id, or null. */
export function findCommentById(ctx: DbContext, id: number): Promise<CommentModel | null> {
  if (!Number.isSafeInteger(id)) return Promise.resolve(null);
  return CommentModel.findByPk(id, { transaction: ctx.tx });
}

/** Comments by id. */
export function findCommentsByIds(ctx: DbContext, ids: number[]): Promise<CommentModel[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return CommentModel.findAll({ where: { id: { [Op.in]: [...new Set(ids)] } }, transaction: ctx.tx });
}

/** A window on `updated_unix` (Gitea's since/before on comments). */
export interface TimeWindow { since?: number; before?: number }

function windowWhere(w: TimeWindow): WhereOptions[] {
  const and: WhereOptions[] = [];
  if (w.since) and.push({ updatedUnix: { [Op.gte]: w.since } });
  if (w.before) and.push({ updatedUnix: { [Op.lte]: w.before } });
  return and;
}

/**
 * Comments of an issue, oldest first: plain comments only, or the whole timeline; one page when
 * `limit` is given. The rows of a page are read as plain values (read-only).
 */
export async function listIssueComments(
  ctx: DbContext, issueId: number, o: TimeWindow & { types?: CommentType[]; excludeTypes?: CommentType[]; limit?: number; offset?: number },
): Promise<CommentModel[]> {
  const and: WhereOptions[] = [{ issueId }, ...windowWhere(o)];
  if (o.types) and.push({ type: { [Op.in]: o.types } });
  if (o.excludeTypes) and.push({ type: { [Op.notIn]: o.excludeTypes } });
  const where = { [Op.and]: and };
  return CommentModel.findAll({ where, order: [['createdUnix', 'ASC'], ['id', 'ASC']], limit: o.limit, offset: o.offset, raw: true, transaction: ctx.tx });
}

/** Plain comments on the issues of a repository (of the given kinds), oldest first, one page. */
export async function listRepoComments(
  ctx: DbContext, repoId: number, kinds: { issues: boolean; pulls: boolean }, w: TimeWindow, limit: number, offset: number,
): Promise<{ rows: CommentModel[]; count: number }> {
  const pull = kinds.issues && kinds.pulls ? '' : ` AND is_pull = ${kinds.pulls ? 'true' : 'false'}`;
  const where = {
    [Op.and]: [
      { type: CommentType.Comment }, ...windowWhere(w),
      { issueId: { [Op.in]: literal(`(SELECT id FROM issue WHERE repo_id = ${Number(repoId)}${pull})`) } },
    ],
  };
  const rows = await CommentModel.findAll({ where, order: [['createdUnix', 'ASC'], ['id', 'ASC']], limit, offset, transaction: ctx.tx });
  return { rows, count: await CommentModel.count({ where, transaction: ctx.tx }) };
}

/** Save a changed comment and bump its update time. */
export async function saveComment(ctx: DbContext, row: CommentModel): Promise<void> {
  row.updatedUnix = nowUnix();
  await row.save({ transaction: ctx.tx });
}

/** Delete comments by id. */
export async function deleteCommentRows(ctx: DbContext, ids: number[]): Promise<void> {
  if (ids.length === 0) return;
  await CommentModel.destroy({ where: { id: { [Op.in]: ids } }, transaction: ctx.tx });
}

/** Ids of the comments of the given issues, and of the comments elsewhere that point at them. */
export async function commentIdsOfIssues(ctx: DbContext, issueIds: number[]): Promise<number[]> {
  if (issueIds.length === 0) return [];
  const rows = await CommentModel.findAll({
    where: { [Op.or]: [{ issueId: { [Op.in]: issueIds } }, { refIssueId: { [Op.in]: issueIds } }, { dependentIssueId: { [Op.in]: issueIds } }] },
    attributes: ['id'], transaction: ctx.tx,
  });
  return rows.map((r) => r.id);
}

/** Delete the label history entries of a label (the label is gone). */
export async function deleteLabelComments(ctx: DbContext, labelId: number): Promise<void> {
  await CommentModel.destroy({ where: { labelId, type: CommentType.Label }, transaction: ctx.tx });
}

/** The comments tied to reviews (line comments, review and dismissal entries), of the given types, by path and line. */
export function commentsOfReviews(ctx: DbContext, reviewIds: number[], types: CommentType[]): Promise<CommentModel[]> {
  if (reviewIds.length === 0) return Promise.resolve([]);
  return CommentModel.findAll({ where: { reviewId: reviewIds, type: types }, order: [['treePath', 'ASC'], ['line', 'ASC'], ['id', 'ASC']], transaction: ctx.tx });
}

/** The number of line comments of each review, by review id. */
export async function codeCommentCounts(ctx: DbContext, reviewIds: number[]): Promise<Map<number, number>> {
  if (reviewIds.length === 0) return new Map();
  const rows = (await CommentModel.findAll({
    attributes: ['reviewId', [fn('COUNT', col('id')), 'n']], where: { reviewId: reviewIds, type: CommentType.Code }, group: ['reviewId'], raw: true, transaction: ctx.tx,
  })) as unknown as { reviewId: number; n: number }[];
  return new Map(rows.map((r) => [Number(r.reviewId), Number(r.n)]));
}

/** The timeline entry (type Review) of each review, by review id. */
export async function reviewEntryIds(ctx: DbContext, reviewIds: number[]): Promise<Map<number, number>> {
  if (reviewIds.length === 0) return new Map();
  const rows = await CommentModel.findAll({ attributes: ['id', 'reviewId'], where: { reviewId: reviewIds, type: CommentType.Review }, order: [['id', 'ASC']], transaction: ctx.tx });
  return new Map(rows.map((c) => [c.reviewId, c.id]));
}

/** The newest plain comment of each issue that has one (Gitea's GetLastComment), by issue id. */
export async function lastPlainComments(ctx: DbContext, issueIds: number[]): Promise<Map<number, number>> {
  if (issueIds.length === 0) return new Map();
  const rows = await db().query<{ issue_id: number; id: number }>(
    `SELECT c.issue_id, MAX(c.id) AS id FROM comment c WHERE c.issue_id IN (:issueIds) AND c.type = ${CommentType.Comment} GROUP BY c.issue_id`,
    { type: QueryTypes.SELECT, replacements: { issueIds: [...new Set(issueIds)] }, transaction: ctx.tx },
  );
  return new Map(rows.map((r) => [Number(r.issue_id), Number(r.id)]));
}

/** The cross references an issue's text (commentId 0) or one of its comments made that still count (not neutered), oldest first. */
export function activeCrossRefs(ctx: DbContext, refIssueId: number, refCommentId: number): Promise<CommentModel[]> {
  return CommentModel.findAll({
    where: { refIssueId, refCommentId, refAction: { [Op.in]: [0, 1, 2] }, type: { [Op.in]: [CommentType.IssueRef, CommentType.CommentRef, CommentType.PullRef] } },
    order: [['id', 'ASC']], transaction: ctx.tx,
  });
}

/** Mark cross references as neutered (ref_action 3): the text that made them no longer says so. */
export async function neuterCrossRefs(ctx: DbContext, ids: number[]): Promise<void> {
  if (ids.length === 0) return;
  await CommentModel.update({ refAction: 3 }, { where: { id: { [Op.in]: ids } }, transaction: ctx.tx });
}

/** What a commit already left on an issue: its reference and close/reopen entries among `issueIds` and `shas`. */
export async function commitMarks(ctx: DbContext, issueIds: number[], shas: string[]): Promise<{ issueId: number; type: CommentType; commitSha: string }[]> {
  if (issueIds.length === 0 || shas.length === 0) return [];
  const rows = await CommentModel.findAll({
    attributes: ['issueId', 'type', 'commitSha'],
    where: { issueId: { [Op.in]: [...new Set(issueIds)] }, commitSha: { [Op.in]: [...new Set(shas)] }, type: { [Op.in]: [CommentType.CommitRef, CommentType.Close, CommentType.Reopen] } },
    raw: true, transaction: ctx.tx,
  });
  return rows.map((r) => ({ issueId: Number(r.issueId), type: Number(r.type) as CommentType, commitSha: r.commitSha }));
}

/** Insert many history entries at once (none of them counted in an issue's comments). */
export async function insertComments(ctx: DbContext, rows: NewComment[]): Promise<void> {
  if (rows.length === 0) return;
  const now = nowUnix();
  const keys = [...new Set(rows.flatMap((r) => Object.keys(r)))] as (keyof NewComment)[];
  const columns = [...keys.map((k) => k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)), 'created_unix', 'updated_unix'];
  // why: one multi-row INSERT; bulkCreate built and validated a model instance per row, a good part of a push's reference job.
  for (let i = 0; i < rows.length; i += 500) {
    const chunk = rows.slice(i, i + 500);
    const replacements: Record<string, unknown> = { now };
    const attrs = CommentModel.getAttributes();
    // why: a key one row lacks takes the column's default, as the rows of one call may differ.
    const valueOf = (r: NewComment, k: keyof NewComment) => r[k] ?? (attrs[k].defaultValue as unknown);
    const values = chunk.map((r, n) => `(${keys.map((k, c) => { replacements[`v${n}_${c}`] = valueOf(r, k); return `:v${n}_${c}`; }).join(', ')}, :now, :now)`);
    await db().query(`INSERT INTO comment (${columns.join(', ')}) VALUES ${values.join(', ')}`, { replacements, transaction: ctx.tx });
  }
}

/**
 * The close and reopen references a pull request made (Gitea's ResolveCrossReferences): the
 * latest one per referenced issue, in the order they were made.
 */
export async function closingRefsOf(ctx: DbContext, refRepoId: number, refIssueId: number): Promise<CommentModel[]> {
  const rows = await CommentModel.findAll({
    where: { refRepoId, refIssueId, refAction: { [Op.in]: [1, 2] }, type: { [Op.in]: [CommentType.IssueRef, CommentType.CommentRef, CommentType.PullRef] } },
    order: [['id', 'ASC']], transaction: ctx.tx,
  });
  const latest = new Map<number, CommentModel>();
  for (const r of rows) latest.set(r.issueId, r);
  return [...latest.values()];
}
