/**
 * Workflow runs: made from an event (a push, a dispatch), their jobs unblocked as their needs
 * finish (Gitea's job emitter), their status aggregated from the jobs, cancelled, rerun and
 * deleted; each job's state reported as a commit status. A job becomes waiting in a transaction;
 * runners are woken once it commits.
 */
import crypto from 'node:crypto';
import YAML from 'yaml';
import { systemCtx, withTx, type DbContext } from '../../db';
import { BadRequest } from '../../errors';
import { formatGoDuration, settings } from '../../config';
import { repoPath } from '../../git/paths';
import { changedPaths } from '../../git/history';
import {
  ActionStatus, isDone, findRunById, insertRun, nextRunIndex, unfinishedRunsLike, updateRun, deleteRunRow, hasApprovedRuns, approveRunRow, lockRuns,
  setRunStates, type ActionRunModel, type NewRun, type RunState,
} from '../../models/action-run.model';
import { AccessMode, UnitType } from '../../models/perm';
import { asUser } from '../auth/principal';
import { repoPermission } from '../perm/permission';
import { insertJobs, listJobsOfRun, listJobsOfRuns, updateJob, deleteJobsOfRuns, type ActionRunJobModel } from '../../models/action-run-job.model';
import { insertTasks, setTaskLogFilenames, tasksOfJobs, updateTask, deleteTasks } from '../../models/action-task.model';
import { deleteStepsOfTasks } from '../../models/action-task-step.model';
import { deleteOutputsOfTasks } from '../../models/action-task-output.model';
import { markArtifactsForDeletion } from '../../models/action-artifact.model';
import { latestCommitStatuses } from '../../models/commit-status.model';
import { findRepoById, type RepositoryModel } from '../../models/repository.model';
import { findUserById, pseudoUser, type UserModel } from '../../models/user.model';
import { nowUnix } from '../../models/issue.model';
import { recordCommitStatus } from '../history/status.service';
import { jobViews } from '../../models/action-job-view';
import { archiveLog, formatLogLine, logFilename, removeLog } from '../storage/log-store';
import { signalJobsReady } from './jobs-signal';
import { actionsConfig } from './config';
import { planJobs, pushMatches, WorkflowError, type PlannedJob, type Workflow } from './workflow-parse';
import { parsedWorkflow, workflowFiles, type WorkflowFile } from './workflows';
import { notify, type WorkflowChange } from '../notify/notifier';

/** An event that may start workflows. */
export interface WorkflowEvent {
  repo: RepositoryModel;
  owner: UserModel;
  doerId: number;
  /** Gitea's event name (`push`, `workflow_dispatch`). */
  event: string;
  ref: string;
  sha: string;
  /** The run's title (a commit message, a pull request's title) and event payload, read only when a run is made. */
  details: () => Promise<{ title: string; payload: unknown }>;
  /** The `on:` key a parsed workflow is triggered by for this event, or null when it is not. */
  trigger: (wf: Workflow) => Promise<string | null>;
  /** Only this workflow (a dispatch). */
  workflowId?: string;
  /** A pull request from another repository: its jobs get no secrets (unless pull_request_target). */
  isFork?: boolean;
}

/** Gitea's AggregateJobStatus: the status of a run (or of a job's matrix legs) from its jobs'. */
export function aggregateStatus(statuses: ActionStatus[]): ActionStatus {
  const S = ActionStatus;
  if (statuses.length === 0) return S.Unknown;
  if (statuses.every((s) => s === S.Skipped)) return S.Skipped;
  if (statuses.every((s) => s === S.Success || s === S.Skipped)) return S.Success;
  for (const s of [S.Cancelled, S.Running, S.Waiting, S.Failure, S.Blocked]) if (statuses.includes(s)) return s;
  return S.Unknown;
}

/** What a transaction changed in a run, for what follows its commit: the run and its jobs as it left them, when it settled them. */
export interface RunChange { runId: number; jobIds: Set<number>; ready: boolean; run?: ActionRunModel; jobs?: ActionRunJobModel[] }

/** Make the runs an event triggers; returns them. A workflow file that does not parse makes a failed run on a push. */
export async function createRuns(ev: WorkflowEvent): Promise<ActionRunModel[]> {
  const config = await actionsConfig(systemCtx, ev.repo.id);
  if (!config.enabled || ev.repo.isArchived) return [];
  const dir = repoPath(ev.owner.name, ev.repo.name);
  const made: ActionRunModel[] = [];
  let details: Promise<{ title: string; payload: unknown }> | null = null;
  // why: most events start nothing; their payload (a push's commit list) is built only for a run.
  const lazy: WorkflowEvent = { ...ev, details: () => (details ??= ev.details()) };
  for (const file of await workflowFiles(dir, ev.sha)) {
    if (ev.workflowId !== undefined && file.id !== ev.workflowId) continue;
    if (config.disabled.includes(file.id)) continue;
    const parsed = parsedWorkflow(file.content);
    if (!parsed.wf) {
      if (ev.event === 'push' && parsed.error instanceof WorkflowError) made.push(await insertBrokenRun(lazy, file, parsed.error.message));
      continue;
    }
    const trigger = await ev.trigger(parsed.wf);
    if (!trigger) continue;
    made.push(await insertRunOf(lazy, file, trigger, parsed.jobs ??= planJobs(parsed.wf)));
  }
  return made;
}

/** The trigger of a push for a workflow: `push` when its filters let the ref (and changed paths) through. */
export function pushTrigger(dir: string, ref: string, before: string, after: string): (wf: Workflow) => Promise<string | null> {
  let files: Promise<string[]> | null = null;
  const changed = () => (files ??= changedPaths(dir, before, after));
  return async (wf) => (wf.on.has('push') && (await pushMatches(wf.on.get('push') ?? null, ref, changed)) ? 'push' : null);
}

/**
 * Gitea's rule for a run of a fork's pull request: it waits for the approval of a writer of the
 * Actions unit, unless it runs the base's workflow (pull_request_target), its author may write
 * Actions, or a run of that author was approved in the repository before; a restricted author's
 * run always waits.
 */
async function needsApproval(ev: WorkflowEvent, trigger: string): Promise<boolean> {
  if (!ev.isFork || trigger === 'pull_request_target') return false;
  const doer = await findUserById(systemCtx, ev.doerId);
  if (!doer || doer.isRestricted) return true;
  if ((await repoPermission(systemCtx, asUser(doer), ev.repo, ev.owner)).can(UnitType.Actions, AccessMode.Write)) return false;
  return !(await hasApprovedRuns(systemCtx, ev.repo.id, doer.id));
}

async function runRow(ev: WorkflowEvent, file: WorkflowFile, trigger: string, status: ActionStatus, needApproval = false): Promise<NewRun> {
  const { title, payload } = await ev.details();
  return {
    title: title.split('\n')[0].slice(0, 255), repoId: ev.repo.id, ownerId: ev.owner.id, workflowId: file.id, triggerUserId: ev.doerId, scheduleId: 0,
    ref: ev.ref, commitSha: ev.sha, isForkPullRequest: !!ev.isFork, needApproval, event: ev.event, eventPayload: JSON.stringify(payload),
    triggerEvent: trigger, status,
  };
}

/** Store a run and its jobs (cancelling the unfinished runs it replaces), then wake runners and report statuses. */
async function insertRunOf(ev: WorkflowEvent, file: WorkflowFile, trigger: string, jobs: PlannedJob[]): Promise<ActionRunModel> {
  const now = nowUnix();
  const approval = await needsApproval(ev, trigger);
  const statusOf = (j: PlannedJob) => (approval || j.needs.length ? ActionStatus.Blocked : ActionStatus.Waiting);
  const changes: RunChange[] = [];
  const row = await runRow(ev, file, trigger, aggregateStatus(jobs.map(statusOf)), approval);
  const run = await withTx(systemCtx, async (tx) => {
    // why: as Gitea, a new push or dispatch of a workflow makes its older unfinished runs for that ref pointless.
    if (ev.event === 'push' || ev.event === 'workflow_dispatch') {
      for (const old of await unfinishedRunsLike(tx, ev.repo.id, file.id, ev.ref, ev.event)) changes.push(await cancelRunIn(tx, old, now));
    }
    const index = await nextRunIndex(tx, ev.repo.id);
    const made = await insertRun(tx, { ...row, index, now });
    const rows = await insertJobs(tx, jobs.map((j) => ({
      runId: made.id, repoId: ev.repo.id, ownerId: ev.owner.id, commitSha: ev.sha, isForkPullRequest: !!ev.isFork, name: j.name,
      workflowPayload: j.payload, jobId: j.jobId, hasIf: j.hasIf, status: statusOf(j), needs: j.needs, runsOn: j.runsOn,
    })), now);
    const settled = await settleRun(tx, made.id, now, rows.map((r) => r.id), true);
    changes.push({ ...settled, ready: rows.some((r) => r.status === ActionStatus.Waiting) });
    return made;
  });
  await announce(changes);
  return run;
}

/** A failed run for a workflow file that does not parse, its error in the log of its one job. */
async function insertBrokenRun(ev: WorkflowEvent, file: WorkflowFile, error: string): Promise<ActionRunModel> {
  const now = nowUnix();
  const name = `${ev.owner.name}/${ev.repo.name}`;
  const row = await runRow(ev, file, ev.event, ActionStatus.Failure);
  const { run, taskId } = await withTx(systemCtx, async (tx) => {
    const index = await nextRunIndex(tx, ev.repo.id);
    const made = await insertRun(tx, { ...row, index, now });
    const [job] = await insertJobs(tx, [{
      runId: made.id, repoId: ev.repo.id, ownerId: ev.owner.id, commitSha: ev.sha, isForkPullRequest: false, name: file.id,
      workflowPayload: file.content, jobId: file.id, hasIf: false, status: ActionStatus.Failure, needs: [], runsOn: [],
    }], now);
    // why: token hashes are unique; this task's is of a token nobody holds, and it never runs.
    const [task] = await insertTasks(tx, [{
      jobId: job.id, attempt: 1, runnerId: 0, repoId: ev.repo.id, ownerId: ev.owner.id, commitSha: ev.sha, isForkPullRequest: false,
      tokenHash: crypto.randomBytes(32).toString('hex'), tokenLastEight: '',
    }], now);
    await setTaskLogFilenames(tx, [[task.id, logFilename(ev.owner.name, ev.repo.name, task.id)]]);
    await updateJob(tx, job.id, { taskId: task.id, started: now, stopped: now }, now);
    await settleRun(tx, made.id, now, [job.id], true);
    return { run: made, taskId: task.id };
  });
  const log = logFilename(ev.owner.name, ev.repo.name, taskId);
  const size = await archiveLog(log, [formatLogLine(new Date(), `Invalid workflow file ${file.path} in ${name}: ${error}`)]);
  await withTx(systemCtx, (tx) => updateTask(tx, taskId, { status: ActionStatus.Failure, stopped: now, logLength: 1, logSize: size, logInStorage: true }, now));
  await announce([{ runId: run.id, jobIds: new Set((await listJobsOfRun(systemCtx, run.id)).map((j) => j.id)), ready: false }]);
  return (await findRunById(systemCtx, run.id))!;
}

/**
 * After jobs of runs changed in `tx`: for each run (locked by `lockRuns` before its jobs were
 * changed), unblock the jobs whose needs are all done (waiting when they all succeeded or the job
 * has an `if:` for the runner to judge, else skipped), then bring the run's status and times up to
 * date, and emit the workflow_job events of the changed jobs and the workflow_run event of a run
 * made (`created`) or whose status moved. `changed` names the runs to settle and their changed
 * jobs. Returns what changed, with the runs and their jobs as the transaction leaves them.
 */
export async function settleRuns(tx: DbContext, runs: ActionRunModel[], changed: Map<number, Iterable<number>>, now: number, created = false): Promise<RunChange[]> {
  const all = await listJobsOfRuns(tx, runs.map((r) => r.id).filter((id) => changed.has(id)));
  const out: RunChange[] = [];
  const events: WorkflowChange[] = [];
  const states: RunState[] = [];
  for (const run of runs) {
    // why: a batch locks the runs of all its jobs; those whose jobs it did not change need no settling.
    if (!changed.has(run.id)) continue;
    const jobs = all.filter((j) => j.runId === run.id);
    const change: RunChange = { runId: run.id, jobIds: new Set(changed.get(run.id) ?? []), ready: false, run, jobs };
    // why: the jobs of a run that waits for approval stay blocked until a writer approves it.
    for (let moved = !run.needApproval; moved;) {
      moved = false;
      const legs = new Map<string, ActionStatus[]>();
      for (const j of jobs) legs.set(j.jobId, [...(legs.get(j.jobId) ?? []), j.status]);
      for (const j of jobs.filter((x) => x.status === ActionStatus.Blocked)) {
        const needed = j.needList().flatMap((n) => legs.get(n) ?? []);
        if (!needed.every(isDone)) continue;
        const next = needed.every((s) => s === ActionStatus.Success) || j.hasIf ? ActionStatus.Waiting : ActionStatus.Skipped;
        const stopped = next === ActionStatus.Skipped ? now : j.stopped;
        if (await updateJob(tx, j.id, { status: next, stopped }, now, [ActionStatus.Blocked])) {
          Object.assign(j, { status: next, stopped, updated: now });
          change.jobIds.add(j.id);
          if (next === ActionStatus.Waiting) change.ready = true;
          moved = true;
        }
      }
    }
    const before = run.status;
    const status = aggregateStatus(jobs.map((j) => j.status));
    const started = run.started || (jobs.some((j) => j.started > 0) ? Math.min(...jobs.filter((j) => j.started > 0).map((j) => j.started)) : 0);
    const stopped = isDone(status) ? Math.max(now, ...jobs.map((j) => j.stopped)) : 0;
    if (status !== run.status || started !== run.started || stopped !== run.stopped) {
      states.push({ id: run.id, status, started, stopped });
      Object.assign(run, { status, started, stopped, updated: now, version: run.version + 1 });
    }
    const runAction = created || runActionOf(status) !== runActionOf(before) ? runActionOf(status) : null;
    if (change.jobIds.size || runAction) {
      const touched = jobs.filter((j) => change.jobIds.has(j.id));
      events.push({ run, runAction, workflowName: () => workflowName(run, jobs[0]), jobs: () => jobViews(tx, touched, [{ run, jobs }]) });
    }
    out.push(change);
  }
  await setRunStates(tx, states, now);
  await notify.workflowRunsChanged(tx, { changes: events });
  return out;
}

/** Lock a run and settle it after its jobs `changed` (see settleRuns); a run gone changes nothing. */
export async function settleRun(tx: DbContext, runId: number, now: number, changed: Iterable<number> = [], created = false): Promise<RunChange> {
  const runs = await lockRuns(tx, [runId]);
  const [change] = await settleRuns(tx, runs, new Map([[runId, changed]]), now, created);
  return change ?? { runId, jobIds: new Set(changed), ready: false };
}

/** The workflow_run action of a run's status: requested until a job runs, in_progress, completed. */
function runActionOf(status: ActionStatus): 'requested' | 'in_progress' | 'completed' {
  return isDone(status) ? 'completed' : status === ActionStatus.Running ? 'in_progress' : 'requested';
}

/** Cancel a run's unfinished jobs in `tx` (blocked and waiting ones at once; running tasks hear it at their next report). */
async function cancelRunIn(tx: DbContext, run: ActionRunModel, now: number): Promise<RunChange> {
  const locked = await lockRuns(tx, [run.id]);
  const changed: number[] = [];
  for (const j of await listJobsOfRun(tx, run.id)) {
    if (isDone(j.status)) continue;
    if (j.taskId) await updateTask(tx, j.taskId, { status: ActionStatus.Cancelled, stopped: now }, now, [ActionStatus.Running, ActionStatus.Waiting]);
    if (await updateJob(tx, j.id, { status: ActionStatus.Cancelled, stopped: now }, now, [ActionStatus.Blocked, ActionStatus.Waiting, ActionStatus.Running])) changed.push(j.id);
  }
  const [change] = await settleRuns(tx, locked, new Map([[run.id, changed]]), now);
  return change ?? { runId: run.id, jobIds: new Set(), ready: false };
}

/** Approve a run of a fork's pull request: its jobs without needs wait for runners. 400 when it needs no approval. */
export async function approveRun(run: ActionRunModel, approverId: number): Promise<void> {
  const now = nowUnix();
  const change = await withTx(systemCtx, async (tx) => {
    if (!(await approveRunRow(tx, run.id, approverId))) throw new BadRequest('this run does not need approval');
    return settleRun(tx, run.id, now);
  });
  await announce([change]);
}

/** Cancel a run; 400 when it is already done. */
export async function cancelRun(run: ActionRunModel): Promise<void> {
  if (isDone(run.status)) throw new BadRequest('this run is already done');
  const now = nowUnix();
  await announce([await withTx(systemCtx, (tx) => cancelRunIn(tx, run, now))]);
}

/**
 * Run a finished run again: every job (`jobId` absent), or one job and the jobs that need it,
 * directly or not. The run's earlier duration is kept in `previous_duration`. 400 while the run
 * (or the job) is not done.
 */
export async function rerun(run: ActionRunModel, jobId?: number): Promise<void> {
  const now = nowUnix();
  const change = await withTx(systemCtx, async (tx) => {
    const [fresh] = await lockRuns(tx, [run.id]);
    if (!fresh) throw new BadRequest('this run is gone');
    const jobs = await listJobsOfRun(tx, run.id);
    let chosen: ActionRunJobModel[];
    if (jobId === undefined) {
      if (!isDone(fresh.status)) throw new BadRequest('this run is not done');
      chosen = jobs;
    } else {
      const job = jobs.find((j) => j.id === jobId)!;
      if (!isDone(job.status)) throw new BadRequest('this job is not done');
      const ids = new Set([job.jobId]);
      for (let grew = true; grew;) {
        grew = false;
        for (const j of jobs) if (!ids.has(j.jobId) && j.needList().some((n) => ids.has(n))) { ids.add(j.jobId); grew = true; }
      }
      chosen = jobs.filter((j) => ids.has(j.jobId));
    }
    const rerunIds = new Set(chosen.map((j) => j.jobId));
    let ready = false;
    for (const j of chosen) {
      // why: a job whose needs are all outside the rerun (so done) may start at once; the others wait for theirs.
      const blocked = j.needList().some((n) => rerunIds.has(n));
      ready ||= !blocked;
      await updateJob(tx, j.id, { status: blocked ? ActionStatus.Blocked : ActionStatus.Waiting, taskId: 0, started: 0, stopped: 0 }, now);
    }
    if (isDone(fresh.status)) {
      const reset = { previousDuration: fresh.previousDuration + Math.max(0, fresh.stopped - fresh.started), started: 0, stopped: 0 };
      await updateRun(tx, run.id, reset, now);
      Object.assign(fresh, reset);
    }
    const [settled] = await settleRuns(tx, [fresh], new Map([[run.id, chosen.map((j) => j.id)]]), now);
    settled.ready ||= ready;
    return settled;
  });
  await announce([change]);
}

/** Delete a finished run with its jobs, tasks and logs (its artifacts go with the next cleanup); 400 while it runs. */
export async function deleteRun(run: ActionRunModel): Promise<void> {
  if (!isDone(run.status)) throw new BadRequest('this run is not done');
  const logs = await withTx(systemCtx, async (tx) => {
    const jobs = await listJobsOfRun(tx, run.id);
    const tasks = await tasksOfJobs(tx, jobs.map((j) => j.id));
    const ids = tasks.map((t) => t.id);
    await deleteOutputsOfTasks(tx, ids);
    await deleteStepsOfTasks(tx, ids);
    await deleteTasks(tx, ids);
    await deleteJobsOfRuns(tx, [run.id]);
    await markArtifactsForDeletion(tx, { runIds: [run.id] }, nowUnix());
    await deleteRunRow(tx, run.id);
    return tasks.map((t) => t.logFilename);
  });
  for (const l of logs) await removeLog(l);
}

/** After a commit: wake runners when jobs became ready, and report the changed jobs' statuses. */
export async function announce(changes: RunChange[]): Promise<void> {
  if (changes.some((c) => c.ready)) signalJobsReady();
  for (const c of changes) {
    if (c.jobIds.size === 0) continue;
    try {
      await reportStatuses(c);
    } catch (err) {
      console.error(`actions: commit statuses of run ${c.runId}:`, err);
    }
  }
}

const STATE: Record<ActionStatus, 'success' | 'failure' | 'pending' | 'error'> = {
  [ActionStatus.Unknown]: 'error', [ActionStatus.Success]: 'success', [ActionStatus.Failure]: 'failure', [ActionStatus.Cancelled]: 'failure',
  [ActionStatus.Skipped]: 'success', [ActionStatus.Waiting]: 'pending', [ActionStatus.Running]: 'pending', [ActionStatus.Blocked]: 'pending',
};

function describe(j: ActionRunJobModel): string {
  const took = formatGoDuration(Math.max(0, (j.stopped || nowUnix()) - j.started));
  switch (j.status) {
    case ActionStatus.Success: return `Successful in ${took}`;
    case ActionStatus.Failure: return `Failing after ${took}`;
    case ActionStatus.Cancelled: return 'Has been cancelled';
    case ActionStatus.Skipped: return 'Has been skipped';
    case ActionStatus.Running: return 'Has started running';
    case ActionStatus.Waiting: return 'Waiting to run';
    case ActionStatus.Blocked: return 'Blocked by required conditions';
    default: return '';
  }
}

/** The name of a run's workflow: the file's `name:` when it has one, else the file name. */
export function workflowName(run: ActionRunModel, job?: ActionRunJobModel): string {
  try {
    const name = job ? (YAML.parse(job.workflowPayload) as { name?: unknown })?.name : undefined;
    if (typeof name === 'string' && name) return name;
  } catch { /* a broken file is named by its file */ }
  return run.workflowId;
}

const PULL_STATUS_EVENTS = new Set(['pull_request', 'pull_request_sync', 'pull_request_assign', 'pull_request_label', 'pull_request_review_request', 'pull_request_milestone']);

/** The commit a run's statuses go to: a push's or a release's commit, a pull request's head; null for other events (as Gitea). */
function statusCommit(run: ActionRunModel): string | null {
  if (run.event === 'push' || run.event === 'release') return run.commitSha;
  if (!PULL_STATUS_EVENTS.has(run.event)) return null;
  try {
    return (JSON.parse(run.eventPayload) as { pull_request?: { head?: { sha?: string } } }).pull_request?.head?.sha ?? null;
  } catch {
    return null;
  }
}

/**
 * The forge's path prefix (`/`, or `/sub/` under a sub-path). why: as Gitea's `run.Link()`, a
 * status links to the job's page by a path on the forge (with the sub-path), which its pages follow.
 */
function sitePath(): string {
  return new URL(settings().server.rootUrl).pathname.replace(/\/?$/, '/');
}

/** Report jobs of a run as commit statuses (a state already shown is not repeated). */
async function reportStatuses({ runId, jobIds, run: known }: RunChange): Promise<void> {
  const run = known ?? (await findRunById(systemCtx, runId));
  const sha = run && statusCommit(run);
  if (!run || !sha) return;
  const repo = await findRepoById(systemCtx, run.repoId);
  const owner = repo && (await findUserById(systemCtx, repo.ownerId));
  if (!repo || !owner) return;
  // why: read again, as announcements of two transactions may cross; a later state is never overwritten by an earlier one.
  const jobs = await listJobsOfRun(systemCtx, runId);
  const latest = await latestCommitStatuses(systemCtx, repo.id, sha);
  for (const [i, j] of jobs.entries()) {
    if (!jobIds.has(j.id)) continue;
    const context = `${workflowName(run, j)} / ${j.name} (${run.triggerEvent})`;
    const state = STATE[j.status];
    if (latest.some((s) => s.context === context && s.state === state)) continue;
    await recordCommitStatus(systemCtx, { owner, repo }, pseudoUser(-2), sha, {
      state, context, description: describe(j), target_url: `${sitePath()}${owner.name}/${repo.name}/actions/runs/${run.index}/jobs/${i}`,
    });
  }
}
