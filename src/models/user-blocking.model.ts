/** blocker_id (a user or an organization) blocks blockee_id. */
import type { DbContext } from '../db';
import { Op } from 'sequelize';
import { Table, Column, Model, DataType } from 'sequelize-typescript';
import { UserModel } from './user.model';
import { FollowModel } from './follow.model';
import { RepositoryModel } from './repository.model';
import { CollaborationModel } from './collaboration.model';

@Table({ tableName: 'user_blocking', underscored: true, timestamps: true })
export class UserBlockingModel extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare blockerId: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare blockeeId: number;
  @Column({ type: DataType.STRING(255), allowNull: false, defaultValue: '' }) declare note: string;
  declare createdAt: Date;
}

/** Has `blockerId` (a user or an organization) blocked `blockeeId`? */
export async function isBlocked(ctx: DbContext, blockerId: number, blockeeId: number): Promise<boolean> {
  return (await UserBlockingModel.count({ where: { blockerId, blockeeId }, transaction: ctx.tx })) > 0;
}

/** Is either user blocking the other? (Following, starring and collaborating need neither.) */
export async function isBlockedEitherWay(ctx: DbContext, a: number, b: number): Promise<boolean> {
  return (await isBlocked(ctx, a, b)) || (await isBlocked(ctx, b, a));
}

/** Record that `blockerId` blocks `blockeeId`. */
export async function insertBlock(ctx: DbContext, blockerId: number, blockeeId: number, note: string): Promise<void> {
  await UserBlockingModel.create({ blockerId, blockeeId, note }, { transaction: ctx.tx });
}

/** Remove a block; false when there was none. */
export async function deleteBlock(ctx: DbContext, blockerId: number, blockeeId: number): Promise<boolean> {
  return (await UserBlockingModel.destroy({ where: { blockerId, blockeeId }, transaction: ctx.tx })) > 0;
}

/** Remove every block made by or against this user or organization (when it is deleted). */
export async function deleteBlocksOf(ctx: DbContext, id: number): Promise<void> {
  await UserBlockingModel.destroy({ where: { [Op.or]: [{ blockerId: id }, { blockeeId: id }] }, transaction: ctx.tx });
}

/** One page of the users `blockerId` blocks, by name. */
export async function listBlockees(ctx: DbContext, blockerId: number, limit: number, offset: number): Promise<{ rows: UserModel[]; count: number }> {
  const rows = await UserBlockingModel.findAll({ where: { blockerId }, attributes: ['blockeeId'], transaction: ctx.tx });
  const ids = rows.map((r) => r.blockeeId);
  if (ids.length === 0) return { rows: [], count: 0 };
  const users = await UserModel.findAll({ where: { id: { [Op.in]: ids } }, order: [['lowerName', 'ASC']], limit, offset, transaction: ctx.tx });
  return { rows: users, count: ids.length };
}

/**
 * Remove the follow relations between two users in both directions, keeping the followers and
 * following counters of both in step (a block does this).
 */
export async function unfollowBothWays(ctx: DbContext, a: number, b: number): Promise<void> {
  for (const [follower, followee] of [[a, b], [b, a]]) {
    const n = await FollowModel.destroy({ where: { userId: follower, followId: followee }, transaction: ctx.tx });
    if (n > 0) {
      await UserModel.decrement('numFollowing', { by: n, where: { id: follower }, transaction: ctx.tx });
      await UserModel.decrement('numFollowers', { by: n, where: { id: followee }, transaction: ctx.tx });
    }
  }
}

/** Remove each side's collaborations on the other side's repositories (a block does this). */
export async function removeCollaborationsBetween(ctx: DbContext, a: number, b: number): Promise<void> {
  for (const [owner, user] of [[a, b], [b, a]]) {
    const repos = await RepositoryModel.findAll({ where: { ownerId: owner }, attributes: ['id'], transaction: ctx.tx });
    if (repos.length === 0) continue;
    await CollaborationModel.destroy({ where: { userId: user, repoId: { [Op.in]: repos.map((r) => r.id) } }, transaction: ctx.tx });
  }
}

/** Which of `userIds` have blocked `blockeeId`. */
export async function blockersAmong(ctx: DbContext, blockeeId: number, userIds: number[]): Promise<Set<number>> {
  if (userIds.length === 0) return new Set();
  const rows = await UserBlockingModel.findAll({ where: { blockeeId, blockerId: { [Op.in]: userIds } }, attributes: ['blockerId'], transaction: ctx.tx });
  return new Set(rows.map((r) => r.blockerId));
}
