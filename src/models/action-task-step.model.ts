/** Gitea's `action_task_step`: one step of a task, with the rows of the task's log it wrote. */
import { Table, Column, Model, DataType } from 'sequelize-typescript';
import type { DbContext } from '../db';
import { bigintColumn } from './action-runner.model';
import type { ActionStatus } from './action-run.model';

@Table({ tableName: 'action_task_step', underscored: true, timestamps: false })
export class ActionTaskStepModel extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.STRING(255), allowNull: false }) declare name: string;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare taskId: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare index: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare repoId: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare status: ActionStatus;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare logIndex: number;
  @Column(bigintColumn('logLength')) declare logLength: number;
  @Column(bigintColumn('started')) declare started: number;
  @Column(bigintColumn('stopped')) declare stopped: number;
  @Column(bigintColumn('created')) declare created: number;
  @Column(bigintColumn('updated')) declare updated: number;
}

/** Store the steps of a new task. */
export async function insertSteps(ctx: DbContext, rows: Pick<ActionTaskStepModel, 'name' | 'taskId' | 'index' | 'repoId' | 'status'>[], now: number): Promise<void> {
  if (rows.length) await ActionTaskStepModel.bulkCreate(rows.map((r) => ({ ...r, created: now, updated: now })), { transaction: ctx.tx });
}

/** The steps of tasks, in task and index order. */
export function listStepsOfTasks(ctx: DbContext, taskIds: number[]): Promise<ActionTaskStepModel[]> {
  return taskIds.length ? ActionTaskStepModel.findAll({ where: { taskId: taskIds }, order: [['taskId', 'ASC'], ['index', 'ASC']], transaction: ctx.tx }) : Promise.resolve([]);
}

/** Change one step of a task. */
export async function updateStep(
  ctx: DbContext, taskId: number, index: number, changes: Partial<Pick<ActionTaskStepModel, 'status' | 'logIndex' | 'logLength' | 'started' | 'stopped'>>, now: number,
): Promise<void> {
  await ActionTaskStepModel.update({ ...changes, updated: now }, { where: { taskId, index }, transaction: ctx.tx });
}

/** Delete the steps of tasks. */
export async function deleteStepsOfTasks(ctx: DbContext, taskIds: number[]): Promise<void> {
  if (taskIds.length) await ActionTaskStepModel.destroy({ where: { taskId: taskIds }, transaction: ctx.tx });
}
