/** Gitea's `action_task_output`: an output a task reported; the first value of a key stays. */
import { Table, Column, Model, DataType } from 'sequelize-typescript';
import type { DbContext } from '../db';

@Table({ tableName: 'action_task_output', underscored: true, timestamps: false })
export class ActionTaskOutputModel extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare taskId: number;
  @Column({ type: DataType.STRING(255), allowNull: false }) declare outputKey: string;
  @Column({ type: DataType.TEXT, allowNull: false }) declare outputValue: string;
}

/** Store outputs of a task; keys it already has keep their value. */
export async function insertOutputs(ctx: DbContext, taskId: number, outputs: [string, string][]): Promise<void> {
  if (outputs.length) {
    await ActionTaskOutputModel.bulkCreate(outputs.map(([outputKey, outputValue]) => ({ taskId, outputKey, outputValue })), { transaction: ctx.tx, ignoreDuplicates: true });
  }
}

/** The outputs of tasks. */
export function listOutputsOfTasks(ctx: DbContext, taskIds: number[]): Promise<ActionTaskOutputModel[]> {
  return taskIds.length ? ActionTaskOutputModel.findAll({ where: { taskId: taskIds }, order: [['id', 'ASC']], transaction: ctx.tx }) : Promise.resolve([]);
}

/** Delete the outputs of tasks. */
export async function deleteOutputsOfTasks(ctx: DbContext, taskIds: number[]): Promise<void> {
  if (taskIds.length) await ActionTaskOutputModel.destroy({ where: { taskId: taskIds }, transaction: ctx.tx });
}
