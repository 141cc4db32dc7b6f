/**
 * What the REST API reads of runs, jobs, tasks and logs of a repository, for readers of its
 * Actions unit; and the changes its writers make (cancel, rerun, delete).
 */
import type { Readable } from 'node:stream';
import type { DbContext } from '../../db';
import { BadRequest, NotFound } from '../../errors';
import { UnitType } from '../../models/perm';
import { ActionStatus, findRunById, findRunsByIds, listRuns, type ActionRunModel, type RunFilter } from '../../models/action-run.model';
import { findJobById, findJobsByIds, listJobs, type ActionRunJobModel, type JobFilter } from '../../models/action-run-job.model';
import { findTaskById, listTasksOfRepo } from '../../models/action-task.model';
import { findUserById, findUserByName } from '../../models/user.model';
import { findRepoById } from '../../models/repository.model';
import { assertUnitReadable, assertUnitWriter } from '../repo/access';
import type { RepoContext } from '../repo/context';
import { readLog } from '../storage/log-store';
import { jobViews } from '../../models/action-job-view';

export { jobViews } from '../../models/action-job-view';
import { approveRun, cancelRun, deleteRun, rerun } from './run.service';

/** The statuses a `status` query names (GitHub's words and Gitea's); 400 for another word. */
export function statusesOf(words: string[]): ActionStatus[] | undefined {
  if (words.length === 0) return undefined;
  const S = ActionStatus;
  const map: Record<string, ActionStatus[]> = {
    pending: [S.Blocked], waiting: [S.Blocked], requested: [S.Blocked], action_required: [S.Blocked], queued: [S.Waiting], in_progress: [S.Running],
    completed: [S.Success, S.Failure, S.Cancelled, S.Skipped], success: [S.Success], failure: [S.Failure], skipped: [S.Skipped], neutral: [S.Skipped],
    cancelled: [S.Cancelled], timed_out: [S.Cancelled],
  };
  return words.flatMap((w) => {
    if (!map[w]) throw new BadRequest(`invalid status: ${w}`);
    return map[w];
  });
}

/** 404 when the repository's Actions unit is off, 403 for a caller who cannot read it. */
export function assertActionsReadable(rc: RepoContext): void {
  assertUnitReadable(rc, UnitType.Actions);
}

/** The filters of a run listing. */
export interface RunQuery { event?: string; branch?: string; status: string[]; actor?: string; headSha?: string; workflowId?: string }

/** Runs matching `q` (repository, user or organization, or all for the instance), newest first. */
export async function listRunsWhere(ctx: DbContext, scope: Pick<RunFilter, 'repoId' | 'ownerId'>, q: RunQuery, page: { limit: number; offset: number }) {
  const f: RunFilter = { ...scope, statuses: statusesOf(q.status) };
  if (q.event) f.event = q.event;
  if (q.branch) f.ref = `refs/heads/${q.branch}`;
  if (q.headSha) f.commitSha = q.headSha;
  if (q.workflowId) f.workflowId = q.workflowId;
  if (q.actor) {
    const u = await findUserByName(ctx, q.actor);
    if (!u) return { rows: [], count: 0 };
    f.triggerUserId = u.id;
  }
  return listRuns(ctx, f, page);
}

/** A repository's run by id; 404 for another repository's. */
export async function repoRun(ctx: DbContext, rc: RepoContext, runId: number, write = false): Promise<ActionRunModel> {
  (write ? assertUnitWriter : assertUnitReadable)(rc, UnitType.Actions);
  const run = await findRunById(ctx, runId);
  if (!run || run.repoId !== rc.repo.id) throw new NotFound('run not found');
  return run;
}

/** A repository's job by id; 404 for another repository's. */
export async function repoJob(ctx: DbContext, rc: RepoContext, jobId: number, write = false): Promise<ActionRunJobModel> {
  (write ? assertUnitWriter : assertUnitReadable)(rc, UnitType.Actions);
  const job = await findJobById(ctx, jobId);
  if (!job || job.repoId !== rc.repo.id) throw new NotFound('job not found');
  return job;
}

/** Jobs matching a filter, newest first, as views. */
export async function listJobViews(ctx: DbContext, f: JobFilter, status: string[], page: { limit: number; offset: number }) {
  const { rows, count } = await listJobs(ctx, { ...f, statuses: statusesOf(status) }, page);
  return { views: await jobViews(ctx, rows), count };
}

/** The log of a job's latest attempt: its stream, size and download name. 404 before a task ran it. */
export async function jobLog(ctx: DbContext, rc: RepoContext, jobId: number): Promise<{ stream: Readable; size: number; filename: string }> {
  const job = await repoJob(ctx, rc, jobId);
  if (!job.taskId) throw new NotFound('job not started');
  const task = await findTaskById(ctx, job.taskId);
  const stream = task && !task.logExpired ? readLog(task.logFilename, task.logInStorage) : null;
  if (!task || !stream) throw new NotFound('logs have been cleaned up');
  const run = (await findRunById(ctx, job.runId))!;
  return { stream, size: task.logSize, filename: `${run.workflowId.split('.')[0]}-${job.name}-${task.id}.log` };
}

/** A repository's tasks with their jobs and runs, newest first. */
export async function listRepoTasks(ctx: DbContext, rc: RepoContext, page: { limit: number; offset: number }) {
  assertUnitReadable(rc, UnitType.Actions);
  const { rows, count } = await listTasksOfRepo(ctx, rc.repo.id, page);
  const jobs = new Map((await findJobsByIds(ctx, rows.map((t) => t.jobId))).map((j) => [j.id, j]));
  const runs = new Map((await findRunsByIds(ctx, [...jobs.values()].map((j) => j.runId))).map((r) => [r.id, r]));
  const items = rows.flatMap((task) => {
    const job = jobs.get(task.jobId);
    const run = job && runs.get(job.runId);
    return job && run ? [{ task, job, run }] : [];
  });
  return { items, count };
}

/** Cancel a run (writers of the Actions unit). */
export async function cancelRepoRun(ctx: DbContext, rc: RepoContext, runId: number): Promise<void> {
  await cancelRun(await repoRun(ctx, rc, runId, true));
}

/** Approve a fork's pull request run (writers). */
export async function approveRepoRun(ctx: DbContext, rc: RepoContext, runId: number, approverId: number): Promise<void> {
  await approveRun(await repoRun(ctx, rc, runId, true), approverId);
}

/** Rerun a run, or one of its jobs and the jobs that need it (writers). */
export async function rerunRepoRun(ctx: DbContext, rc: RepoContext, runId: number, jobId?: number): Promise<void> {
  const run = await repoRun(ctx, rc, runId, true);
  if (jobId !== undefined) {
    const job = await repoJob(ctx, rc, jobId, true);
    if (job.runId !== run.id) throw new NotFound('job not found');
  }
  await rerun(run, jobId);
}

/** Delete a finished run (writers). */
export async function deleteRepoRun(ctx: DbContext, rc: RepoContext, runId: number): Promise<void> {
  await deleteRun(await repoRun(ctx, rc, runId, true));
}

/** The owner and repository names of repositories, by id (for the addresses of runs and jobs listed across repositories). */
export async function repoNamesOf(ctx: DbContext, repoIds: number[]): Promise<Map<number, { owner: string; repo: string }>> {
  const out = new Map<number, { owner: string; repo: string }>();
  for (const id of new Set(repoIds)) {
    const repo = await findRepoById(ctx, id);
    const owner = repo && (await findUserById(ctx, repo.ownerId));
    if (repo && owner) out.set(id, { owner: owner.name, repo: repo.name });
  }
  return out;
}
