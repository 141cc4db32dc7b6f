/**
 * FetchTask by long polling. Every FetchTask joins this process's list of waiting runners. A
 * dispatch round runs one query for the oldest waiting jobs, matches them in memory to the waiting
 * runners in arrival order (scope and labels), and claims the pairs in batches, each batch by one
 * guarded update in one transaction. A runner whose tasks version is current waits (up to [actions]
 * RUNNER_LONG_POLL_TIMEOUT, within its own deadline) for the next round, which runs when jobs
 * become ready anywhere in the cluster; one whose version is stale (act_runner resets it after each
 * task) is answered by the next round, task or not (Gitea's rule), at once when it gets no job. So an idle runner costs no
 * database work, and any number of runners coming back at once cost one query per round.
 */
import { systemCtx } from '../../db';
import type { TaskMsg } from '../../api/runner-proto';
import { listPickableJobs, type PickableJob } from '../../models/action-run-job.model';
import { claimTasks, labelNames, releaseTask, scopeFits } from './task.service';
import { onJobsReady, tasksVersion } from './jobs-signal';
import type { RunnerIdentity } from './runner.service';

// why: a round looks at the oldest waiting jobs only; jobs beyond them wait for the next round.
const ROUND_JOBS = 500;
// why: a batch is one transaction of about a dozen statements whatever its size; its first tasks wait for its last.
const CLAIM_BATCH = 200;
const ANSWERS_PER_TURN = 10;
// why: a task sent in the last moments before the runner's own deadline may reach a client that
// already gave up, and its job would wait for the zombie timeout. A waiter's wait ends a second
// before that deadline (the second is for the answer to travel); a claim that ends after the wait
// is given back, and a waiter this close to the end of its wait gets no job.
const CLAIM_MARGIN_MS = 500;

/**
 * A FetchTask in the list. `once`: answered after the next round whatever it brings. `claiming`
 * while a round claims a job for it: its deadline or its client's going then only marks it `left`,
 * and the round finishes the claim (giving the job back if the client is gone).
 */
interface Waiter {
  runner: RunnerIdentity; once: boolean; done: (task: TaskMsg | null) => void; gone: () => boolean; claiming: boolean; left: boolean;
  /** When its wait ends (a second before the client's deadline). */
  until: number;
}
// why: in arrival order; a thousand waiting runners leave it one by one.
const waiters = new Set<Waiter>();
let round: Promise<void> | null = null;
let again = false;

/** Claim jobs for their waiters, a batch in one transaction; null for each on a failure. */
async function claimBatch(pairs: [Waiter, PickableJob][]): Promise<(TaskMsg | null)[]> {
  try {
    return await claimTasks(pairs.map(([w, job]) => ({ runner: w.runner, job })));
  } catch (err) {
    console.error(`actions: claiming ${pairs.length} jobs:`, err);
    return pairs.map(() => null);
  }
}

/**
 * Answer a waiter after its claim. A task claimed for a client that is gone meanwhile, or whose
 * wait ended, is given back. why: otherwise its job would wait for the zombie timeout.
 */
function answerClaim(w: Waiter, claimed: TaskMsg | null): void {
  w.claiming = false;
  let task = claimed;
  if (task && (w.gone() || Date.now() > w.until)) {
    const id = task.id;
    releaseTask(Number(id)).catch((err: unknown) => console.error(`actions: giving back task ${id}:`, err));
    task = null;
  }
  if (task || w.left || w.once) finish(w, task);
}

/** One round: the oldest waiting jobs, each matched to the first waiting runner that fits, claimed. */
async function runRound(): Promise<void> {
  const jobs = await listPickableJobs(systemCtx, ROUND_JOBS);
  const present = [...waiters];
  const soon = Date.now() + CLAIM_MARGIN_MS;
  // why: runners of one scope and one label set are alike to a job; a job is matched against each
  // kind once (a thousand waiting runners are a handful of kinds), not against every runner.
  const kinds = new Map<string, { runner: RunnerIdentity; labels: Set<string>; queue: Waiter[] }>();
  for (const w of present) {
    if (w.until < soon) continue;
    const names = labelNames(w.runner);
    const key = `${w.runner.ownerId}:${w.runner.repoId}:${names.join(',')}`;
    const kind = kinds.get(key) ?? { runner: w.runner, labels: new Set(names), queue: [] };
    kind.queue.push(w);
    kinds.set(key, kind);
  }
  const pairs: [Waiter, PickableJob][] = [];
  for (const job of jobs) {
    const wanted = job.labels;
    const kind = [...kinds.values()].find((k) => k.queue.length && scopeFits(k.runner, job) && wanted.every((l) => k.labels.has(l)));
    if (!kind) continue;
    const w = kind.queue.shift()!;
    // why: from here its deadline or its client's going cannot answer it behind the claim's back.
    w.claiming = true;
    pairs.push([w, job]);
    if (pairs.length === present.length) break;
  }
  // why: a stale caller hears the latest version now, with or without a task (Gitea's rule); one
  // without a job need not wait for the claims of the others.
  for (const w of present) if (w.once && !w.claiming) finish(w, null);
  for (let i = 0; i < pairs.length; i += CLAIM_BATCH) {
    const batch = pairs.slice(i, i + CLAIM_BATCH);
    const tasks = await claimBatch(batch);
    for (const [k, [w]] of batch.entries()) {
      answerClaim(w, tasks[k]);
      // why: each answer encodes a Task (about 0.1 ms, more for a large event payload); a batch of
      // 200 answers goes out a few per turn of the event loop, so the node's other requests are served between them.
      if (k % ANSWERS_PER_TURN === ANSWERS_PER_TURN - 1) await new Promise((r) => setImmediate(r));
    }
  }
}

/** Take a waiter off the list and answer it. */
function finish(w: Waiter, task: TaskMsg | null): void {
  if (waiters.delete(w)) w.done(task);
}

/** Run a round now, or once more after the one running (jobs may have become ready meanwhile). */
function dispatch(): void {
  if (round) {
    again = true;
    return;
  }
  round = (async () => {
    do {
      again = false;
      if (waiters.size) await runRound();
    } while (again);
  })().catch((err: unknown) => {
    console.error('actions: dispatch round:', err);
    for (const w of [...waiters]) if (w.once) finish(w, null);
  }).finally(() => { round = null; });
}

let started = false;
/** Start listening for ready jobs (once per process). */
export function startDispatcher(): void {
  if (started) return;
  started = true;
  onJobsReady(dispatch);
}

/**
 * FetchTask: a task for the runner, and the tasks version to remember. A stale `clientVersion` (or
 * no time to wait) is answered after the next round; a current one waits up to `waitMs` for a job,
 * or until `signal` aborts.
 */
export async function fetchTask(runner: RunnerIdentity, clientVersion: bigint, waitMs: number, signal: AbortSignal): Promise<{ task: TaskMsg | null; version: bigint }> {
  startDispatcher();
  const latest = BigInt(tasksVersion());
  const once = clientVersion !== latest || waitMs <= 0;
  const task = await new Promise<TaskMsg | null>((resolve) => {
    const w: Waiter = {
      runner, once, gone: () => signal.aborted, claiming: false, left: false, until: Date.now() + waitMs,
      done: (t) => {
        clearTimeout(timer);
        signal.removeEventListener('abort', leave);
        resolve(t);
      },
    };
    const leave = () => {
      if (w.claiming) w.left = true;
      else finish(w, null);
    };
    const timer = once ? undefined : setTimeout(leave, waitMs);
    signal.addEventListener('abort', leave, { once: true });
    waiters.add(w);
    // why: a stale caller is answered by the next round; a waiting one also needs a round when jobs became ready since its version check.
    if (once || BigInt(tasksVersion()) !== latest) dispatch();
  });
  return { task, version: BigInt(tasksVersion()) };
}
