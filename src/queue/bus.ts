/**
 * Cross-process events (cache invalidation and the like). Delivered to this process at once, and to
 * the other processes over Redis pub/sub (cluster) or, without Redis, to the other workers of this
 * machine over cluster IPC. `publishAndWait` also waits until every process has handled the event:
 * with Redis every subscribed process of every node acknowledges it, without Redis every worker
 * of this machine does.
 */
import cluster, { type Worker } from 'node:cluster';
import { EventEmitter } from 'node:events';
import { redis, redisSubscriber, redisKey } from '../lock/redis';

const local = new EventEmitter();
local.setMaxListeners(100);
const channel = () => redisKey('bus');
const origin = `${process.pid}-${Math.random().toString(36).slice(2)}`;
/** A bus event; `ack` asks every receiver to acknowledge it on the sender's ack channel. */
interface BusMessage { forgeBus: true; origin: string; topic: string; payload: unknown; ack?: string }
const ackChannel = (of: string) => redisKey(`bus:ack:${of}`);
/** publishAndWait rounds over Redis: acknowledgements counted, and how many are expected once PUBLISH said. */
const acking = new Map<string, { got: number; expected: number; done: () => void }>();
/**
 * The longest a publishAndWait waits for acknowledgements.
 * why: the table caches keep an entry at most 2 s (table-cache.ts); past that, a process that did
 * not answer (hung, partitioned) holds nothing older than the write, so waiting longer buys nothing.
 */
const MAX_WAIT_MS = 2_000;
let subscriber: ReturnType<typeof redisSubscriber> = null;
/** Whether this process listens on its ack channel (acknowledgements sent before would be lost). */
let listening = false;
/** The cluster IPC of publishAndWait: a worker asks, the primary delivers to all and says when all acknowledged. */
interface SyncMessage { forgeSync: 'hello' | 'ask' | 'deliver' | 'ack' | 'done'; id: string; topic?: string; payload?: unknown }
let started = false;
const waiting = new Map<string, () => void>();
let nextSync = 0;

function deliver(msg: BusMessage): void {
  if (msg.origin === origin) return;
  local.emit(msg.topic, msg.payload);
  if (msg.ack) redis()?.publish(ackChannel(msg.origin), msg.ack).catch(() => undefined);
}

function acknowledged(id: string): void {
  const round = acking.get(id);
  if (!round) return;
  round.got++;
  if (round.got >= round.expected) round.done();
}

/** Start listening to other processes; called once per worker at boot. */
export function startBus(): void {
  if (started) return;
  started = true;
  const sub = redisSubscriber();
  subscriber = sub;
  if (sub) {
    const acks = ackChannel(origin);
    sub.subscribe(channel(), acks).then(() => { listening = true; }, () => undefined);
    sub.on('message', (ch: string, raw: string) => {
      if (ch === acks) acknowledged(raw);
      else deliver(JSON.parse(raw) as BusMessage);
    });
  }
  if (cluster.isWorker) {
    process.on('message', (m: unknown) => {
      const sync = m as SyncMessage;
      if (sync?.forgeSync === 'deliver') {
        local.emit(sync.topic!, sync.payload);
        process.send?.({ forgeSync: 'ack', id: sync.id } satisfies SyncMessage);
      } else if (sync?.forgeSync === 'done') {
        waiting.get(sync.id)?.();
        waiting.delete(sync.id);
      } else if (!sub && (m as BusMessage)?.forgeBus) {
        deliver(m as BusMessage);
      }
    });
    process.send?.({ forgeSync: 'hello', id: origin } satisfies SyncMessage);
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

/**
 * Publish an event to every process, and resolve once every process has handled it (with Redis:
 * every subscribed process of every node, at most MAX_WAIT_MS; without: every worker of this
 * machine). why: whoever changed data and then reads through any worker of any node must not be
 * served what the change made stale.
 */
export function publishAndWait(topic: string, payload: unknown): Promise<void> {
  const r = redis();
  if (r && listening && subscriber?.status === 'ready') return publishOverRedis(r, topic, payload);
  if (r) r.publish(channel(), JSON.stringify({ forgeBus: true, origin, topic, payload } satisfies BusMessage)).catch(() => undefined);
  return publishOverIpc(topic, payload);
}

/** The Redis round: PUBLISH says how many processes received the event (this one included); each other one acknowledges. */
function publishOverRedis(r: NonNullable<ReturnType<typeof redis>>, topic: string, payload: unknown): Promise<void> {
  local.emit(topic, payload);
  const id = `${origin}:${++nextSync}`;
  return new Promise((resolve) => {
    const finish = () => { clearTimeout(timer); acking.delete(id); resolve(); };
    const timer = setTimeout(finish, MAX_WAIT_MS);
    const round = { got: 0, expected: Infinity, done: finish };
    acking.set(id, round);
    r.publish(channel(), JSON.stringify({ forgeBus: true, origin, topic, payload, ack: id } satisfies BusMessage)).then((received) => {
      round.expected = received - 1;
      if (round.got >= round.expected) finish();
    }, () => {
      // why: Redis failed just now; this machine's workers still hear the event over IPC.
      publishOverIpc(topic, payload).then(finish, finish);
    });
  });
}

/** The IPC round: the primary delivers to every worker of this machine and answers once all acknowledged. */
function publishOverIpc(topic: string, payload: unknown): Promise<void> {
  if (!cluster.isWorker || !process.send || !started) {
    local.emit(topic, payload);
    return Promise.resolve();
  }
  const id = `${origin}:${++nextSync}`;
  return new Promise((resolve) => {
    // why: a worker that dies during the round never answers; the caller is not kept waiting for it.
    const timer = setTimeout(() => { waiting.delete(id); resolve(); }, 5_000);
    waiting.set(id, () => { clearTimeout(timer); resolve(); });
    process.send!({ forgeSync: 'ask', id, topic, payload } satisfies SyncMessage);
  });
}

/** Listen to a topic. */
export function subscribe(topic: string, fn: (payload: unknown) => void): void {
  local.on(topic, fn);
}

/**
 * In the primary: relay bus messages from one worker to the others (without Redis), and run the
 * rounds of publishAndWait (deliver to every worker, answer the asker once all acknowledged).
 */
export function relayInPrimary(): void {
  const rounds = new Map<string, { from: Worker; left: Set<number> }>();
  const finish = (id: string) => {
    const round = rounds.get(id)!;
    if (round.left.size > 0) return;
    rounds.delete(id);
    if (round.from.isConnected()) round.from.send({ forgeSync: 'done', id } satisfies SyncMessage);
  };
  // why: a worker still booting (opening its database, waiting for Redis) has no caches yet and
  // would not answer; only workers that said hello take part in a round, and one that exits leaves it.
  const ready = new Set<number>();
  cluster.on('exit', (w) => {
    ready.delete(w.id);
    for (const [id, round] of rounds) if (round.left.delete(w.id)) finish(id);
  });
  cluster.on('message', (from, m: unknown) => {
    const sync = m as SyncMessage;
    if (sync?.forgeSync === 'hello') {
      ready.add(from.id);
      return;
    }
    if (sync?.forgeSync === 'ask') {
      const workers = Object.values(cluster.workers ?? {}).filter((w): w is Worker => !!w && w.isConnected() && ready.has(w.id));
      rounds.set(sync.id, { from, left: new Set(workers.map((w) => w.id)) });
      for (const w of workers) w.send({ forgeSync: 'deliver', id: sync.id, topic: sync.topic, payload: sync.payload } satisfies SyncMessage);
      finish(sync.id);
      return;
    }
    if (sync?.forgeSync === 'ack') {
      if (rounds.get(sync.id)?.left.delete(from.id)) finish(sync.id);
      return;
    }
    if (!(m as BusMessage)?.forgeBus) return;
    for (const w of Object.values(cluster.workers ?? {})) if (w && w.id !== from.id) w.send(m as BusMessage);
  });
}
