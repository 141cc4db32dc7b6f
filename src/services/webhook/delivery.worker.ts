/**
 * Delivering hook tasks, on every worker of every node. A worker leases hooks that have waiting
 * deliveries (one leaseholder per hook across the cluster), sends each leased hook's deliveries
 * one at a time in event order (hooks in parallel), and records the attempts a run at a time. A
 * failure (network error, timeout, an answer outside 2xx) is tried again after an exponential
 * backoff with jitter until `[webhook] MAX_ATTEMPTS`, then kept as failed; the hook's later
 * deliveries wait behind it, so order holds. A worker that dies mid-run leaves its lease to
 * expire; another worker then sends the unrecorded deliveries again with the same
 * X-Gitea-Delivery, so a receiver can tell. Woken by new tasks of its own process, else it polls.
 */
import crypto from 'node:crypto';
import os from 'node:os';
import { settings } from '../../config';
import { systemCtx } from '../../db';
import {
  pendingTasksOf, pruneHookTasksOlderThan, pruneHookTasksPerHook, recordHookAttempts, type AttemptOutcome, type HookTaskModel,
} from '../../models/hook-task.model';
import { findUserById, UserType } from '../../models/user.model';
import { leaseDueHooks, releaseAllHookLeases, releaseHook, renewHookLease, HookStatus, type WebhookModel } from '../../models/webhook.model';
import { withTx } from '../../db';
import { onEnqueued } from '../../queue/outbox';
import type { HookEventType } from './events';
import { globRegExp, parseHostList } from '../net/host-matcher';
import { open } from '../auth/secret-box';
import { buildRequest, type DeliveryRequest } from './request';
import { send, type SendOptions } from './client';
import { registerCronTask, runCronTask, scheduleCronTask } from '../cron/cron.service';

/** The factor between retries and the longest wait: from 10 s, 8 attempts span about a day (10 s, 44 s, 3 min, 14 min, 1 h, 4.6 h, 20 h). */
const RETRY_FACTOR = 4.4;
const LONGEST_RETRY_MS = 24 * 3600_000;

/** The wait before attempt `n + 1` after `n` failed ones, with ±20% jitter so the retries of many hooks spread out. */
export function retryDelayMs(n: number, firstMs = settings().webhook.retryFirstDelay * 1000): number {
  const d = Math.min(LONGEST_RETRY_MS, firstMs * RETRY_FACTOR ** Math.max(0, n - 1));
  return Math.round(d * (0.8 + Math.random() * 0.4));
}

/** Gitea's installation target of a hook: system, repository, organization, user or default. */
async function targetOf(h: WebhookModel): Promise<string> {
  if (h.isSystemWebhook) return 'system';
  if (h.repoId) return 'repository';
  if (!h.ownerId) return 'default';
  const owner = await findUserById(systemCtx, h.ownerId);
  return owner ? (owner.type === UserType.Organization ? 'organization' : 'user') : 'default';
}

/** How deliveries are sent under the current settings (read once per run of a hook). */
function sendOptions(): SendOptions {
  const s = settings().webhook;
  return {
    hosts: parseHostList(s.allowedHostList), timeoutMs: s.deliverTimeout * 1000, skipTlsVerify: s.skipTlsVerify,
    proxy: s.proxyUrl ? { url: new URL(s.proxyUrl), hosts: s.proxyHosts.map(globRegExp) } : null,
  };
}

/** Send one task of an active hook; the outcome to record. */
async function attempt(task: HookTaskModel, hook: WebhookModel, target: string, how: SendOptions): Promise<AttemptOutcome> {
  const s = settings().webhook;
  let req: DeliveryRequest;
  try {
    req = buildRequest({
      type: hook.type, meta: hook.meta, url: hook.url, contentType: hook.contentType, secret: hook.secret, authorization: open(hook.headerAuthorizationEncrypted),
      uuid: task.uuid, eventType: task.eventType as HookEventType, payload: task.payloadContent, target,
    });
  } catch (err) {
    const response = JSON.stringify({ status: 0, headers: {}, body: `cannot create http request for webhook ${hook.type}[${hook.id} ${hook.url}]: ${(err as Error).message}` });
    return { id: task.id, succeeded: false, final: true, request: '', response, retryAtMs: 0 };
  }
  const shown = { ...req.headers, ...(req.headers.Authorization ? { Authorization: '******' } : {}) };
  // why: the body of a JSON hook is the stored payload itself; the history reads it from there instead of keeping it twice.
  const request = JSON.stringify({ url: req.url, http_method: req.method, headers: shown, ...(req.body === task.payloadContent ? {} : { body: req.body }) });
  let response: { status: number; headers: Record<string, string>; body: string };
  try {
    response = await send(req, how);
  } catch (err) {
    response = { status: 0, headers: {}, body: `Delivery: ${(err as Error).message}` };
  }
  const ok = response.status >= 200 && response.status < 300;
  return {
    id: task.id, succeeded: ok, final: ok || task.attempts + 1 >= s.maxAttempts, request, response: JSON.stringify(response),
    retryAtMs: Date.now() + retryDelayMs(task.attempts + 1),
  };
}

/** How many of a hook's deliveries are read at a time, and the longest run before its attempts are recorded. */
const RUN_TASKS = 64;
const RUN_MS = 1000;
/** The pause between new tasks and the lease that takes them. */
const WAKE_DELAY_MS = 5;

/**
 * Send a leased hook's waiting deliveries in order until none is left, one fails (the hook then
 * waits for its retry), the lease is lost, or the worker stops. Each run's attempts are recorded in
 * one transaction, which also gives the lease back after the last run.
 */
async function drainHook(hook: WebhookModel, workerId: string, leaseMs: number, stopped: () => boolean): Promise<void> {
  const target = await targetOf(hook);
  const how = sendOptions();
  let last = HookStatus.None;
  for (;;) {
    const tasks = await pendingTasksOf(systemCtx, hook.id, RUN_TASKS);
    const outcomes: AttemptOutcome[] = [];
    let nextDelivery = 0;
    const started = Date.now();
    for (const t of tasks) {
      // why: as Gitea, a task of an inactive hook is done without being sent.
      const o = hook.isActive ? await attempt(t, hook, target, how)
        : { id: t.id, succeeded: false, final: true, request: '', response: JSON.stringify({ status: 0, headers: {}, body: 'the hook is inactive' }), retryAtMs: 0 };
      outcomes.push(o);
      if (hook.isActive) last = o.succeeded ? HookStatus.Succeed : HookStatus.Fail;
      if (!o.succeeded && !o.final) nextDelivery = o.retryAtMs;
      if (nextDelivery || stopped() || Date.now() - started > RUN_MS) break;
    }
    // why: a short read means the queue was empty when it was read; a task queued since then wakes the loop again once the lease is back.
    const more = !nextDelivery && !stopped() && tasks.length > 0 && (tasks.length === RUN_TASKS || outcomes.length < tasks.length);
    const kept = await withTx(systemCtx, async (tx) => {
      await recordHookAttempts(tx, outcomes);
      if (more) return renewHookLease(tx, hook.id, workerId, leaseMs);
      await releaseHook(tx, hook.id, workerId, nextDelivery, last);
      return false;
    });
    if (!kept) return;
  }
}

/**
 * At the start of a node alone on its database (embedded mode), give back the leases its dead
 * workers held, so their deliveries go out at once instead of after the lease runs out.
 */
export function releaseLeasesOfDeadWorkers(): Promise<void> {
  return releaseAllHookLeases(systemCtx);
}

/** Prune finished deliveries as `[cron.cleanup_hook_task_table]` says: by age (OlderThan) or all but the newest of each hook (PerWebhook). */
export async function pruneHookTasks(): Promise<number> {
  const c = settings().hookTaskCleanup;
  if (!c.enabled) return 0;
  if (c.cleanupType === 'PerWebhook') return pruneHookTasksPerHook(systemCtx, c.numberToKeep);
  return pruneHookTasksOlderThan(systemCtx, Date.now() - c.olderThan * 1000);
}

const CLEANUP_EVERY_MS = 3600_000;
const HOOK_CLEANUP = 'cleanup_hook_task_table';
registerCronTask(HOOK_CLEANUP, CLEANUP_EVERY_MS, pruneHookTasks);

/** Running delivery. */
export interface HookDelivery { stop(): Promise<void> }

/** Start delivering: up to `hooks` hooks leased at a time, each for `leaseMs` (renewed while it runs). */
export function startHookDelivery(opts: { hooks?: number; leaseMs?: number; pollMs?: number; cleanup?: boolean } = {}): HookDelivery {
  const workerId = `${os.hostname()}:${process.pid}:${crypto.randomUUID().slice(0, 8)}`;
  const most = opts.hooks ?? 32;
  const leaseMs = opts.leaseMs ?? 30_000;
  let stopped = false;
  let wake: (() => void) | null = null;
  let woken = false;
  // why: a burst of events (a push of many refs, a busy API) wakes the loop once; the short pause lets one lease cover them.
  let nudge: NodeJS.Timeout | null = null;
  const unsubscribe = onEnqueued(() => {
    woken = true;
    nudge ??= setTimeout(() => {
      nudge = null;
      wake?.();
    }, WAKE_DELAY_MS);
  });
  const running = new Map<number, Promise<void>>();
  // why: one worker per node prunes (the primary picks it); several nodes pruning at once only repeat work.
  const cleaner = opts.cleanup ? scheduleCronTask(HOOK_CLEANUP) : null;
  if (opts.cleanup && settings().hookTaskCleanup.runAtStart) runCronTask(HOOK_CLEANUP).catch((err: unknown) => console.error('hook task cleanup:', err));
  const loop = (async () => {
    while (!stopped) {
      woken = false;
      try {
        const free = most - running.size;
        // why: the lease is a write; in a transaction it waits its turn with the process's other SQLite writers instead of sleeping on a busy database.
        const hooks = free > 0 ? await withTx(systemCtx, (tx) => leaseDueHooks(tx, free, leaseMs, workerId)) : [];
        for (const h of hooks) {
          const run = drainHook(h, workerId, leaseMs, () => stopped)
            .catch((err: unknown) => console.error(`webhook ${h.id} delivery:`, err))
            .finally(() => {
              running.delete(h.id);
              wake?.();
            });
          running.set(h.id, run);
        }
      } catch (err) {
        console.error(`webhook delivery ${workerId}:`, err);
      }
      if (!stopped && !woken) {
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, opts.pollMs ?? 1000);
        });
        wake = null;
      }
    }
    await Promise.all(running.values());
  })();
  return {
    stop: async () => {
      stopped = true;
      cleaner?.stop();
      unsubscribe();
      wake?.();
      await loop;
    },
  };
}
