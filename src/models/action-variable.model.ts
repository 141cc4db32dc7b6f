/**
 * Gitea's `action_variable`: an actions variable of a repository (owner_id 0) or of a user or
 * organization (repo_id 0), its name stored upper-cased and its value in the clear.
 */
import { Table, Column, Model, DataType } from 'sequelize-typescript';
import type { DbContext } from '../db';
import { nowUnix } from './issue.model';
import { SecretModel, type ActionsScope } from './secret.model';

@Table({ tableName: 'action_variable', underscored: true, timestamps: false })
export class ActionVariableModel extends Model {
  @Column({ type: DataType.BIGINT, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare ownerId: number;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare repoId: number;
  @Column({ type: DataType.STRING(255), allowNull: false }) declare name: string;
  @Column({ type: DataType.TEXT, allowNull: false, defaultValue: '' }) declare data: string;
  @Column({ type: DataType.TEXT, allowNull: false, defaultValue: '' }) declare description: string;
  @Column({ type: DataType.BIGINT, allowNull: false, defaultValue: 0 }) declare createdUnix: number;
  @Column({ type: DataType.BIGINT, allowNull: false, defaultValue: 0 }) declare updatedUnix: number;
}

/** A scope's variables by id, one page (all of them without `page`), and their number. */
export function listVariables(ctx: DbContext, s: ActionsScope, page?: { limit: number; offset: number }): Promise<{ rows: ActionVariableModel[]; count: number }> {
  return ActionVariableModel.findAndCountAll({ where: { ...s }, order: [['id', 'ASC']], ...(page ?? {}), transaction: ctx.tx });
}

/** A scope's variable by its (upper-cased) name, or null. */
export function findVariable(ctx: DbContext, s: ActionsScope, name: string): Promise<ActionVariableModel | null> {
  return ActionVariableModel.findOne({ where: { ...s, name }, transaction: ctx.tx });
}

/** Store a new variable. */
export function insertVariable(ctx: DbContext, s: ActionsScope, row: { name: string; data: string; description: string }): Promise<ActionVariableModel> {
  const now = nowUnix();
  return ActionVariableModel.create({ ...s, ...row, createdUnix: now, updatedUnix: now }, { transaction: ctx.tx });
}

/** Rename a variable and replace its value and description. */
export async function updateVariable(ctx: DbContext, id: number, row: { name: string; data: string; description: string }): Promise<void> {
  await ActionVariableModel.update({ ...row, updatedUnix: nowUnix() }, { where: { id }, transaction: ctx.tx });
}

/** Delete a scope's variable by name; whether there was one. */
export async function deleteVariable(ctx: DbContext, s: ActionsScope, name: string): Promise<boolean> {
  return (await ActionVariableModel.destroy({ where: { ...s, name }, transaction: ctx.tx })) > 0;
}

/** Delete every secret and variable of a repository, or of a user or organization. */
export async function deleteActionsSettingsOf(ctx: DbContext, s: { repoId: number } | { ownerId: number }): Promise<void> {
  const where = 'repoId' in s ? { repoId: s.repoId, ownerId: 0 } : { ownerId: s.ownerId, repoId: 0 };
  await ActionVariableModel.destroy({ where, transaction: ctx.tx });
  await SecretModel.destroy({ where, transaction: ctx.tx });
}
