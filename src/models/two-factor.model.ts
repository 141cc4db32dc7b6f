/** Gitea's `two_factor`: a user's TOTP secret (sealed with SECRET_KEY) and the hash of the scratch code. */
import { Table, Column, Model, DataType } from 'sequelize-typescript';
import type { DbContext } from '../db';

@Table({ tableName: 'two_factor', underscored: true, timestamps: false })
export class TwoFactorModel extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare uid: number;
  @Column({ type: DataType.STRING(255), allowNull: false, defaultValue: '' }) declare secret: string;
  @Column({ type: DataType.STRING(255), allowNull: false, defaultValue: '' }) declare scratchSalt: string;
  @Column({ type: DataType.STRING(255), allowNull: false, defaultValue: '' }) declare scratchHash: string;
  @Column({ type: DataType.STRING(10), allowNull: false, defaultValue: '' }) declare lastUsedPasscode: string;
  @Column({ type: DataType.BIGINT, allowNull: false, defaultValue: 0 }) declare createdUnix: number;
  @Column({ type: DataType.BIGINT, allowNull: false, defaultValue: 0 }) declare updatedUnix: number;
}

/** The TOTP enrolment of a user, or null. */
export function findTwoFactor(ctx: DbContext, uid: number): Promise<TwoFactorModel | null> {
  return TwoFactorModel.findOne({ where: { uid }, transaction: ctx.tx });
}

/** Enrol a user (the caller checked there is no enrolment; the unique index refuses a second). */
export async function insertTwoFactor(ctx: DbContext, row: { uid: number; secret: string; scratchSalt: string; scratchHash: string; createdUnix: number; updatedUnix: number }): Promise<void> {
  await TwoFactorModel.create(row, { transaction: ctx.tx });
}

/** Change an enrolment (the last passcode used, a new scratch code). */
export async function updateTwoFactor(ctx: DbContext, uid: number, patch: Partial<{ scratchSalt: string; scratchHash: string; lastUsedPasscode: string; updatedUnix: number }>): Promise<void> {
  await TwoFactorModel.update(patch, { where: { uid }, transaction: ctx.tx });
}

/** Remove a user's TOTP enrolment; whether there was one. */
export async function deleteTwoFactor(ctx: DbContext, uid: number): Promise<boolean> {
  return (await TwoFactorModel.destroy({ where: { uid }, transaction: ctx.tx })) > 0;
}

/** Ids of the users among `uids` that have TOTP enrolled. */
export async function usersWithTwoFactor(ctx: DbContext, uids: number[]): Promise<Set<number>> {
  if (uids.length === 0) return new Set();
  const rows = await TwoFactorModel.findAll({ attributes: ['uid'], where: { uid: uids }, transaction: ctx.tx });
  return new Set(rows.map((r) => r.uid));
}
