/** user_id follows follow_id. */
import type { DbContext } from '../db';
import { Table, Column, Model, DataType } from 'sequelize-typescript';

@Table({ tableName: 'follow', underscored: true, timestamps: true })
export class FollowModel extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare userId: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare followId: number;
  declare createdAt: Date;
}

/** Does `userId` follow `followId`? */
export async function isFollowing(ctx: DbContext, userId: number, followId: number): Promise<boolean> {
  return (await FollowModel.count({ where: { userId, followId }, transaction: ctx.tx })) > 0;
}

/** Record that `userId` follows `followId`. */
export async function insertFollow(ctx: DbContext, userId: number, followId: number): Promise<void> {
  await FollowModel.create({ userId, followId }, { transaction: ctx.tx });
}

/** Remove the follow; the number of rows removed (0 or 1). */
export function deleteFollow(ctx: DbContext, userId: number, followId: number): Promise<number> {
  return FollowModel.destroy({ where: { userId, followId }, transaction: ctx.tx });
}
