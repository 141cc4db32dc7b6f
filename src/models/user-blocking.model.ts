/** blocker_id (a user or an organization) blocks blockee_id. */
import type { DbContext } from '../db';
import { Table, Column, Model, DataType } from 'sequelize-typescript';

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
