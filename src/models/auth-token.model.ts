/** "Remember me" tokens (Gitea's `auth_token`): keyed by the cookie's lookup id, holding the SHA-256 of its validator. */
import { Op } from 'sequelize';
import { Table, Column, Model, DataType } from 'sequelize-typescript';
import type { DbContext } from '../db';

@Table({ tableName: 'auth_token', underscored: true, timestamps: false })
export class AuthTokenModel extends Model {
  @Column({ type: DataType.STRING(64), primaryKey: true }) declare id: string;
  @Column({ type: DataType.STRING(64), allowNull: false, defaultValue: '' }) declare tokenHash: string;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare userId: number;
  @Column({ type: DataType.BIGINT, allowNull: false, defaultValue: 0 }) declare expiresUnix: number;
}

/** Store a new token. */
export async function insertAuthToken(ctx: DbContext, row: { id: string; tokenHash: string; userId: number; expiresUnix: number }): Promise<void> {
  await AuthTokenModel.create(row, { transaction: ctx.tx });
}

/** The token with this lookup id, expired or not, or null. */
export function findAuthToken(ctx: DbContext, id: string): Promise<AuthTokenModel | null> {
  return AuthTokenModel.findOne({ where: { id }, transaction: ctx.tx });
}

/** Remove one token; whether it was there (two redeemers racing: only one removes it). */
export async function deleteAuthToken(ctx: DbContext, id: string): Promise<boolean> {
  return (await AuthTokenModel.destroy({ where: { id }, transaction: ctx.tx })) > 0;
}

/** Remove every token of a user (a changed password, a deleted account). */
export async function deleteAuthTokensOfUser(ctx: DbContext, userId: number): Promise<void> {
  await AuthTokenModel.destroy({ where: { userId }, transaction: ctx.tx });
}

/** Remove tokens expired at `now`; the number removed. */
export function deleteExpiredAuthTokens(ctx: DbContext, now: number): Promise<number> {
  return AuthTokenModel.destroy({ where: { expiresUnix: { [Op.lte]: now } }, transaction: ctx.tx });
}
