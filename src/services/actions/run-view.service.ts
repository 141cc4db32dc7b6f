/**
 * What a run's web page shows (Gitea's `repo/actions/view`): the run by its number, its jobs, the
 * chosen job's latest task and its steps as sections of the task's log (with Gitea's "Set up job"
 * before the first step and "Complete job" after the last), and pieces of those sections' lines.
 */
import type { DbContext } from '../../db';
import { NotFound } from '../../errors';
import { UnitType } from '../../models/perm';
import { ActionStatus, findRunByIndex, isDone, type ActionRunModel } from '../../models/action-run.model';
import { listJobsOfRun, type ActionRunJobModel } from '../../models/action-run-job.model';
import { findTaskById, type ActionTaskModel } from '../../models/action-task.model';
import { listStepsOfTasks } from '../../models/action-task-step.model';
import { findUsersByIds, type UserModel } from '../../models/user.model';
import { listArtifacts, type ActionArtifactModel } from '../../models/action-artifact.model';
import { assertUnitReadable } from '../repo/access';
import type { RepoContext } from '../repo/context';
import { readLogLines } from '../storage/log-lines';

/** One section of a job's log: a step (or the set-up and completion around them) and its lines `[from, to)`. */
export interface LogSection { index: number; name: string; status: ActionStatus; started: number; stopped: number; from: number; to: number }

/** A run's page: the run, its jobs, the chosen job with its task and log sections. */
export interface RunPageState {
  run: ActionRunModel; jobs: ActionRunJobModel[]; job: ActionRunJobModel; jobIndex: number; task: ActionTaskModel | null; sections: LogSection[];
}

/** A repository's run by its number (readers of the Actions unit); 404 for none. */
export async function runByIndex(ctx: DbContext, rc: RepoContext, index: number): Promise<ActionRunModel> {
  assertUnitReadable(rc, UnitType.Actions);
  const run = Number.isSafeInteger(index) && index > 0 ? await findRunByIndex(ctx, rc.repo.id, index) : null;
  if (!run) throw new NotFound('run not found');
  return run;
}

/** The log sections of a task: set-up, each step, completion (the last only once the task is done). */
function sectionsOf(task: ActionTaskModel, steps: Awaited<ReturnType<typeof listStepsOfTasks>>): LogSection[] {
  const total = Number(task.logLength);
  const begun = steps.filter((s) => s.status !== ActionStatus.Waiting && s.status !== ActionStatus.Blocked && s.status !== ActionStatus.Unknown);
  const setupEnd = begun.length ? Math.min(...begun.map((s) => s.logIndex)) : total;
  const out: LogSection[] = [{
    index: 0, name: 'Set up job', status: begun.length || isDone(task.status) ? ActionStatus.Success : ActionStatus.Running,
    started: Number(task.started), stopped: begun[0] ? Number(begun[0].started) : 0, from: 0, to: Math.min(setupEnd, total),
  }];
  let end = setupEnd;
  for (const s of steps) {
    const running = s.status === ActionStatus.Running;
    // why: a running step's length is what the runner last reported; its rows appended since then belong to it too.
    const to = running ? total : s.logIndex + Number(s.logLength);
    const begunStep = begun.includes(s);
    out.push({ index: s.index + 1, name: s.name, status: s.status, started: Number(s.started), stopped: Number(s.stopped), from: begunStep ? s.logIndex : to, to: begunStep ? Math.min(to, total) : to });
    if (begunStep) end = Math.max(end, to);
  }
  if (isDone(task.status)) {
    out.push({ index: steps.length + 1, name: 'Complete job', status: task.status, started: Number(task.stopped), stopped: Number(task.stopped), from: Math.min(end, total), to: total });
  }
  return out.map((s) => ({ ...s, from: Math.min(s.from, s.to) }));
}

/** The state of a run's page with its job at `jobIndex` (its place among the run's jobs); 404 for none. */
export async function runPageState(ctx: DbContext, rc: RepoContext, runIndex: number, jobIndex: number): Promise<RunPageState> {
  const run = await runByIndex(ctx, rc, runIndex);
  const jobs = await listJobsOfRun(ctx, run.id);
  const job = Number.isSafeInteger(jobIndex) && jobIndex >= 0 ? jobs[jobIndex] : undefined;
  if (!job) throw new NotFound('job not found');
  // why: the live view asks once a second per watcher; the task and its steps are read side by side.
  const [task, steps] = job.taskId ? await Promise.all([findTaskById(ctx, job.taskId), listStepsOfTasks(ctx, [job.taskId])]) : [null, []];
  const sections = task ? sectionsOf(task, steps) : [];
  return { run, jobs, job, jobIndex, task, sections };
}

/** Lines `[from, to)` of a section of a task's log (clipped to the section); empty when the log is gone. */
export async function sectionLines(task: ActionTaskModel | null, section: LogSection, from: number, to: number): Promise<string[]> {
  if (!task || task.logExpired) return [];
  const a = section.from + Math.max(0, from);
  const b = Math.min(section.to, section.from + Math.max(0, to));
  if (b <= a) return [];
  return (await readLogLines(task.logFilename, task.logInStorage, a, b)) ?? [];
}

/** The users who started runs, by id (a removed user or the system is absent). */
export async function runActors(ctx: DbContext, runs: ActionRunModel[]): Promise<Map<number, UserModel>> {
  return new Map((await findUsersByIds(ctx, runs.map((r) => r.triggerUserId).filter((id) => id > 0))).map((u) => [u.id, u]));
}

/** A run's finished artifacts, by name. */
export async function runArtifacts(ctx: DbContext, rc: RepoContext, run: ActionRunModel): Promise<ActionArtifactModel[]> {
  assertUnitReadable(rc, UnitType.Actions);
  return (await listArtifacts(ctx, { repoId: rc.repo.id, runId: run.id, confirmedOnly: true })).rows;
}
