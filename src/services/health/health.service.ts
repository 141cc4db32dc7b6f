/**
 * The health of this node as Gitea's `/api/healthz` reports it: one entry per component (the
 * database, the cache or Redis, the data dir), each pass or fail, and an overall status. Redis is
 * "warn" when it is away, since the forge keeps serving without it (locked writes answer 503).
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { settings } from '../../config';
import { pingDatabase } from '../../db';
import { redis, redisReady } from '../../lock/redis';
import { mailStatus } from '../mail/status';

export type HealthStatus = 'pass' | 'warn' | 'fail';

/** One component's status at a time (RFC 3339), with what went wrong when it did not pass. */
export interface ComponentStatus { status: HealthStatus; time: string; output?: string }

/** The node's health: Gitea's fields plus a data-dir check. */
export interface Health { status: HealthStatus; description: string; checks: Record<string, ComponentStatus[]> }

const CHECK_MS = 2_000;

async function probe(fn: () => Promise<void | string>, onFailure: HealthStatus = 'fail'): Promise<ComponentStatus> {
  const time = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  try {
    const output = await fn();
    return output ? { status: 'pass', time, output } : { status: 'pass', time };
  } catch (err) {
    return { status: onFailure, time, output: (err as Error).message };
  }
}

/** Check each component now. */
export async function checkHealth(): Promise<Health> {
  const s = settings();
  const dataDir = s.server.appDataPath;
  const [database, cache, data] = await Promise.all([
    probe(() => pingDatabase(CHECK_MS)),
    // why: without Redis (embedded mode) the cache is this process's memory, which is always there.
    probe(async () => {
      const r = redis();
      if (!r) return;
      if (!redisReady()) throw new Error('redis is not connected');
      await r.ping();
    }, 'warn'),
    probe(async () => {
      const file = path.join(dataDir, `.healthz-${process.pid}`);
      await fs.writeFile(file, '');
      await fs.rm(file);
    }),
  ]);
  const checks: Record<string, ComponentStatus[]> = { 'database:ping': [database], 'cache:ping': [cache], 'data-dir:write': [data] };
  const parts = [database, cache, data];
  if (s.mailer.enabled) {
    // why: a mail server that is away delays mail but stops nothing else: the node warns, it does not fail.
    const mail = await probe(async () => {
      const m = await mailStatus();
      if (m.failingSince) throw new Error(`sending fails since ${m.failingSince.toISOString()}: ${m.lastError}; ${m.waiting} mail(s) wait`);
      return `${m.protocol} ${m.server}: ${m.waiting} mail(s) wait, ${m.dead} given up`;
    }, 'warn');
    checks['mailer:send'] = [mail];
    parts.push(mail);
  }
  const all = parts.map((c) => c.status);
  const status: HealthStatus = all.includes('fail') ? 'fail' : all.includes('warn') ? 'warn' : 'pass';
  return { status, description: s.appName, checks };
}
