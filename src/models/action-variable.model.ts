/**
 * Gitea's `action_variable`: an actions variable of a repository (owner_id 0) or of a user or
 * organization (repo_id 0), its name stored upper-cased and its value in the clear.
 */
import { Table, Column, Model, DataType } from 'sequelize-typescript';
import type { DbContext } from '../db';
import { nowUnix } from './issue.model';
import { SecretModel } from './secret.model';
import { deleteRunnersOf } from './action-runner.model';
import { deleteRunnerTokensOf } from './action-runner-token.model';
import { deleteRunsOfRepo } from './action-run.model';
import type { ActionsScope } from './actions-scope';

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

/** Store a new variable. */
export function insertVariable(ctx: DbContext, s: ActionsScope, row: { name: string; data: string; description: string }): Promise<ActionVariableModel> {
  const now = nowUnix();
  return ActionVariableModel.create({ ...s, ...row, createdUnix: now, updatedUnix: now }, { transaction: ctx.tx });
}

/** Rename a variable and replace its value and description. */
export async function updateVariable(ctx: DbContext, id: number, row: { name: string; data: string; description: string }): Promise<void> {
  await ActionVariableModel.update({ ...row, updatedUnix: nowUnix() }, { where: { id }, transaction: ctx.tx });
}

/** Delete every secret, variable, runner and registration token of a repository, or of a user or organization, and a repository's runs. */
export async function deleteActionsSettingsOf(ctx: DbContext, s: { repoId: number } | { ownerId: number }): Promise<void> {
  const where = 'repoId' in s ? { repoId: s.repoId, ownerId: 0 } : { ownerId: s.ownerId, repoId: 0 };
  await ActionVariableModel.destroy({ where, transaction: ctx.tx });
  await SecretModel.destroy({ where, transaction: ctx.tx });
  await deleteRunnersOf(ctx, where);
  await deleteRunnerTokensOf(ctx, where);
  if ('repoId' in s) await deleteRunsOfRepo(ctx, s.repoId);
}
