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
