/**
 * Gitea's `action_run`: one run of one workflow file for one event, numbered per repository
 * (`index`), with the event's payload and the status aggregated from its jobs.
 */
import { Op, QueryTypes, literal, type WhereOptions } from 'sequelize';
import { Table, Column, Model, DataType } from 'sequelize-typescript';
import { db, type DbContext } from '../db';
import { bigintColumn } from './action-runner.model';
import { markArtifactsForDeletion } from './action-artifact.model';
import { nowUnix } from './issue.model';
import { setByCase } from './set-by-case';

/** Gitea's action statuses; 1-4 are the finished ones and equal the runner protocol's results. */
export enum ActionStatus { Unknown = 0, Success = 1, Failure = 2, Cancelled = 3, Skipped = 4, Waiting = 5, Running = 6, Blocked = 7 }

/** Whether a status is a finished one. */
export function isDone(s: ActionStatus): boolean {
  return s >= ActionStatus.Success && s <= ActionStatus.Skipped;
}

@Table({ tableName: 'action_run', underscored: true, timestamps: false })
export class ActionRunModel extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.TEXT, allowNull: false, defaultValue: '' }) declare title: string;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare repoId: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare ownerId: number;
  @Column({ type: DataType.STRING(255), allowNull: false }) declare workflowId: string;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare index: number;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare triggerUserId: number;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare scheduleId: number;
  @Column({ type: DataType.STRING(255), allowNull: false, defaultValue: '' }) declare ref: string;
  @Column({ type: DataType.STRING(64), allowNull: false, defaultValue: '' }) declare commitSha: string;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: false }) declare isForkPullRequest: boolean;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: false }) declare needApproval: boolean;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare approvedBy: number;
  @Column({ type: DataType.STRING(64), allowNull: false }) declare event: string;
  @Column({ type: DataType.TEXT, allowNull: false, defaultValue: '' }) declare eventPayload: string;
  @Column({ type: DataType.STRING(64), allowNull: false, defaultValue: '' }) declare triggerEvent: string;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare status: ActionStatus;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare version: number;
  @Column(bigintColumn('started')) declare started: number;
  @Column(bigintColumn('stopped')) declare stopped: number;
  @Column(bigintColumn('previousDuration')) declare previousDuration: number;
  @Column(bigintColumn('created')) declare created: number;
  @Column(bigintColumn('updated')) declare updated: number;
}

/** The fields of a new run. */
export type NewRun = Pick<ActionRunModel, 'title' | 'repoId' | 'ownerId' | 'workflowId' | 'triggerUserId' | 'scheduleId' | 'ref' | 'commitSha'
  | 'isForkPullRequest' | 'needApproval' | 'event' | 'eventPayload' | 'triggerEvent' | 'status'>;

/** Give out the next run number of a repository. */
export async function nextRunIndex(ctx: DbContext, repoId: number): Promise<number> {
  const rows = await db().query<{ max_index: number | string }>(
    '/* next run number */ INSERT INTO action_run_index (group_id, max_index) VALUES (:repoId, 1) ON CONFLICT (group_id) DO UPDATE SET max_index = action_run_index.max_index + 1 RETURNING max_index',
    { replacements: { repoId }, type: QueryTypes.SELECT, transaction: ctx.tx },
  );
  return Number(rows[0].max_index);
}

/** Store a new run with its number. */
export function insertRun(ctx: DbContext, run: NewRun & { index: number; now: number }): Promise<ActionRunModel> {
  return ActionRunModel.create({ ...run, created: run.now, updated: run.now }, { transaction: ctx.tx });
}

/** A run by id, or null. */
export function findRunById(ctx: DbContext, id: number): Promise<ActionRunModel | null> {
  return ActionRunModel.findByPk(id, { transaction: ctx.tx });
}

/** A repository's run by its number (`index`, as its page's address names it), or null. */
export function findRunByIndex(ctx: DbContext, repoId: number, index: number): Promise<ActionRunModel | null> {
  return ActionRunModel.findOne({ where: { repoId, index }, transaction: ctx.tx });
}

/** Runs by id. */
export function findRunsByIds(ctx: DbContext, ids: number[]): Promise<ActionRunModel[]> {
  return ids.length ? ActionRunModel.findAll({ where: { id: [...new Set(ids)] }, transaction: ctx.tx }) : Promise.resolve([]);
}

/**
 * Runs by id, locked for the transaction in id order (PostgreSQL; SQLite has one writer). why: a
 * settle reads a run's jobs after locking the run, so of two transactions that end jobs of one run,
 * the later sees the other's jobs and leaves the right status; the id order keeps them from deadlocking.
 */
export function lockRuns(ctx: DbContext, ids: number[]): Promise<ActionRunModel[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return ActionRunModel.findAll({ where: { id: [...new Set(ids)] }, order: [['id', 'ASC']], transaction: ctx.tx, ...(ctx.tx ? { lock: true } : {}) });
}

/** What narrows a run listing. */
export interface RunFilter {
  repoId?: number; ownerId?: number; event?: string; ref?: string; statuses?: ActionStatus[]; triggerUserId?: number; commitSha?: string; workflowId?: string;
}

/** Runs matching `f`, newest first, one page, and their number. */
export function listRuns(ctx: DbContext, f: RunFilter, page: { limit: number; offset: number }): Promise<{ rows: ActionRunModel[]; count: number }> {
  const where: WhereOptions = {};
  for (const k of ['repoId', 'ownerId', 'event', 'ref', 'triggerUserId', 'commitSha', 'workflowId'] as const) if (f[k] !== undefined) Object.assign(where, { [k]: f[k] });
  if (f.statuses) Object.assign(where, { status: f.statuses });
  return ActionRunModel.findAndCountAll({ where, order: [['id', 'DESC']], ...page, transaction: ctx.tx });
}

/** The unfinished runs of a workflow for the same ref and event (a new push cancels them). */
export function unfinishedRunsLike(ctx: DbContext, repoId: number, workflowId: string, ref: string, event: string): Promise<ActionRunModel[]> {
  return ActionRunModel.findAll({
    where: { repoId, workflowId, ref, event, status: [ActionStatus.Waiting, ActionStatus.Running, ActionStatus.Blocked] }, transaction: ctx.tx,
  });
}

/** Whether a user's runs in a repository were ever approved (a fork's pull request run needs approval only the first time). */
export async function hasApprovedRuns(ctx: DbContext, repoId: number, triggerUserId: number): Promise<boolean> {
  return (await ActionRunModel.count({ where: { repoId, triggerUserId, approvedBy: { [Op.gt]: 0 } }, transaction: ctx.tx })) > 0;
}

/** Record a run's approval: its blocked jobs may then wait for runners. */
export async function approveRunRow(ctx: DbContext, id: number, approverId: number): Promise<boolean> {
  const [n] = await ActionRunModel.update({ needApproval: false, approvedBy: approverId }, { where: { id, needApproval: true }, transaction: ctx.tx });
  return n > 0;
}

/** Set a run's status and times, bumping its version. */
export async function updateRun(ctx: DbContext, id: number, changes: Partial<Pick<ActionRunModel, 'status' | 'started' | 'stopped' | 'previousDuration'>>, now: number): Promise<void> {
  await ActionRunModel.update({ ...changes, updated: now, version: literal('version + 1') }, { where: { id }, transaction: ctx.tx });
}

/** A run's status and times as its jobs make them. */
export interface RunState { id: number; status: ActionStatus; started: number; stopped: number }

/** Set the status and times of runs, bumping their versions, in one statement. */
export async function setRunStates(ctx: DbContext, states: RunState[], now: number): Promise<void> {
  await setByCase(ctx, 'action_run', ['status', 'started', 'stopped'], states.map((r) => [r.id, r.status, r.started, r.stopped]), { set: { updated: now }, increment: ['version'] });
}

/** Delete a run row. */
export async function deleteRunRow(ctx: DbContext, id: number): Promise<void> {
  await ActionRunModel.destroy({ where: { id }, transaction: ctx.tx });
}

/** Delete every run of a repository with its jobs, tasks, steps, outputs, run numbers and schedules; mark its artifacts for deletion. */
export async function deleteRunsOfRepo(ctx: DbContext, repoId: number): Promise<void> {
  const exec = (q: string) => db().query(q, { replacements: { repoId }, transaction: ctx.tx });
  await exec('DELETE FROM action_task_output WHERE task_id IN (SELECT id FROM action_task WHERE repo_id = :repoId)');
  await exec('DELETE FROM action_task_step WHERE repo_id = :repoId');
  await exec('DELETE FROM action_task WHERE repo_id = :repoId');
  await exec('DELETE FROM action_run_job WHERE repo_id = :repoId');
  await exec('DELETE FROM action_run WHERE repo_id = :repoId');
  await exec('DELETE FROM action_run_index WHERE group_id = :repoId');
  await exec('DELETE FROM action_schedule WHERE repo_id = :repoId');
  await markArtifactsForDeletion(ctx, { repoId }, nowUnix());
}

/** The log files of a repository's tasks (to remove with it). */
export async function logFilesOfRepo(ctx: DbContext, repoId: number): Promise<string[]> {
  const rows = await db().query<{ log_filename: string }>("SELECT log_filename FROM action_task WHERE repo_id = :repoId AND log_filename <> ''", {
    replacements: { repoId }, type: QueryTypes.SELECT, transaction: ctx.tx,
  });
  return rows.map((r) => r.log_filename);
}
