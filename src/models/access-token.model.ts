/** A personal access token; only its sha256 is stored. */
import type { DbContext } from '../db';
import { Op } from 'sequelize';
import { Table, Column, Model, DataType } from 'sequelize-typescript';

@Table({ tableName: 'access_token', underscored: true, timestamps: true })
export class AccessTokenModel extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare uid: number;
  @Column({ type: DataType.STRING(255), allowNull: false }) declare name: string;
  @Column({ type: DataType.STRING(64), allowNull: false, unique: true }) declare tokenHash: string;
  @Column({ type: DataType.STRING(8), allowNull: false }) declare tokenLastEight: string;
  @Column({ type: DataType.STRING(1024), allowNull: false, defaultValue: '' }) declare scope: string;
  @Column({ type: DataType.DATE, allowNull: true }) declare lastUsedAt: Date | null;
  declare createdAt: Date;
  declare updatedAt: Date;
}


/** The token whose sha256 is `hash`. */
export function findTokenByHash(ctx: DbContext, hash: string): Promise<AccessTokenModel | null> {
  return AccessTokenModel.findOne({ where: { tokenHash: hash }, transaction: ctx.tx, raw: true });
}

/** Set last_used_at unless it was set within the last minute (one write per token per minute). */
export async function touchToken(ctx: DbContext, id: number, now: Date): Promise<void> {
  const cutoff = new Date(now.getTime() - 60_000);
  await AccessTokenModel.update(
    { lastUsedAt: now },
    { where: { id, [Op.or]: [{ lastUsedAt: null }, { lastUsedAt: { [Op.lt]: cutoff } }] }, transaction: ctx.tx, silent: true },
  );
}

/** Tokens of a user, newest first, one page. */
export function listTokensOf(ctx: DbContext, uid: number, limit: number, offset: number): Promise<{ rows: AccessTokenModel[]; count: number }> {
  return AccessTokenModel.findAndCountAll({ where: { uid }, order: [['id', 'DESC']], limit, offset, transaction: ctx.tx });
}

/** A token of a user by id or by name. */
export function findTokenOf(ctx: DbContext, uid: number, idOrName: { id?: number; name?: string }): Promise<AccessTokenModel | null> {
  return AccessTokenModel.findOne({ where: { uid, ...idOrName }, transaction: ctx.tx });
}

/** Insert a token row. */
export function insertToken(ctx: DbContext, row: { uid: number; name: string; tokenHash: string; tokenLastEight: string; scope: string }): Promise<AccessTokenModel> {
  return AccessTokenModel.create(row, { transaction: ctx.tx });
}

/** Tokens of a user with this name (names are unique per user, but old data may repeat them). */
export function findTokensByName(ctx: DbContext, uid: number, name: string): Promise<AccessTokenModel[]> {
  return AccessTokenModel.findAll({ where: { uid, name }, transaction: ctx.tx });
}
