/** Browser sessions: keyed by the SHA-256 of the cookie's value; `data` is a small JSON object. */
import { Op } from 'sequelize';
import { Table, Column, Model, DataType } from 'sequelize-typescript';
import type { DbContext } from '../db';

@Table({ tableName: 'web_session', underscored: true, timestamps: false })
export class WebSessionModel extends Model {
  @Column({ type: DataType.STRING(64), primaryKey: true }) declare id: string;
  /** The signed-in user; 0 before sign-in (a form's CSRF token needs a session too). */
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare uid: number;
  @Column({ type: DataType.TEXT, allowNull: false, defaultValue: '' }) declare data: string;
  @Column({ type: DataType.BIGINT, allowNull: false, defaultValue: 0 }) declare createdUnix: number;
  @Column({ type: DataType.BIGINT, allowNull: false, defaultValue: 0 }) declare expiry: number;
}

/** A session that has not expired at `now`, or null. */
export function findLiveSession(ctx: DbContext, id: string, now: number): Promise<WebSessionModel | null> {
  return WebSessionModel.findOne({ where: { id, expiry: { [Op.gt]: now } }, transaction: ctx.tx });
}

/** Store a new session. */
export async function insertSession(ctx: DbContext, row: { id: string; uid: number; data: string; createdUnix: number; expiry: number }): Promise<void> {
  await WebSessionModel.create(row, { transaction: ctx.tx });
}

/** Change a session's user, data or expiry. */
export async function updateSession(ctx: DbContext, id: string, patch: Partial<{ uid: number; data: string; expiry: number }>): Promise<void> {
  await WebSessionModel.update(patch, { where: { id }, transaction: ctx.tx });
}

/** Remove a session (sign-out, rotation). */
export async function deleteSession(ctx: DbContext, id: string): Promise<void> {
  await WebSessionModel.destroy({ where: { id }, transaction: ctx.tx });
}

/** Remove every session of a user but `keep` (a password or second-factor change signs out elsewhere). */
export async function deleteSessionsOfUser(ctx: DbContext, uid: number, keep: string): Promise<void> {
  await WebSessionModel.destroy({ where: { uid, id: { [Op.ne]: keep } }, transaction: ctx.tx });
}

/** Remove sessions expired before `now`; the number removed. */
export function deleteExpiredSessions(ctx: DbContext, now: number): Promise<number> {
  return WebSessionModel.destroy({ where: { expiry: { [Op.lte]: now } }, transaction: ctx.tx });
}
