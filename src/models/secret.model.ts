/**
 * Gitea's `secret`: an actions secret of a repository (owner_id 0) or of a user or organization
 * (repo_id 0). The name is stored upper-cased; `data` is the value sealed with SECRET_KEY.
 */
import { Table, Column, Model, DataType } from 'sequelize-typescript';
import type { DbContext } from '../db';
import { nowUnix } from './issue.model';
import type { ActionsScope } from './actions-scope';

@Table({ tableName: 'secret', underscored: true, timestamps: false })
export class SecretModel extends Model {
  @Column({ type: DataType.BIGINT, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare ownerId: number;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare repoId: number;
  @Column({ type: DataType.STRING(255), allowNull: false }) declare name: string;
  @Column({ type: DataType.TEXT, allowNull: false, defaultValue: '' }) declare data: string;
  @Column({ type: DataType.TEXT, allowNull: false, defaultValue: '' }) declare description: string;
  @Column({ type: DataType.BIGINT, allowNull: false, defaultValue: 0 }) declare createdUnix: number;
}

/** Store a new secret. */
export function insertSecret(ctx: DbContext, s: ActionsScope, row: { name: string; data: string; description: string }): Promise<SecretModel> {
  return SecretModel.create({ ...s, ...row, createdUnix: nowUnix() }, { transaction: ctx.tx });
}

/** Replace a secret's value and description. */
export async function updateSecret(ctx: DbContext, id: number, row: { data: string; description: string }): Promise<void> {
  await SecretModel.update(row, { where: { id }, transaction: ctx.tx });
}
