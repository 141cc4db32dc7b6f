/**
 * Tasks: a job claimed by a runner (one atomic update guarded on `task_id = 0`), the Task message
 * it is sent (single-job workflow, context, secrets, variables, the results and outputs of the
 * jobs it needs), the runner's state reports and log rows, and the sweep that fails tasks whose
 * runner went silent.
 */
import crypto from 'node:crypto';
import { settings } from '../../config';
import { systemCtx, withTx } from '../../db';
import { BadRequest, Conflict, Forbidden, NotFound, TooLarge } from '../../errors';
import { RunnerResult, type LogRowMsg, type TaskMsg, type TaskStateMsg } from '../../api/runner-proto';
import { ActionStatus, isDone, findRunById, lockRuns, type ActionRunModel } from '../../models/action-run.model';
import {
  abandonedJobs, claimJobs, endJobs, findJobById, findJobsByIds, listJobsOfRun, setJobTasks, updateJob, type ActionRunJobModel, type PickableJob,
} from '../../models/action-run-job.model';
import {
  endTasks, findRunningTaskByTokenHash, findTaskById, findTasksByIds, insertTasks, setTaskLogFilenames, setTaskLogs, staleRunningTasks, updateTask,
  type ActionTaskModel, type TaskEnd, type TaskLogState,
} from '../../models/action-task.model';
import { insertSteps, listStepsOfTasks, updateStep } from '../../models/action-task-step.model';
import { insertOutputs, listOutputsOfTasks } from '../../models/action-task-output.model';
import { findReposByIds, type RepositoryModel } from '../../models/repository.model';
import { findUserById, findUsersByIds, type UserModel } from '../../models/user.model';
import { nowUnix } from '../../models/issue.model';
import { WeightedLru } from '../../git/lru';
import { batcher } from '../../queue/batcher';
import { repoUrls } from '../content/view';
import { taskSettings } from './settings.service';
import { aggregateStatus, announce, settleRuns } from './run.service';
import { removeRunner, notePresence, type RunnerIdentity } from './runner.service';
import { appendLog, archiveLog, formatLogLine, logFilename } from '../storage/log-store';
import { stepNames } from './workflow-parse';
import { signRuntimeToken } from './runtime-token';

const sha256 = (s: string) => crypto.createHash('sha256').update(s).digest('hex');
const MAX_OUTPUT_KEY = 255;
const MAX_OUTPUT_VALUE = 1 << 20;
// why: a running task's heartbeat need not reach the database more often than this; the zombie timeout is minutes.
const HEARTBEAT_WRITE_EVERY = 30;

/** Whether a runner's scope covers a job's repository. */
export function scopeFits(r: Pick<RunnerIdentity, 'repoId' | 'ownerId'>, job: Pick<ActionRunJobModel, 'repoId' | 'ownerId'>): boolean {
  return r.repoId ? job.repoId === r.repoId : r.ownerId ? job.ownerId === r.ownerId : true;
}

/** The label names a runner offers. why: act_runner may declare `name:docker://image`; jobs name the label only. */
export function labelNames(r: RunnerIdentity): string[] {
  return [...new Set(r.labels.map((l) => l.split(':')[0]))].sort();
}

/**
 * The running task whose token (the job's GITEA_TOKEN) is `raw`, or null. why: as in Gitea, a job
 * calls the API and git as the `gitea-actions` user with its task's token, for as long as it runs.
 */
export async function taskOfToken(raw: string): Promise<ActionTaskModel | null> {
  if (!/^[0-9a-f]{40}$/.test(raw)) return null;
  const hash = sha256(raw);
  const task = await findRunningTaskByTokenHash(systemCtx, hash);
  // why: the index finds the row by hash; compare again in constant time so no timing tells how much matched.
  return task && crypto.timingSafeEqual(Buffer.from(task.tokenHash), Buffer.from(hash)) ? task : null;
}

/** A job a dispatch round gives a runner. */
export interface Claim { runner: RunnerIdentity; job: PickableJob }

/**
 * Claim jobs for runners in one transaction and build their Tasks: the jobs' runs are locked, one
 * guarded update takes the jobs still waiting, then their tasks, task ids, log names and steps are
 * written a statement each, and the runs are settled together. why: a round hands out many jobs at
 * once, often of the same run; a transaction per job would repeat every statement per job and
 * queue on the run's row. Returns a Task per claim, in order, or null for a job another round took first.
 */
export async function claimTasks(claims: Claim[]): Promise<(TaskMsg | null)[]> {
  const out: (TaskMsg | null)[] = claims.map(() => null);
  if (claims.length === 0) return out;
  const now = nowUnix();
  const tokens = claims.map(() => crypto.randomBytes(20).toString('hex'));
  const repos = new Map((await findReposByIds(systemCtx, claims.map((c) => c.job.repoId))).map((r) => [r.id, r]));
  const owners = new Map((await findUsersByIds(systemCtx, [...repos.values()].map((r) => r.ownerId))).map((u) => [u.id, u]));
  const placeOf = (repoId: number) => {
    const repo = repos.get(repoId);
    const owner = repo && owners.get(repo.ownerId);
    return repo && owner ? { repo, owner } : null;
  };
  const done = await withTx(systemCtx, async (tx) => {
    const runs = await lockRuns(tx, claims.map((c) => c.job.runId));
    const won = await claimJobs(tx, claims.filter((c) => placeOf(c.job.repoId)).map((c) => c.job.id), now);
    if (won.length === 0) return null;
    const jobs = new Map((await findJobsByIds(tx, won)).map((j) => [j.id, j]));
    const picked = claims.flatMap((c, i) => (jobs.has(c.job.id) ? [{ i, c, job: jobs.get(c.job.id)!, place: placeOf(c.job.repoId)! }] : []));
    const inserted = await insertTasks(tx, picked.map(({ i, c, job }) => ({
      jobId: job.id, attempt: job.attempt, runnerId: c.runner.id, repoId: job.repoId, ownerId: job.ownerId, commitSha: job.commitSha,
      isForkPullRequest: job.isForkPullRequest, tokenHash: sha256(tokens[i]), tokenLastEight: tokens[i].slice(-8),
    })), now);
    const byJob = new Map(inserted.map((t) => [t.jobId, t]));
    const tasks = picked.map((p) => byJob.get(p.job.id)!);
    await setJobTasks(tx, picked.map((p, k) => [p.job.id, tasks[k].id]));
    await setTaskLogFilenames(tx, picked.map((p, k) => [tasks[k].id, logFilename(p.place.owner.name, p.place.repo.name, tasks[k].id)]));
    await insertSteps(tx, picked.flatMap((p, k) => stepsOf(p.job.workflowPayload).map((name, index) => ({ name, index, taskId: tasks[k].id, repoId: p.job.repoId, status: ActionStatus.Waiting }))), now);
    picked.forEach((p, k) => { p.job.taskId = tasks[k].id; });
    const changes = await settleRuns(tx, runs, groupByRun(picked.map((p) => p.job)), now);
    return { picked, tasks, changes };
  });
  if (!done) return out;
  await announce(done.changes);
  const build = taskMessages(done.changes.flatMap((c) => (c.run ? [c.run] : [])));
  for (const [k, p] of done.picked.entries()) out[p.i] = await build(done.tasks[k], p.job, p.place, tokens[p.i]);
  return out;
}

// why: the legs of a matrix, and every run of a workflow, share a payload; a claim need not parse it again.
const parsedSteps = new WeightedLru<{ names: string[]; size: number }>(8 * 1024 * 1024, (v) => v.size);

/** The step names of a job's payload (see stepNames). */
function stepsOf(payload: string): string[] {
  const known = parsedSteps.get(payload);
  if (known) return known.names;
  const names = stepNames(payload);
  parsedSteps.set(payload, { names, size: payload.length + names.join('').length });
  return names;
}

/** Job ids by run. */
function groupByRun(jobs: Pick<ActionRunJobModel, 'id' | 'runId'>[]): Map<number, number[]> {
  const byRun = new Map<number, number[]>();
  for (const j of jobs) byRun.set(j.runId, [...(byRun.get(j.runId) ?? []), j.id]);
  return byRun;
}

/** Give a claimed job back (its runner left before it heard of the task): the task is cancelled, the job waits again. */
export async function releaseTask(taskId: number): Promise<void> {
  const now = nowUnix();
  const change = await withTx(systemCtx, async (tx) => {
    const task = await findTaskById(tx, taskId);
    const job = task && (await findJobById(tx, task.jobId));
    if (!task || !job || job.taskId !== task.id) return null;
    const runs = await lockRuns(tx, [job.runId]);
    if (!(await updateTask(tx, task.id, { status: ActionStatus.Cancelled, stopped: now }, now, [ActionStatus.Running]))) return null;
    await updateJob(tx, job.id, { status: ActionStatus.Waiting, taskId: 0, started: 0 }, now, [ActionStatus.Running]);
    const [settled] = await settleRuns(tx, runs, new Map([[job.runId, [job.id]]]), now);
    return settled;
  });
  if (change) await announce([{ ...change, ready: true }]);
}

/** The results and merged outputs of the jobs a job needs (matrix legs share a job id). */
async function needsOf(job: ActionRunJobModel): Promise<TaskMsg['needs']> {
  const needs = job.needList();
  if (needs.length === 0) return {};
  const jobs = await listJobsOfRun(systemCtx, job.runId);
  const tasks = new Map((await findTasksByIds(systemCtx, jobs.map((j) => j.taskId))).map((t) => [t.id, t]));
  const outputs = await listOutputsOfTasks(systemCtx, [...tasks.keys()]);
  const out: TaskMsg['needs'] = {};
  for (const id of needs) {
    const legs = jobs.filter((j) => j.jobId === id);
    const merged: Record<string, string> = {};
    for (const leg of legs) {
      if (!isDone(leg.status) || !tasks.has(leg.taskId)) continue;
      for (const o of outputs.filter((x) => x.taskId === leg.taskId)) if (o.outputValue !== '' || !(o.outputKey in merged)) merged[o.outputKey] = o.outputValue;
    }
    out[id] = { outputs: merged, result: aggregateStatus(legs.map((l) => l.status)) };
  }
  return out;
}

/** Gitea's `github` context of a task. */
function taskContext(task: ActionTaskModel, run: ActionRunModel, job: ActionRunJobModel, owner: string, repo: string, actor: string, token: string): Record<string, unknown> {
  const root = settings().server.rootUrl;
  let event: Record<string, unknown> = {};
  try { event = JSON.parse(run.eventPayload) as Record<string, unknown>; } catch { /* an empty event */ }
  const pr = event.pull_request as { base?: { ref?: string }; head?: { ref?: string } } | undefined;
  const refName = run.ref.replace(/^refs\/(heads|tags)\//, '');
  const refType = run.ref.startsWith('refs/heads/') ? 'branch' : run.ref.startsWith('refs/tags/') ? 'tag' : /^[0-9a-f]{40,64}$/.test(run.ref) ? 'commit' : '';
  const blank = Object.fromEntries(['action', 'action_path', 'action_ref', 'action_repository', 'action_status', 'env', 'event_path', 'graphql_url', 'path', 'retention_days', 'triggering_actor', 'workspace'].map((k) => [k, '']));
  return {
    ...blank,
    actor, api_url: `${root}api/v1`, base_ref: pr?.base?.ref ?? '', head_ref: pr?.head?.ref ?? '', event, event_name: run.triggerEvent, job: job.jobId,
    ref: run.ref, ref_name: refName, ref_type: refType, ref_protected: false, repository: `${owner}/${repo}`, repository_owner: owner,
    repositoryUrl: repoUrls(root, owner, repo).html, run_id: String(run.id), run_number: String(run.index), run_attempt: String(job.attempt),
    secret_source: 'Actions', server_url: root.replace(/\/$/, ''), sha: run.commitSha, workflow: run.workflowId,
    gitea_default_actions_url: settings().actions.defaultActionsUrl === 'self' ? root.replace(/\/$/, '') : 'https://github.com',
    token, gitea_runtime_token: signRuntimeToken({ taskId: task.id, runId: run.id, jobId: job.id }),
  };
}

/**
 * A builder of the Task messages of claimed jobs, given the runs already read. why: the jobs of one
 * round share runs, actors and repositories; it reads each of them once (and each repository's
 * secrets and variables once).
 */
function taskMessages(known: ActionRunModel[]) {
  const runs = new Map(known.map((r) => [r.id, Promise.resolve<ActionRunModel | null>(r)]));
  const actors = new Map<number, Promise<string>>();
  const stored = new Map<string, ReturnType<typeof taskSettings>>();
  const once = <K, V>(m: Map<K, V>, k: K, make: () => V): V => {
    if (!m.has(k)) m.set(k, make());
    return m.get(k)!;
  };
  return async (task: ActionTaskModel, job: ActionRunJobModel, place: { repo: RepositoryModel; owner: UserModel }, token: string): Promise<TaskMsg> => {
    const run = (await once(runs, job.runId, () => findRunById(systemCtx, job.runId)))!;
    const actor = await once(actors, run.triggerUserId, async () => (run.triggerUserId > 0 ? (await findUserById(systemCtx, run.triggerUserId))?.name ?? 'Ghost' : 'Ghost'));
    // why: a pull request from a fork runs code its author wrote; it gets the job token and nothing else
    // (pull_request_target runs the base's workflow, so it gets them).
    const withSecrets = !job.isForkPullRequest || run.triggerEvent === 'pull_request_target';
    const { secrets: kept, vars } = await once(stored, `${place.repo.id}:${withSecrets}`, () => taskSettings(systemCtx, place.repo, withSecrets));
    const secrets = { GITHUB_TOKEN: token, GITEA_TOKEN: token, ...kept };
    return {
      id: BigInt(task.id), workflowPayload: Buffer.from(job.workflowPayload), context: taskContext(task, run, job, place.owner.name, place.repo.name, actor, token),
      secrets, machine: '', needs: await needsOf(job), vars,
    };
  };
}

// why: every UpdateTask and UpdateLog reads its task; at load, the reads of many runners go as one.
const loadTask = batcher(async (ids: number[]) => {
  const rows = new Map((await findTasksByIds(systemCtx, ids)).map((t) => [t.id, t]));
  return ids.map((id) => rows.get(id) ?? null);
});

/** A task of the calling runner; 404 for none, 403 for another runner's. */
async function heldTask(runner: RunnerIdentity, id: bigint | number): Promise<ActionTaskModel> {
  const task = Number(id) > 0 && Number(id) < 2 ** 31 ? await loadTask(Number(id)) : null;
  if (!task) throw new NotFound(`task ${id} not found`);
  if (task.runnerId !== runner.id) throw new Forbidden(`task ${id} is not held by this runner`);
  return task;
}

const tsSeconds = (t?: { seconds: bigint }) => (t ? Number(t.seconds) : 0);

/**
 * End tasks as their runners reported, in one transaction: their runs locked, the tasks and jobs
 * still running ended by a guarded update each, the runs settled together. Answers each task's
 * status now (another's when it had ended already, cancelled say). why: act_runner ends a task with
 * one report; at load, a transaction per report queued on the runs' rows and cost a dozen
 * statements per job.
 */
const endTaskBatch = batcher(async (ends: (TaskEnd & { jobId: number })[]) => {
  const now = nowUnix();
  const done = await withTx(systemCtx, async (tx) => {
    const jobs = await findJobsByIds(tx, ends.map((e) => e.jobId));
    const runs = await lockRuns(tx, jobs.map((j) => j.runId));
    const ended = new Set(await endTasks(tx, ends, now));
    const jobEnds = ends.filter((e) => ended.has(e.id)).map((e) => ({ id: e.jobId, status: e.status, stopped: e.stopped }));
    const moved = new Set(await endJobs(tx, jobEnds, now));
    const changes = await settleRuns(tx, runs, groupByRun(jobs.filter((j) => moved.has(j.id))), now);
    const others = new Map((await findTasksByIds(tx, ends.filter((e) => !ended.has(e.id)).map((e) => e.id))).map((t) => [t.id, t.status]));
    return { changes, statuses: ends.map((e) => (ended.has(e.id) ? e.status : others.get(e.id) ?? ActionStatus.Unknown)) };
  });
  await announce(done.changes);
  return done.statuses;
});

/**
 * UpdateTask: a runner's report on its task (steps, outputs, maybe its result). Returns the task's
 * final result, if any, and the output keys stored (`sent_outputs`; empty when it sent none, as it
 * then waits for none). why: act_runner reports every second while a task runs; a report that
 * changes nothing (and no heartbeat is due) costs a read shared with other reports and no write.
 */
export async function reportTaskState(runner: RunnerIdentity, state: TaskStateMsg | undefined, outputs: Record<string, string>): Promise<{ result: number; sentOutputs: string[] }> {
  if (!state) throw new BadRequest('missing task state');
  const task = await heldTask(runner, state.id);
  notePresence(runner.id, true);
  // why: a task already done (cancelled while running) stays so; the runner learns it from the answer.
  if (isDone(task.status)) return { result: task.status, sentOutputs: [] };
  const now = nowUnix();
  const kept = Object.entries(outputs).filter(([k, v]) => Buffer.byteLength(k) <= MAX_OUTPUT_KEY && Buffer.byteLength(v) <= MAX_OUTPUT_VALUE);
  const rows = state.steps.length ? await listStepsOfTasks(systemCtx, [task.id]) : [];
  const stepChanges = state.steps.flatMap((s) => {
    const row = rows.find((x) => x.index === Number(s.id));
    if (!row) return [];
    const status = s.result ? s.result as ActionStatus : s.startedAt ? ActionStatus.Running : row.status;
    const next = { status, logIndex: Number(s.logIndex), logLength: Number(s.logLength), started: tsSeconds(s.startedAt) || row.started, stopped: tsSeconds(s.stoppedAt) || row.stopped };
    const same = next.status === row.status && next.logIndex === row.logIndex && next.logLength === row.logLength && next.started === row.started && next.stopped === row.stopped;
    return same ? [] : [{ index: row.index, next }];
  });
  if (state.result === RunnerResult.Unspecified && kept.length === 0 && stepChanges.length === 0 && now - task.updated < HEARTBEAT_WRITE_EVERY) {
    return { result: RunnerResult.Unspecified, sentOutputs: [] };
  }
  // why: outputs and steps come first: once the job ends, the jobs that need it may be claimed and read them.
  if (kept.length || stepChanges.length) {
    await withTx(systemCtx, async (tx) => {
      await insertOutputs(tx, task.id, kept);
      for (const c of stepChanges) await updateStep(tx, task.id, c.index, c.next, now);
    });
  }
  const sentOutputs = kept.length ? (await listOutputsOfTasks(systemCtx, [task.id])).map((o) => o.outputKey) : [];
  if (state.result === RunnerResult.Unspecified) {
    await updateTask(systemCtx, task.id, {}, now);
    return { result: RunnerResult.Unspecified, sentOutputs };
  }
  const result = await endTaskBatch({ id: task.id, jobId: task.jobId, status: state.result as ActionStatus, stopped: tsSeconds(state.stoppedAt) || now });
  if (result === state.result && runner.ephemeral) await removeRunner(systemCtx, runner.id, runner.uuid).catch(() => undefined);
  return { result: isDone(result) ? result : RunnerResult.Unspecified, sentOutputs };
}

// why: UpdateLog calls of many runners record their logs' lengths in one statement.
const recordLogs = batcher(async (logs: TaskLogState[]) => {
  await setTaskLogs(systemCtx, logs, nowUnix());
  return logs.map(() => undefined);
});

// why: a runner sends one task's rows one request at a time; this keeps two requests that cross anyway in order.
const logTurns = new Map<number, Promise<unknown>>();

/** UpdateLog: append rows from `index` on; returns the rows now stored (the ack). A gap or an archived log is refused. */
export function appendTaskLog(runner: RunnerIdentity, taskId: bigint, index: bigint, rows: LogRowMsg[], noMore: boolean): Promise<number> {
  const id = Number(taskId);
  const turn = (logTurns.get(id) ?? Promise.resolve()).then(() => appendInTurn(runner, taskId, Number(index), rows, noMore));
  const settled = turn.catch(() => undefined);
  logTurns.set(id, settled);
  settled.then(() => { if (logTurns.get(id) === settled) logTurns.delete(id); });
  return turn;
}

async function appendInTurn(runner: RunnerIdentity, taskId: bigint, index: number, rows: LogRowMsg[], noMore: boolean): Promise<number> {
  const task = await heldTask(runner, taskId);
  notePresence(runner.id, true);
  const ack = task.logLength;
  if (index > ack) throw new BadRequest(`log rows must follow on: index ${index} leaves a gap after row ${ack}`);
  if (task.logInStorage) {
    if (rows.length === 0 || index + rows.length <= ack) return ack;
    throw new Conflict('the log of this task is complete');
  }
  const fresh = rows.slice(ack - index);
  const lines = fresh.map((r) => formatLogLine(r.time ? new Date(Number(r.time.seconds) * 1000 + Math.floor(r.time.nanos / 1e6)) : new Date(), r.content));
  const bytes = lines.reduce((n, l) => n + Buffer.byteLength(l), 0);
  if (task.logSize + bytes > settings().actions.maxLogSize) throw new TooLarge(`the log of task ${task.id} would pass ${settings().actions.maxLogSize} bytes`);
  // why: the last rows go straight into the compressed log, not through the plain file.
  if (noMore) await archiveLog(task.logFilename, lines);
  else if (lines.length) await appendLog(task.logFilename, lines);
  const changes: TaskLogState | null = noMore || lines.length ? { id: task.id, logLength: ack + lines.length, logSize: task.logSize + bytes, logInStorage: noMore } : null;
  if (changes) await recordLogs(changes);
  return changes?.logLength ?? ack;
}

/**
 * Fail the tasks whose runner went silent for [actions] ZOMBIE_TASK_TIMEOUT or that ran longer
 * than ENDLESS_TASK_TIMEOUT, and cancel the jobs no runner took within ABANDONED_JOB_TIMEOUT.
 * why: every node may run it; the updates are guarded on the statuses they leave.
 */
export async function sweepStaleTasks(): Promise<number> {
  const now = nowUnix();
  const a = settings().actions;
  for (const job of await abandonedJobs(systemCtx, now - a.abandonedJobTimeout, 100)) {
    const change = await withTx(systemCtx, async (tx) => {
      const runs = await lockRuns(tx, [job.runId]);
      if (!(await updateJob(tx, job.id, { status: ActionStatus.Cancelled, stopped: now }, now, [ActionStatus.Waiting, ActionStatus.Blocked]))) return null;
      return (await settleRuns(tx, runs, groupByRun([job]), now))[0];
    });
    if (change) await announce([change]);
  }
  const stale = await staleRunningTasks(systemCtx, now - a.zombieTaskTimeout, now - a.endlessTaskTimeout, 100);
  for (const t of stale) {
    const change = await withTx(systemCtx, async (tx) => {
      const job = await findJobById(tx, t.jobId);
      const runs = await lockRuns(tx, job ? [job.runId] : []);
      if (!(await updateTask(tx, t.id, { status: ActionStatus.Failure, stopped: now }, now, [ActionStatus.Running])) || !job) return null;
      await updateJob(tx, t.jobId, { status: ActionStatus.Failure, stopped: now }, now, [ActionStatus.Running]);
      return (await settleRuns(tx, runs, groupByRun([job]), now))[0];
    });
    if (change) await announce([change]);
  }
  return stale.length;
}
