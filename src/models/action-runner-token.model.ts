/**
 * Gitea's `action_runner_token`: the registration tokens of a scope. The newest active one is
 * handed out and accepted; making a new one deactivates the others of its scope.
 */
import { Table, Column, Model, DataType } from 'sequelize-typescript';
import type { DbContext } from '../db';
import type { ActionsScope } from './actions-scope';
import { bigintColumn } from './action-runner.model';

@Table({ tableName: 'action_runner_token', underscored: true, timestamps: false })
export class ActionRunnerTokenModel extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.STRING(64), allowNull: false }) declare token: string;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare ownerId: number;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare repoId: number;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: false }) declare isActive: boolean;
  @Column(bigintColumn('created')) declare created: number;
  @Column(bigintColumn('updated')) declare updated: number;
}

/** A registration token by its value, or null. */
export function findRunnerToken(ctx: DbContext, token: string): Promise<ActionRunnerTokenModel | null> {
  return ActionRunnerTokenModel.findOne({ where: { token }, transaction: ctx.tx });
}

/** The newest token of a scope, or null. */
export function latestRunnerToken(ctx: DbContext, s: ActionsScope): Promise<ActionRunnerTokenModel | null> {
  return ActionRunnerTokenModel.findOne({ where: { ...s }, order: [['id', 'DESC']], transaction: ctx.tx });
}

/** Store a new active token for a scope, deactivating the others. */
export async function insertRunnerToken(ctx: DbContext, s: ActionsScope, token: string, now: number): Promise<ActionRunnerTokenModel> {
  await ActionRunnerTokenModel.update({ isActive: false, updated: now }, { where: { ...s, isActive: true }, transaction: ctx.tx });
  return ActionRunnerTokenModel.create({ ...s, token, isActive: true, created: now, updated: now }, { transaction: ctx.tx });
}

/** Delete the tokens of repositories or owners that are going away. */
export async function deleteRunnerTokensOf(ctx: DbContext, scope: Partial<ActionsScope>): Promise<void> {
  await ActionRunnerTokenModel.destroy({ where: { ...scope }, transaction: ctx.tx });
}
