/** Gitea's reaction table: one row per (content, issue, comment, user, original author); issue reactions have comment 0. */
import type { DbContext } from '../db';
import { Op } from 'sequelize';
import { Table, Column, Model, DataType } from 'sequelize-typescript';
import { nowUnix } from './issue.model';

@Table({ tableName: 'reaction', underscored: true, timestamps: false })
export class ReactionModel extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  /** The reaction's content (`+1`, `heart`, ...). */
  @Column({ type: DataType.STRING(255), allowNull: false }) declare type: string;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare issueId: number;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare commentId: number;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare userId: number;
  @Column({ type: DataType.BIGINT, allowNull: false, defaultValue: 0 }) declare createdUnix: number;
  /** A migrated row's author on its source, when no local user is that person (Gitea's original_author). */
  @Column({ type: DataType.STRING(255), allowNull: false, defaultValue: '' }) declare originalAuthor: string;
  @Column({ type: DataType.BIGINT, allowNull: false, defaultValue: 0 }) declare originalAuthorId: number;
}

/** Where a reaction is: an issue (comment 0) or a comment of it. */
export interface ReactionTarget { issueId: number; commentId: number }

/** The reactions on a target whose content is in `allowed`, oldest first; one page when `limit` is given. */
export async function listReactions(
  ctx: DbContext, t: ReactionTarget, allowed: string[], limit?: number, offset?: number,
): Promise<{ rows: ReactionModel[]; count: number }> {
  const where = { issueId: t.issueId, commentId: t.commentId, type: { [Op.in]: allowed } };
  const rows = await ReactionModel.findAll({ where, order: [['createdUnix', 'ASC'], ['id', 'ASC']], limit, offset, transaction: ctx.tx });
  return { rows, count: limit === undefined ? rows.length : await ReactionModel.count({ where, transaction: ctx.tx }) };
}

/** Every reaction on an issue and on its comments whose content is in `allowed`, oldest first (one query). */
export function reactionsOnIssue(ctx: DbContext, issueId: number, allowed: string[]): Promise<ReactionModel[]> {
  return ReactionModel.findAll({ where: { issueId, type: { [Op.in]: allowed } }, order: [['createdUnix', 'ASC'], ['id', 'ASC']], transaction: ctx.tx });
}

/** A user's own reaction of one content on a target (not one migrated on their behalf), or null. */
export function findReaction(ctx: DbContext, t: ReactionTarget, userId: number, type: string): Promise<ReactionModel | null> {
  return ReactionModel.findOne({ where: { ...t, userId, type, originalAuthor: '' }, transaction: ctx.tx });
}

/** Insert a reaction. */
export function insertReaction(ctx: DbContext, t: ReactionTarget, userId: number, type: string): Promise<ReactionModel> {
  return ReactionModel.create({ ...t, userId, type, createdUnix: nowUnix() }, { transaction: ctx.tx });
}

/** Remove a user's own reaction of one content on a target (nothing when absent; migrated ones stay). */
export async function deleteReaction(ctx: DbContext, t: ReactionTarget, userId: number, type: string): Promise<void> {
  await ReactionModel.destroy({ where: { ...t, userId, type, originalAuthor: '' }, transaction: ctx.tx });
}

/** Delete the reactions on the given comments. */
export async function deleteCommentReactions(ctx: DbContext, commentIds: number[]): Promise<void> {
  if (commentIds.length === 0) return;
  await ReactionModel.destroy({ where: { commentId: { [Op.in]: commentIds } }, transaction: ctx.tx });
}
