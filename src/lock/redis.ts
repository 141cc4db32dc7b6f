/**
 * The Redis connection used in cluster mode for locks, shared counters and cross-node events.
 * Absent in embedded mode ([redis] CONN_STR empty).
 */
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
