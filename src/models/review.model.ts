/**
 * Gitea's review table: one row per review of a pull request (pending, approve, comment, reject)
 * and per review request (of a user, or of a team with reviewer_id 0). Times are Unix seconds.
 */
import { Op } from 'sequelize';
import { Table, Column, Model, DataType } from 'sequelize-typescript';
import type { DbContext } from '../db';
import { nowUnix } from './issue.model';

/** Gitea's ReviewType. */
export enum ReviewType { Pending = 0, Approve = 1, Comment = 2, Reject = 3, Request = 4 }

@Table({ tableName: 'review', underscored: true, timestamps: false })
export class ReviewModel extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare type: ReviewType;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare reviewerId: number;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare reviewerTeamId: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare issueId: number;
  @Column({ type: DataType.TEXT, allowNull: false, defaultValue: '' }) declare content: string;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: false }) declare official: boolean;
  @Column({ type: DataType.STRING(64), allowNull: false, defaultValue: '' }) declare commitId: string;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: false }) declare stale: boolean;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: false }) declare dismissed: boolean;
  @Column({ type: DataType.BIGINT, allowNull: false, defaultValue: 0 }) declare createdUnix: number;
  @Column({ type: DataType.BIGINT, allowNull: false, defaultValue: 0 }) declare updatedUnix: number;
  /** A migrated row's author on its source, when no local user is that person (Gitea's original_author). */
  @Column({ type: DataType.STRING(255), allowNull: false, defaultValue: '' }) declare originalAuthor: string;
  @Column({ type: DataType.BIGINT, allowNull: false, defaultValue: 0 }) declare originalAuthorId: number;
}

/** The fields of a new review. */
export type NewReview = Pick<ReviewModel, 'type' | 'issueId'> & Partial<Pick<ReviewModel, 'reviewerId' | 'reviewerTeamId' | 'content' | 'official' | 'commitId' | 'stale'>>;

/** Insert a review. */
export function insertReview(ctx: DbContext, r: NewReview): Promise<ReviewModel> {
  const now = nowUnix();
  return ReviewModel.create({ ...r, createdUnix: now, updatedUnix: now }, { transaction: ctx.tx });
}

/** Every review row of a pull request's issue, oldest first. */
export function listReviews(ctx: DbContext, issueId: number): Promise<ReviewModel[]> {
  return ReviewModel.findAll({ where: { issueId }, order: [['createdUnix', 'ASC'], ['id', 'ASC']], transaction: ctx.tx });
}

/** One review by id. */
export function findReview(ctx: DbContext, id: number): Promise<ReviewModel | null> {
  if (!Number.isSafeInteger(id)) return Promise.resolve(null);
  return ReviewModel.findByPk(id, { transaction: ctx.tx });
}

/** A reviewer's pending review of a pull request, if any. */
export function findPendingReview(ctx: DbContext, issueId: number, reviewerId: number): Promise<ReviewModel | null> {
  return ReviewModel.findOne({ where: { issueId, reviewerId, type: ReviewType.Pending }, transaction: ctx.tx });
}

/** Save changed columns (and the update time). */
export async function saveReview(ctx: DbContext, row: ReviewModel): Promise<void> {
  row.updatedUnix = nowUnix();
  await row.save({ transaction: ctx.tx });
}

/** Mark a reviewer's earlier approvals and change requests of a pull request dismissed (a new one replaces them). */
export async function dismissEarlierVerdicts(ctx: DbContext, issueId: number, reviewerId: number, exceptId: number): Promise<void> {
  await ReviewModel.update({ dismissed: true }, {
    where: { issueId, reviewerId, type: { [Op.in]: [ReviewType.Approve, ReviewType.Reject] }, dismissed: false, id: { [Op.ne]: exceptId } },
    transaction: ctx.tx,
  });
}

/** A user's latest approval, change request or review request of a pull request (Gitea's GetReviewByIssueIDAndUserID). */
export function latestVerdictOrRequest(ctx: DbContext, issueId: number, reviewerId: number): Promise<ReviewModel | null> {
  return ReviewModel.findOne({
    where: { issueId, reviewerId, reviewerTeamId: 0, type: { [Op.in]: [ReviewType.Approve, ReviewType.Reject, ReviewType.Request] } },
    order: [['id', 'DESC']], transaction: ctx.tx,
  });
}

/** A team's review request of a pull request, if any. */
export function findTeamRequest(ctx: DbContext, issueId: number, teamId: number): Promise<ReviewModel | null> {
  return ReviewModel.findOne({ where: { issueId, reviewerTeamId: teamId, type: ReviewType.Request }, transaction: ctx.tx });
}

/** Delete review rows by id. */
export async function deleteReviews(ctx: DbContext, ids: number[]): Promise<void> {
  if (ids.length) await ReviewModel.destroy({ where: { id: ids }, transaction: ctx.tx });
}

/** Delete a user's open review request, and the requests of the given teams (a verdict answers them). */
export async function deleteAnsweredRequests(ctx: DbContext, issueId: number, reviewerId: number, teamIds: number[]): Promise<void> {
  await ReviewModel.destroy({
    where: { issueId, type: ReviewType.Request, [Op.or]: [{ reviewerId, reviewerTeamId: 0 }, ...(teamIds.length ? [{ reviewerTeamId: teamIds }] : [])] },
    transaction: ctx.tx,
  });
}

/** Clear the official flag of a reviewer's reviews (a newer official review or request takes it over). */
export async function clearOfficial(ctx: DbContext, issueId: number, reviewerId: number): Promise<void> {
  await ReviewModel.update({ official: false }, { where: { issueId, reviewerId, official: true }, transaction: ctx.tx });
}

/** Mark reviews of a pull request stale, except those of `commit` (a push changed what they reviewed). */
export async function markStale(ctx: DbContext, issueId: number, commit: string): Promise<void> {
  await ReviewModel.update({ stale: true }, {
    where: { issueId, stale: false, commitId: { [Op.ne]: commit }, type: { [Op.in]: [ReviewType.Approve, ReviewType.Reject] } }, transaction: ctx.tx,
  });
}

/** A pull request's approvals that still count. */
export function liveApprovals(ctx: DbContext, issueId: number): Promise<ReviewModel[]> {
  return ReviewModel.findAll({ where: { issueId, type: ReviewType.Approve, dismissed: false }, transaction: ctx.tx });
}

/** The approvals, change requests and review requests of several pull requests' issues, oldest first. */
export function verdictsAndRequestsOf(ctx: DbContext, issueIds: number[]): Promise<ReviewModel[]> {
  if (issueIds.length === 0) return Promise.resolve([]);
  return ReviewModel.findAll({
    where: { issueId: issueIds, type: { [Op.in]: [ReviewType.Approve, ReviewType.Reject, ReviewType.Request] } },
    order: [['id', 'ASC']], transaction: ctx.tx,
  });
}
