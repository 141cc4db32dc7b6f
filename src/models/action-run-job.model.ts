/**
 * Gitea's `action_run_job`: one job of a run (one per matrix combination), with its single-job
 * workflow, the job ids it needs, its `runs-on` labels, and the task of its latest attempt.
 */
import { Op, QueryTypes, type WhereOptions } from 'sequelize';
import { Table, Column, Model, DataType } from 'sequelize-typescript';
import { db, type DbContext } from '../db';
import { bigintColumn } from './action-runner.model';
import { setByCase } from './set-by-case';
import { ActionStatus } from './action-run.model';

@Table({ tableName: 'action_run_job', underscored: true, timestamps: false })
export class ActionRunJobModel extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare runId: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare repoId: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare ownerId: number;
  @Column({ type: DataType.STRING(64), allowNull: false }) declare commitSha: string;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: false }) declare isForkPullRequest: boolean;
  @Column({ type: DataType.STRING(255), allowNull: false }) declare name: string;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare attempt: number;
  @Column({ type: DataType.TEXT, allowNull: false }) declare workflowPayload: string;
  @Column({ type: DataType.STRING(255), allowNull: false }) declare jobId: string;
  @Column({ type: DataType.TEXT, allowNull: false, defaultValue: '[]' }) declare needs: string;
  @Column({ type: DataType.TEXT, allowNull: false, defaultValue: '[]' }) declare runsOn: string;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: false }) declare hasIf: boolean;
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare taskId: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare status: ActionStatus;
  @Column(bigintColumn('started')) declare started: number;
  @Column(bigintColumn('stopped')) declare stopped: number;
  @Column(bigintColumn('created')) declare created: number;
  @Column(bigintColumn('updated')) declare updated: number;

  /** The job ids this job needs. */
  needList(): string[] { return JSON.parse(this.needs) as string[]; }
  /** The labels a runner must have. */
  labels(): string[] { return JSON.parse(this.runsOn) as string[]; }
}

/** The fields of a new job. */
export type NewJob = Pick<ActionRunJobModel, 'runId' | 'repoId' | 'ownerId' | 'commitSha' | 'isForkPullRequest' | 'name' | 'workflowPayload' | 'jobId' | 'hasIf' | 'status'>
  & { needs: string[]; runsOn: string[] };

/** Store a run's jobs. */
export async function insertJobs(ctx: DbContext, jobs: NewJob[], now: number): Promise<ActionRunJobModel[]> {
  return ActionRunJobModel.bulkCreate(jobs.map((j) => ({ ...j, needs: JSON.stringify(j.needs), runsOn: JSON.stringify(j.runsOn), created: now, updated: now })), { transaction: ctx.tx, returning: true });
}

/** The jobs of a run, in id order. */
export function listJobsOfRun(ctx: DbContext, runId: number): Promise<ActionRunJobModel[]> {
  return ActionRunJobModel.findAll({ where: { runId }, order: [['id', 'ASC']], transaction: ctx.tx });
}

/** The jobs of runs, in id order. */
export function listJobsOfRuns(ctx: DbContext, runIds: number[]): Promise<ActionRunJobModel[]> {
  return runIds.length ? ActionRunJobModel.findAll({ where: { runId: [...new Set(runIds)] }, order: [['id', 'ASC']], transaction: ctx.tx }) : Promise.resolve([]);
}

/** A job by id, or null. */
export function findJobById(ctx: DbContext, id: number): Promise<ActionRunJobModel | null> {
  return ActionRunJobModel.findByPk(id, { transaction: ctx.tx });
}

/** Jobs by id. */
export function findJobsByIds(ctx: DbContext, ids: number[]): Promise<ActionRunJobModel[]> {
  return ids.length ? ActionRunJobModel.findAll({ where: { id: [...new Set(ids)] }, transaction: ctx.tx }) : Promise.resolve([]);
}

/** What narrows a job listing. */
export interface JobFilter { repoId?: number; ownerId?: number; runId?: number; statuses?: ActionStatus[] }

/** Jobs matching `f`, newest first, one page, and their number. */
export function listJobs(ctx: DbContext, f: JobFilter, page: { limit: number; offset: number }): Promise<{ rows: ActionRunJobModel[]; count: number }> {
  const where: WhereOptions = {};
  for (const k of ['repoId', 'ownerId', 'runId'] as const) if (f[k] !== undefined) Object.assign(where, { [k]: f[k] });
  if (f.statuses) Object.assign(where, { status: f.statuses });
  return ActionRunJobModel.findAndCountAll({ where, order: [['id', 'DESC']], ...page, transaction: ctx.tx });
}

/** A job waiting for a runner: where it runs, and the labels a runner must have. */
export interface PickableJob { id: number; runId: number; repoId: number; ownerId: number; labels: string[] }

/** Up to `limit` jobs waiting for a runner, the longest waiting first. why: plain rows; a dispatch round reads hundreds. */
export async function listPickableJobs(ctx: DbContext, limit: number): Promise<PickableJob[]> {
  const rows = await db().query<{ id: number; run_id: number; repo_id: number; owner_id: number; runs_on: string }>(
    'SELECT id, run_id, repo_id, owner_id, runs_on FROM action_run_job WHERE status = :waiting AND task_id = 0 ORDER BY updated, id LIMIT :limit',
    { replacements: { waiting: ActionStatus.Waiting, limit }, type: QueryTypes.SELECT, transaction: ctx.tx },
  );
  return rows.map((r) => ({ id: Number(r.id), runId: Number(r.run_id), repoId: Number(r.repo_id), ownerId: Number(r.owner_id), labels: JSON.parse(r.runs_on) as string[] }));
}

/**
 * Claim waiting jobs: one guarded update moves those still waiting with no task to running (attempt
 * + 1) and returns their ids. why: of two rounds racing for a job, one changes the row and the other
 * sees it gone. The claimed jobs get their task ids by `setJobTasks` in the same transaction.
 */
export async function claimJobs(ctx: DbContext, ids: number[], now: number): Promise<number[]> {
  if (ids.length === 0) return [];
  const rows = await db().query<{ id: number }>(
    'UPDATE action_run_job SET status = :running, started = :now, stopped = 0, updated = :now, attempt = attempt + 1 WHERE id IN (:ids) AND task_id = 0 AND status = :waiting RETURNING id',
    { replacements: { ids, now, running: ActionStatus.Running, waiting: ActionStatus.Waiting }, type: QueryTypes.SELECT, transaction: ctx.tx },
  );
  return rows.map((r) => Number(r.id));
}

/** Record the tasks of claimed jobs, `[jobId, taskId]` pairs, in one statement. */
export async function setJobTasks(ctx: DbContext, pairs: [number, number][]): Promise<void> {
  await setByCase(ctx, 'action_run_job', ['task_id'], pairs);
}

/** End running jobs, each with its status and time, in one statement; returns the ids of those that were still running. */
export function endJobs(ctx: DbContext, ends: { id: number; status: ActionStatus; stopped: number }[], now: number): Promise<number[]> {
  return setByCase(ctx, 'action_run_job', ['status', 'stopped'], ends.map((e) => [e.id, e.status, e.stopped]), { set: { updated: now }, where: { column: 'status', in: [ActionStatus.Running] } });
}

/** Change a job, only while its status is one of `from` (when given); whether it changed. */
export async function updateJob(
  ctx: DbContext, id: number, changes: Partial<Pick<ActionRunJobModel, 'status' | 'started' | 'stopped' | 'taskId'>>, now: number, from?: ActionStatus[],
): Promise<boolean> {
  const where = from ? { id, status: from } : { id };
  const [n] = await ActionRunJobModel.update({ ...changes, updated: now }, { where, transaction: ctx.tx });
  return n > 0;
}

/** Delete the jobs of runs. */
export async function deleteJobsOfRuns(ctx: DbContext, runIds: number[]): Promise<void> {
  if (runIds.length) await ActionRunJobModel.destroy({ where: { runId: runIds }, transaction: ctx.tx });
}

/** Jobs waiting or blocked, untouched since before `cutoff` (abandoned). */
export function abandonedJobs(ctx: DbContext, cutoff: number, limit: number): Promise<ActionRunJobModel[]> {
  return ActionRunJobModel.findAll({ where: { status: [ActionStatus.Waiting, ActionStatus.Blocked], updated: { [Op.lt]: cutoff } }, limit, transaction: ctx.tx });
}
