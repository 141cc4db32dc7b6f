/**
 * Sending queued mail: each web worker of every node runs one sender that claims a batch of
 * `mail.send` jobs, hands them to the pooled transport together, and removes the sent ones in one
 * statement. A failed message goes back to the outbox with its backoff and is retried alone.
 * why: when the server cannot be reached, the sender stops claiming and probes the server with a
 * growing pause instead, so an outage of any length spends no attempts (no mail is given up because
 * the server was down) and each message is sent once it is back.
 */
import crypto from 'node:crypto';
import os from 'node:os';
import { systemCtx } from '../../db';
import { claim, completeAndRemove, fail, onEnqueued } from '../../queue/outbox';
import type { MailMessage } from './message';
import { SEND_TOPIC } from './message';
import { closeTransport, deliver, probeServer } from './transport';

const BATCH = 50;
const LEASE_MS = 60_000;
const POLL_MS = 1_000;
const PROBE_MAX_MS = 10_000;

/** Errors that say the server is away or asks us to come back later (a 4xx), not that it refused this message for good. */
const UNREACHABLE = new Set(['ECONNECTION', 'ECONNREFUSED', 'ETIMEDOUT', 'ESOCKET', 'EDNS', 'ECONNRESET', 'EHOSTUNREACH', 'ENOTFOUND', 'EGREETING']);

function unreachable(err: unknown): boolean {
  const e = err as { code?: string; responseCode?: number };
  return UNREACHABLE.has(e.code ?? '') || (e.responseCode !== undefined && e.responseCode >= 400 && e.responseCode < 500);
}

/** A running sender. */
export interface MailSender { stop(): Promise<void> }

/** Start this process's sender. */
export function startMailDelivery(): MailSender {
  const workerId = `${os.hostname()}:${process.pid}:mail:${crypto.randomUUID().slice(0, 8)}`;
  let stopped = false;
  let wake: (() => void) | null = null;
  let kicked = false;
  const unsubscribe = onEnqueued(() => { kicked = true; wake?.(); });
  const pause = (ms: number) => new Promise<void>((resolve) => { wake = resolve; setTimeout(resolve, ms); }).then(() => { wake = null; });

  /** Send one claimed batch; true when the server looked away. */
  const sendBatch = async (jobs: { id: number; payload: unknown }[]): Promise<boolean> => {
    const outcomes = await Promise.allSettled(jobs.map((j) => deliver(j.payload as MailMessage)));
    const sent: number[] = [];
    let away = false;
    for (let i = 0; i < jobs.length; i++) {
      const o = outcomes[i];
      if (o.status === 'fulfilled') sent.push(jobs[i].id);
      else {
        away ||= unreachable(o.reason);
        await fail(systemCtx, jobs[i].id, workerId, o.reason).catch(() => undefined);
      }
    }
    await completeAndRemove(systemCtx, sent, workerId);
    return away;
  };

  const loop = (async () => {
    let probeMs = 0;
    while (!stopped) {
      try {
        if (probeMs > 0) {
          await pause(probeMs);
          if (stopped) break;
          try {
            await probeServer();
            probeMs = 0;
          } catch {
            probeMs = Math.min(PROBE_MAX_MS, probeMs * 2);
          }
          continue;
        }
        const jobs = await claim(systemCtx, [SEND_TOPIC], BATCH, LEASE_MS, workerId);
        if (jobs.length > 0) {
          if (await sendBatch(jobs)) probeMs = 1_000;
          continue;
        }
      } catch (err) {
        // why: a database hiccup must not end the sender; the next round tries again.
        console.error(`mail sender ${workerId}:`, err);
      }
      if (!stopped && !kicked) await pause(POLL_MS);
      kicked = false;
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      unsubscribe();
      wake?.();
      await loop;
      closeTransport();
    },
  };
}
