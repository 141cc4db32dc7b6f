/**
 * Delivering hook tasks, on every worker of every node: lease due deliveries (a hook's oldest
 * waiting one each), send them in parallel, and record each attempt; a failure (network error,
 * timeout, an answer outside 2xx) is tried again after an exponential backoff with jitter until
 * `[webhook] MAX_ATTEMPTS`, then kept as failed. A worker that dies mid-delivery leaves its lease
 * to expire, and another worker sends the task again with the same X-Gitea-Delivery, so a
 * receiver can tell. Woken by new tasks (the outbox's notification), else it polls.
 * WIP (issue 17): not started by the server yet; events do not produce tasks yet.
 */
import crypto from 'node:crypto';
import os from 'node:os';
import { settings } from '../../config';
import { systemCtx } from '../../db';
import { claimHookTasks, recordHookAttempt, type HookTaskModel } from '../../models/hook-task.model';
import { findUserById, UserType } from '../../models/user.model';
import { WebhookModel } from '../../models/webhook.model';
import { onEnqueued } from '../../queue/outbox';
import type { HookEventType } from './events';
import { parseHostList } from './host-matcher';
import { open } from './secret-box';
import { buildRequest } from './request';
import { send } from './client';

/** The first retry's delay, the factor between retries, and the longest delay (about a day over 8 attempts). */
const FIRST_RETRY_MS = 3 * 60_000;
const RETRY_FACTOR = 3;
const LONGEST_RETRY_MS = 12 * 3600_000;

/** The delay before attempt `n + 1` after `n` failed ones, with ±20% jitter so retries of many hooks spread out. */
export function retryDelayMs(n: number): number {
  const d = Math.min(LONGEST_RETRY_MS, FIRST_RETRY_MS * RETRY_FACTOR ** Math.max(0, n - 1));
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

/** Send one leased task and record the attempt. */
async function deliver(task: HookTaskModel, hook: WebhookModel | null, workerId: string): Promise<void> {
  const s = settings().webhook;
  const final = (ok: boolean) => ok || task.attempts + 1 >= s.maxAttempts;
  if (!hook || !hook.isActive) {
    // why: as Gitea, a task of a hook that is gone or inactive is done without being sent.
    await recordHookAttempt(systemCtx, task.id, workerId, { succeeded: false, final: true, request: '', response: JSON.stringify({ status: 0, headers: {}, body: 'the hook is inactive or gone' }), retryAtMs: 0 });
    return;
  }
  const req = buildRequest({
    url: hook.url, contentType: hook.contentType, secret: hook.secret, authorization: open(hook.headerAuthorizationEncrypted), uuid: task.uuid,
    eventType: task.eventType as HookEventType, payload: task.payloadContent, target: await targetOf(hook),
  });
  const shown = { ...req.headers, ...(req.headers.Authorization ? { Authorization: '******' } : {}) };
  const request = JSON.stringify({ url: req.url, http_method: req.method, headers: shown, body: req.body });
  let response: { status: number; headers: Record<string, string>; body: string };
  try {
    response = await send(req, { hosts: parseHostList(s.allowedHostList), timeoutMs: s.deliverTimeout * 1000, skipTlsVerify: s.skipTlsVerify });
  } catch (err) {
    response = { status: 0, headers: {}, body: `Delivery: ${(err as Error).message}` };
  }
  const ok = response.status >= 200 && response.status < 300;
  await recordHookAttempt(systemCtx, task.id, workerId, {
    succeeded: ok, final: final(ok), request, response: JSON.stringify(response), retryAtMs: Date.now() + retryDelayMs(task.attempts + 1),
  });
  hook.lastStatus = ok ? 1 : 2;
  await WebhookModel.update({ lastStatus: hook.lastStatus }, { where: { id: hook.id } });
}

/** Running delivery. */
export interface HookDelivery { stop(): Promise<void> }

/** Start delivering: `batch` tasks leased at a time (each of another hook), for `leaseMs`. */
export function startHookDelivery(opts: { batch?: number; leaseMs?: number; pollMs?: number } = {}): HookDelivery {
  const workerId = `${os.hostname()}:${process.pid}:${crypto.randomUUID().slice(0, 8)}`;
  const batch = opts.batch ?? 64;
  const leaseMs = opts.leaseMs ?? 60_000;
  let stopped = false;
  let wake: (() => void) | null = null;
  const unsubscribe = onEnqueued(() => wake?.());
  const loop = (async () => {
    while (!stopped) {
      let tasks: HookTaskModel[] = [];
      try {
        tasks = await claimHookTasks(systemCtx, batch, leaseMs, workerId);
        const hooks = new Map((await WebhookModel.findAll({ where: { id: [...new Set(tasks.map((t) => t.hookId))] } })).map((h) => [h.id, h]));
        await Promise.all(tasks.map((t) => deliver(t, hooks.get(t.hookId) ?? null, workerId)));
      } catch (err) {
        console.error(`webhook delivery ${workerId}:`, err);
      }
      if (tasks.length === 0 && !stopped) {
        await new Promise<void>((resolve) => { wake = resolve; setTimeout(resolve, opts.pollMs ?? 1000); });
        wake = null;
      }
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      unsubscribe();
      wake?.();
      await loop;
    },
  };
}
