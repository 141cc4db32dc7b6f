/**
 * Cross-process events (cache invalidation and the like). Delivered to this process at once,
 * to the other workers of this machine over cluster IPC, and to other machines over Redis pub/sub.
 */
import cluster from 'node:cluster';
import { EventEmitter } from 'node:events';
import { redis, redisSubscriber, redisKey } from '../lock/redis';

const local = new EventEmitter();
local.setMaxListeners(100);
const channel = () => redisKey('bus');
const origin = `${process.pid}-${Math.random().toString(36).slice(2)}`;
interface BusMessage { forgeBus: true; origin: string; topic: string; payload: unknown }
let started = false;

function deliver(msg: BusMessage): void {
  if (msg.origin !== origin) local.emit(msg.topic, msg.payload);
}

/** Start listening to other processes; called once per worker at boot. */
export function startBus(): void {
  if (started) return;
  started = true;
  const sub = redisSubscriber();
  if (sub) {
    sub.subscribe(channel()).catch(() => undefined);
    sub.on('message', (_ch: string, raw: string) => deliver(JSON.parse(raw) as BusMessage));
  } else if (cluster.isWorker) {
    process.on('message', (m: unknown) => {
      if ((m as BusMessage)?.forgeBus) deliver(m as BusMessage);
    });
  }
}

/** Publish an event to every process of the forge, this one included. */
export function publish(topic: string, payload: unknown): void {
  local.emit(topic, payload);
  const msg: BusMessage = { forgeBus: true, origin, topic, payload };
  const r = redis();
  // why: with Redis away, other nodes miss this event; their caches expire on their own within seconds.
  if (r) r.publish(channel(), JSON.stringify(msg)).catch(() => undefined);
  else if (cluster.isWorker && process.send) process.send(msg);
}

/** Listen to a topic. */
export function subscribe(topic: string, fn: (payload: unknown) => void): void {
  local.on(topic, fn);
}

/** In the primary: relay bus messages from one worker to the others (embedded mode, no Redis). */
export function relayInPrimary(): void {
  cluster.on('message', (from, m: unknown) => {
    if (!(m as BusMessage)?.forgeBus) return;
    for (const w of Object.values(cluster.workers ?? {})) if (w && w.id !== from.id) w.send(m as BusMessage);
  });
}
