/**
 * FetchTask by long polling. A runner whose tasks version is current waits here (up to [actions]
 * RUNNER_LONG_POLL_TIMEOUT, within its own deadline) instead of polling; when jobs become ready
 * anywhere in the cluster, this process runs one dispatch round: one query for the waiting jobs,
 * matched in memory to the waiting runners in arrival order, each pair claimed atomically. So an
 * idle runner costs no database work at all, and a burst of jobs costs one query per round, not
 * one per runner.
 */
import { systemCtx } from '../../db';
import type { TaskMsg } from '../../api/runner-proto';
import { listPickableJobs } from '../../models/action-run-job.model';
import { claimTask, runnerFits } from './task.service';
import { onJobsReady, tasksVersion } from './jobs-signal';
import type { RunnerIdentity } from './runner.service';

// why: a round looks at the oldest waiting jobs only; jobs beyond them wait for the next round.
const ROUND_JOBS = 500;

interface Waiter { runner: RunnerIdentity; done: (task: TaskMsg | null) => void }
const waiters: Waiter[] = [];
let round: Promise<void> | null = null;
let again = false;

/** One dispatch round (and another if jobs became ready meanwhile). */
function dispatch(): void {
  if (round) {
    again = true;
    return;
  }
  round = (async () => {
    do {
      again = false;
      if (waiters.length === 0) break;
      const jobs = await listPickableJobs(systemCtx, ROUND_JOBS);
      for (const job of jobs) {
        const i = waiters.findIndex((w) => runnerFits(w.runner, job));
        if (i < 0) continue;
        const [w] = waiters.splice(i, 1);
        let task: TaskMsg | null = null;
        try {
          task = await claimTask(w.runner, job.id);
        } catch (err) {
          console.error(`actions: claiming job ${job.id}:`, err);
        }
        if (task) w.done(task);
        else waiters.splice(i, 0, w);
        if (waiters.length === 0) break;
      }
    } while (again);
  })().catch((err: unknown) => console.error('actions: dispatch round:', err)).finally(() => {
    round = null;
    if (again) dispatch();
  });
}

let started = false;
/** Start listening for ready jobs (once per process). */
export function startDispatcher(): void {
  if (started) return;
  started = true;
  onJobsReady(dispatch);
}

/** The first waiting job this runner may run, claimed for it; null when there is none. */
async function pickNow(runner: RunnerIdentity): Promise<TaskMsg | null> {
  for (const job of await listPickableJobs(systemCtx, ROUND_JOBS)) {
    if (!runnerFits(runner, job)) continue;
    const task = await claimTask(runner, job.id);
    if (task) return task;
  }
  return null;
}

/**
 * FetchTask: a task for the runner, and the tasks version to remember. A runner whose version is
 * not the latest is looked after at once (Gitea's rule; act_runner resets its version after each
 * task); one whose version is current waits up to `waitMs` for a job, or until `signal` aborts.
 */
export async function fetchTask(runner: RunnerIdentity, clientVersion: bigint, waitMs: number, signal: AbortSignal): Promise<{ task: TaskMsg | null; version: bigint }> {
  startDispatcher();
  const latest = BigInt(tasksVersion());
  if (clientVersion !== latest || waitMs <= 0) return { task: await pickNow(runner), version: latest };
  const task = await new Promise<TaskMsg | null>((resolve) => {
    const w: Waiter = {
      runner,
      done: (t) => {
        clearTimeout(timer);
        signal.removeEventListener('abort', leave);
        resolve(t);
      },
    };
    const leave = () => {
      const i = waiters.indexOf(w);
      if (i >= 0) waiters.splice(i, 1);
      w.done(null);
    };
    const timer = setTimeout(leave, waitMs);
    signal.addEventListener('abort', leave, { once: true });
    waiters.push(w);
    // why: jobs that became ready between the version check and now found no one waiting.
    if (BigInt(tasksVersion()) !== latest) dispatch();
  });
  // why: a task claimed for a runner that has gone is not lost: its silence fails it after the zombie timeout.
  return { task, version: BigInt(tasksVersion()) };
}
