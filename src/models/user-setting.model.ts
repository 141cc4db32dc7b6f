/** Gitea's `user_setting`: a user's settings by key (the ActivityPub key pair first). */
import { Op } from 'sequelize';
import { Table, Column, Model, DataType } from 'sequelize-typescript';
import type { DbContext } from '../db';

@Table({ tableName: 'user_setting', underscored: true, timestamps: false })
export class UserSettingModel extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare userId: number;
  @Column({ type: DataType.STRING(255), allowNull: false }) declare settingKey: string;
  @Column({ type: DataType.TEXT, allowNull: false, defaultValue: '' }) declare settingValue: string;
}

/** The values of `keys` a user has set, by key. */
export async function userSettings(ctx: DbContext, userId: number, keys: string[]): Promise<Map<string, string>> {
  const rows = await UserSettingModel.findAll({ where: { userId, settingKey: { [Op.in]: keys } }, transaction: ctx.tx });
  return new Map(rows.map((r) => [r.settingKey, r.settingValue]));
}

/** Add settings of a user (a unique violation when one of the keys is already set). */
export async function insertUserSettings(ctx: DbContext, userId: number, values: Record<string, string>): Promise<void> {
  await UserSettingModel.bulkCreate(Object.entries(values).map(([settingKey, settingValue]) => ({ userId, settingKey, settingValue })), { transaction: ctx.tx });
}
