/**
 * The Redis connection used in cluster mode for locks, shared counters and cross-node events.
 * Absent in embedded mode ([redis] CONN_STR empty).
 *
 * When Redis goes away, commands fail at once instead of queueing (callers fall back or answer
 * 503 without waiting), the connections reconnect by themselves, and the outage is logged once
 * when it starts and once when it ends.
 */
import crypto from 'node:crypto';
import Redis from 'ioredis';
import { settings } from '../config';

let client: Redis | null | undefined;
let down = false;

/** Watch one connection: log the first error of an outage and the recovery, nothing in between. */
function watch(c: Redis, role: string): Redis {
  c.on('error', (err: Error) => {
    if (down) return;
    down = true;
    console.error(`redis: ${role} connection lost (${err.message}); retrying in the background`);
  });
  c.on('ready', () => {
    if (!down) return;
    down = false;
    console.error(`redis: ${role} connection is back`);
  });
  return c;
}

/** The shared client, or null when no Redis is configured. */
export function redis(): Redis | null {
  if (client === undefined) {
    const conn = settings().redis.connStr;
    // why: without the offline queue a command fails as soon as the connection is down, so a
    // sign-in or a lock is decided at once (fallback, or a 503) instead of after retries.
    client = conn ? watch(new Redis(conn, { maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 2_000 }), 'command') : null;
  }
  return client;
}

/** Is the shared client connected and ready for commands? */
export function redisReady(): boolean {
  return client?.status === 'ready';
}

/** Wait until the shared client is ready (start-up), at most `ms`. */
export async function waitForRedis(ms: number): Promise<boolean> {
  const c = redis();
  if (!c || c.status === 'ready') return !!c;
  return new Promise((resolve) => {
    const timer = setTimeout(() => { c.off('ready', ok); resolve(false); }, ms);
    const ok = () => { clearTimeout(timer); resolve(true); };
    c.once('ready', ok);
  });
}

/** A second connection for subscriptions (a subscribed client cannot issue commands). */
export function redisSubscriber(): Redis | null {
  const conn = settings().redis.connStr;
  return conn ? watch(new Redis(conn, { maxRetriesPerRequest: null }), 'subscriber') : null;
}

/** Close the shared connection (shutdown, tests). */
export async function closeRedis(): Promise<void> {
  if (client) await client.quit().catch(() => undefined);
  client = undefined;
}

let prefix: string | undefined;

/**
 * A Redis key or channel name private to this installation.
 * why: several forges (or test servers) may share one Redis; the prefix comes from the shared secret.
 */
export function redisKey(name: string): string {
  prefix ??= `forge:${crypto.createHash('sha256').update(settings().security.secretKey).digest('hex').slice(0, 12)}:`;
  return prefix + name;
}
