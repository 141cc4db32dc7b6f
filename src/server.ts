/**
 * `forge web`: the primary loads config, migrates once under the lock, forks the workers named by
 * cluster.config.ts and restarts any that die; each worker serves HTTP and SSH on the
 * shared ports. SIGTERM stops accepting, drains in-flight requests and exits 0.
 */
import cluster, { type Worker } from 'node:cluster';
import http from 'node:http';
import clusterConfig from '../cluster.config';
import { bootSettings, bootDatabase } from './boot';
import { ConfigError } from './config';
import { closeDatabase, openDatabase } from './db';
import { closeRedis } from './lock/redis';
import { relayInPrimary, startBus } from './queue/bus';
import { startPushProcessing, type PushProcessing } from './services/git-push/push.worker';
import type { SshServerHandle } from '../ssh/server';

const DRAIN_MS = 25_000;

async function runPrimary(workers: number): Promise<void> {
  const s = bootSettings();
  // why: a cluster shares state through PostgreSQL and Redis; refusing early beats split-brain SQLite files.
  if (clusterConfig.mode === 'cluster' && (s.database.dbType !== 'postgres' || !s.redis.connStr)) {
    throw new ConfigError('cluster mode needs [database] DB_TYPE = postgres and [redis] CONN_STR');
  }
  const applied = await bootDatabase(s);
  if (applied.length) console.log(`migrations applied: ${applied.join(', ')}`);
  await closeDatabase();
  relayInPrimary();
  // why: a larger young generation means fewer scavenges per request burst, which keeps the latency tail short.
  // Without incremental marking, V8 answers the pressure of the buffers that stream through a worker
  // (SSH packets, pipe reads, archive chunks: megabytes per second, all short-lived) with a scavenge
  // instead of a full mark-compact of the whole heap; with it, an SSH clone of 100 MB cost the
  // worker about 25 full collections and twice the CPU.
  cluster.setupPrimary({ execArgv: [...process.execArgv, '--max-semi-space-size=32', '--no-incremental-marking'] });
  let stopping = false;
  // why: each worker keeps an index across restarts; worker 0 runs the once-per-node start-up jobs (the reconciler).
  const indexOf = new Map<Worker, number>();
  const fork = (index: number): void => {
    indexOf.set(cluster.fork({ FORGE_WORKER: '1', FORGE_WORKER_INDEX: String(index) }), index);
  };
  cluster.on('exit', (w, code, signal) => {
    if (stopping) return;
    console.error(`worker ${w.process.pid} died (${signal ?? code}); starting another`);
    const index = indexOf.get(w) ?? 0;
    indexOf.delete(w);
    setTimeout(() => fork(index), 200);
  });
  for (let i = 0; i < workers; i++) fork(i);
  let ready = 0;
  cluster.on('message', (_w, m: { forgeReady?: boolean }) => {
    if (m?.forgeReady && ++ready === workers) console.log(`forge is listening on ${s.server.rootUrl} (${workers} worker${workers > 1 ? 's' : ''}, ${clusterConfig.mode})`);
  });
  const stop = () => {
    if (stopping) return;
    stopping = true;
    const alive = Object.values(cluster.workers ?? {}).filter((w): w is Worker => !!w);
    if (alive.length === 0) process.exit(0);
    let left = alive.length;
    for (const w of alive) {
      w.once('exit', () => {
        if (--left === 0) process.exit(0);
      });
      w.send({ forgeStop: true });
    }
    setTimeout(() => process.exit(0), DRAIN_MS + 5_000).unref();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

async function runWorker(): Promise<void> {
  let server: http.Server | null = null;
  let pushes: PushProcessing | null = null;
  let ssh: SshServerHandle | null = null;
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    setTimeout(() => process.exit(0), DRAIN_MS).unref();
    if (!server) process.exit(0);
    // why: SSH stops accepting at once, but HTTP keeps serving until running SSH git commands are
    // done, because a push's hooks call this node's internal HTTP API.
    void (ssh?.stop() ?? Promise.resolve()).then(() => {
      // why: close() stops accepting and waits for in-flight requests; keep-alive sockets that finish a
      // request while draining would otherwise hold it open, so idle ones are closed as they appear.
      server!.close(() => {
        void (pushes?.stop() ?? Promise.resolve())
          .then(() => Promise.all([closeDatabase(), closeRedis()]))
          .finally(() => process.exit(0));
      });
      server!.closeIdleConnections();
      setInterval(() => server!.closeIdleConnections(), 100).unref();
    });
  };
  // why: listen for the primary's stop before booting, so a worker told to stop while starting does not linger.
  process.on('message', (m: { forgeStop?: boolean }) => {
    if (m?.forgeStop) stop();
  });
  process.on('SIGTERM', stop);
  process.on('SIGINT', () => undefined);

  const s = bootSettings();
  openDatabase(s);
  startBus();
  const { createWebServer } = await import('./app');
  const srv = createWebServer();
  srv.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    srv.once('error', reject);
    srv.listen(s.server.httpPort, s.server.httpAddr, resolve);
  });
  if (s.server.startSshServer && !s.server.disableSsh) {
    const { startSshServer } = await import('../ssh/server');
    ssh = await startSshServer();
  }
  if (stopping) process.exit(0);
  server = srv;
  pushes = startPushProcessing({ reconcile: process.env.FORGE_WORKER_INDEX === '0' });
  process.send?.({ forgeReady: true });
}

/** Entry of `forge web`; `--workers N` overrides cluster.config.ts. */
export async function runWeb(flags: Record<string, string>): Promise<void> {
  if (cluster.isPrimary) {
    const n = Number(flags.workers ?? clusterConfig.workers);
    if (!Number.isInteger(n) || n < 1 || n > 256) throw new Error(`--workers must be an integer 1..256, got ${flags.workers ?? clusterConfig.workers}`);
    await runPrimary(n);
  } else {
    await runWorker();
  }
}
