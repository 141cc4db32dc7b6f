/**
 * Gitea's `action_task`: one attempt of a job on a runner, with the hash of its token (the job's
 * GITEA_TOKEN) and where its log is: rows counted in `log_length`, bytes in `log_size`, moved to
 * compressed storage (`log_in_storage`) when the runner sends its last rows.
 */
import { Op } from 'sequelize';
import { Table, Column, Model, DataType } from 'sequelize-typescript';
import type { DbContext } from '../db';
import { bigintColumn } from './action-runner.model';
import { setByCase } from './set-by-case';
import { ActionStatus } from './action-run.model';

@Table({ tableName: 'action_task', underscored: true, timestamps: false })
export class ActionTaskModel extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare jobId: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare attempt: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare runnerId: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare status: ActionStatus;
  @Column(bigintColumn('started')) declare started: number;
  @Column(bigintColumn('stopped')) declare stopped: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare repoId: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare ownerId: number;
  @Column({ type: DataType.STRING(64), allowNull: false }) declare commitSha: string;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: false }) declare isForkPullRequest: boolean;
  @Column({ type: DataType.STRING(64), allowNull: false }) declare tokenHash: string;
  @Column({ type: DataType.STRING(8), allowNull: false }) declare tokenLastEight: string;
  @Column({ type: DataType.STRING(255), allowNull: false, defaultValue: '' }) declare logFilename: string;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: false }) declare logInStorage: boolean;
  @Column(bigintColumn('logLength')) declare logLength: number;
  @Column(bigintColumn('logSize')) declare logSize: number;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: false }) declare logExpired: boolean;
  @Column(bigintColumn('created')) declare created: number;
  @Column(bigintColumn('updated')) declare updated: number;
}

/** The fields of a new task. */
export type NewTask = Pick<ActionTaskModel, 'jobId' | 'attempt' | 'runnerId' | 'repoId' | 'ownerId' | 'commitSha' | 'isForkPullRequest' | 'tokenHash' | 'tokenLastEight'>;

/** Store new running tasks, in order; returns them with their ids. */
export function insertTasks(ctx: DbContext, tasks: NewTask[], now: number): Promise<ActionTaskModel[]> {
  return ActionTaskModel.bulkCreate(tasks.map((t) => ({ ...t, status: ActionStatus.Running, started: now, created: now, updated: now })), { transaction: ctx.tx, returning: true });
}

/** Name the log files of tasks (their ids are known once stored), `[taskId, name]` pairs, in one statement. */
export async function setTaskLogFilenames(ctx: DbContext, pairs: [number, string][]): Promise<void> {
  await setByCase(ctx, 'action_task', ['log_filename'], pairs);
}

/** A task's end as its runner reported it. */
export interface TaskEnd { id: number; status: ActionStatus; stopped: number }

/** End running tasks, each with its status and time, in one statement; returns the ids of those that were still running. */
export function endTasks(ctx: DbContext, ends: TaskEnd[], now: number): Promise<number[]> {
  return setByCase(ctx, 'action_task', ['status', 'stopped'], ends.map((e) => [e.id, e.status, e.stopped]), { set: { updated: now }, where: { column: 'status', in: [ActionStatus.Running] } });
}

/** The log of a task as stored so far. */
export interface TaskLogState { id: number; logLength: number; logSize: number; logInStorage: boolean }

/** Record how far the logs of tasks reached, in one statement. */
export async function setTaskLogs(ctx: DbContext, logs: TaskLogState[], now: number): Promise<void> {
  await setByCase(ctx, 'action_task', ['log_length', 'log_size', 'log_in_storage'], logs.map((l) => [l.id, l.logLength, l.logSize, l.logInStorage]), { set: { updated: now } });
}

/** A task by id, or null. */
export function findTaskById(ctx: DbContext, id: number): Promise<ActionTaskModel | null> {
  return ActionTaskModel.findByPk(id, { transaction: ctx.tx });
}

/** The running task whose token hashes to `tokenHash`, or null. */
export function findRunningTaskByTokenHash(ctx: DbContext, tokenHash: string): Promise<ActionTaskModel | null> {
  return ActionTaskModel.findOne({ where: { tokenHash, status: ActionStatus.Running }, transaction: ctx.tx });
}

/** Tasks by id. */
export function findTasksByIds(ctx: DbContext, ids: number[]): Promise<ActionTaskModel[]> {
  const wanted = [...new Set(ids.filter((i) => i > 0))];
  return wanted.length ? ActionTaskModel.findAll({ where: { id: wanted }, transaction: ctx.tx }) : Promise.resolve([]);
}

/** Change a task, only while its status is one of `from` (when given); whether it changed. */
export async function updateTask(
  ctx: DbContext, id: number, changes: Partial<Pick<ActionTaskModel, 'status' | 'stopped' | 'logLength' | 'logSize' | 'logInStorage'>>, now: number, from?: ActionStatus[],
): Promise<boolean> {
  const [n] = await ActionTaskModel.update({ ...changes, updated: now }, { where: from ? { id, status: from } : { id }, transaction: ctx.tx });
  return n > 0;
}

/** A repository's tasks, newest first, one page, and their number. */
export function listTasksOfRepo(ctx: DbContext, repoId: number, page: { limit: number; offset: number }): Promise<{ rows: ActionTaskModel[]; count: number }> {
  return ActionTaskModel.findAndCountAll({ where: { repoId }, order: [['id', 'DESC']], ...page, transaction: ctx.tx });
}

/** Running tasks not updated since `cutoff`, or started before `startedBefore` (zombie and endless tasks). */
export function staleRunningTasks(ctx: DbContext, cutoff: number, startedBefore: number, limit: number): Promise<ActionTaskModel[]> {
  return ActionTaskModel.findAll({
    where: { status: ActionStatus.Running, [Op.or]: [{ updated: { [Op.lt]: cutoff } }, { started: { [Op.lt]: startedBefore } }] }, limit, transaction: ctx.tx,
  });
}

/** The tasks of jobs (for the deletion of runs). */
export function tasksOfJobs(ctx: DbContext, jobIds: number[]): Promise<ActionTaskModel[]> {
  return jobIds.length ? ActionTaskModel.findAll({ where: { jobId: jobIds }, transaction: ctx.tx }) : Promise.resolve([]);
}

/** Delete tasks by id. */
export async function deleteTasks(ctx: DbContext, ids: number[]): Promise<void> {
  if (ids.length) await ActionTaskModel.destroy({ where: { id: ids }, transaction: ctx.tx });
}

/** Finished tasks stopped before `cutoff` whose logs are still kept (for LOG_RETENTION_DAYS). */
export function tasksWithLogsStoppedBefore(ctx: DbContext, cutoff: number, limit: number): Promise<ActionTaskModel[]> {
  return ActionTaskModel.findAll({ where: { logExpired: false, stopped: { [Op.gt]: 0, [Op.lt]: cutoff } }, order: [['stopped', 'ASC']], limit, transaction: ctx.tx });
}

/** Mark a task's log removed; whether this call did it (another node may have been first). */
export async function markLogExpired(ctx: DbContext, id: number): Promise<boolean> {
  const [n] = await ActionTaskModel.update({ logExpired: true }, { where: { id, logExpired: false }, transaction: ctx.tx });
  return n > 0;
}
