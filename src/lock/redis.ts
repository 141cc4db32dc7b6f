/**
 * The Redis connection used in cluster mode for locks, shared counters and cross-node events.
 * Absent in embedded mode ([redis] CONN_STR empty).
 */
import crypto from 'node:crypto';
import Redis from 'ioredis';
import { settings } from '../config';

let client: Redis | null | undefined;

/** The shared client, or null when no Redis is configured. */
export function redis(): Redis | null {
  if (client === undefined) {
    const conn = settings().redis.connStr;
    client = conn ? new Redis(conn, { maxRetriesPerRequest: 3, lazyConnect: false }) : null;
  }
  return client;
}

/** A second connection for subscriptions (a subscribed client cannot issue commands). */
export function redisSubscriber(): Redis | null {
  const conn = settings().redis.connStr;
  return conn ? new Redis(conn, { maxRetriesPerRequest: null }) : null;
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
