/**
 * `forge web`: the primary loads config, migrates once under the lock, forks the workers named by
 * cluster.config.ts and restarts any that die; each worker serves HTTP and SSH on the
 * shared ports. SIGTERM stops accepting HTTP and SSH, lets requests, clones and pushes in flight
 * finish (at most [server] GRACEFUL_HAMMER_TIME) and exits 0.
 */
import cluster, { type Worker } from 'node:cluster';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import clusterConfig from '../cluster.config';
import { bootSettings, bootDatabase } from './boot';
import { ConfigError, StartupError, settings } from './config';
import { drainable, type DrainableServer } from './drain';
import { flushLogs, log, startLogging } from './log';
import { closeDatabase, openDatabase } from './db';
import { closeRedis, waitForRedis } from './lock/redis';
import { relayInPrimary, startBus } from './queue/bus';
import type { PushProcessing } from './services/git-push/push.worker';
import type { HookDelivery } from './services/webhook/delivery.worker';
import type { SshServerHandle } from '../ssh/server';

async function runPrimary(workers: number): Promise<void> {
  const startedAt = Date.now();
  const s = bootSettings();
  startLogging(s, { access: false });
  // why: a cluster shares state through PostgreSQL and Redis; refusing early beats split-brain SQLite files.
  if (clusterConfig.mode === 'cluster' && (s.database.dbType !== 'postgres' || !s.redis.connStr)) {
    throw new ConfigError('cluster mode needs [database] DB_TYPE = postgres and [redis] CONN_STR');
  }
  const applied = await bootDatabase(s);
  if (applied.length) log.info(`migrations applied: ${applied.join(', ')}`);
  // why: without Redis this node is alone on its database; a hook lease it finds belongs to a worker of its own that died.
  if (!s.redis.connStr) await (await import('./services/webhook/delivery.worker')).releaseLeasesOfDeadWorkers();
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
    indexOf.set(cluster.fork({ FORGE_WORKER: '1', FORGE_WORKER_INDEX: String(index), FORGE_NODE_STARTED: String(startedAt) }), index);
  };
  let everReady = false;
  // why: a worker that cannot start (a port in use, say) would otherwise be restarted for ever,
  // printing the same failure; the first one stops the forge with its one-line reason.
  const fatal = (message: string) => {
    if (stopping) return;
    process.stderr.write(`forge cannot start: ${message}\n`);
    // why: the reason always reaches stderr (above); a log kept in files gets it too.
    if (!s.log.mode.includes('console')) log.fatal(`forge cannot start: ${message}`);
    stopping = true;
    for (const w of Object.values(cluster.workers ?? {})) w?.process.kill('SIGKILL');
    process.exit(1);
  };
  cluster.on('exit', (w, code, signal) => {
    if (stopping) return;
    if (!everReady) return fatal(`worker ${w.process.pid} exited (${signal ?? code}) before it was ready; its error is above`);
    log.error(`worker ${w.process.pid} died (${signal ?? code}); starting another`);
    const index = indexOf.get(w) ?? 0;
    indexOf.delete(w);
    setTimeout(() => fork(index), 200);
  });
  for (let i = 0; i < workers; i++) fork(i);
  let ready = 0;
  cluster.on('message', (_w, m: { forgeReady?: boolean; forgeFatal?: string; http?: string; ssh?: string | null }) => {
    if (m?.forgeFatal) fatal(m.forgeFatal);
    if (!m?.forgeReady || ++ready !== workers || everReady) return;
    everReady = true;
    const sshPart = m.ssh ? `, SSH on ${m.ssh}` : ', SSH off';
    log.notice(`forge is listening: HTTP on ${m.http}${sshPart} (ROOT_URL ${s.server.rootUrl}; ${workers} worker${workers > 1 ? 's' : ''}, ${clusterConfig.mode})`);
  });
  const stop = () => {
    if (stopping) return;
    stopping = true;
    const alive = Object.values(cluster.workers ?? {}).filter((w): w is Worker => !!w);
    const exit = () => { void flushLogs(1000).finally(() => process.exit(0)); };
    if (alive.length === 0) return exit();
    log.notice(`forge stopping: ${alive.length} worker${alive.length > 1 ? 's' : ''} finishing what is in flight`);
    let left = alive.length;
    for (const w of alive) {
      w.once('exit', () => {
        if (--left === 0) exit();
      });
      w.send({ forgeStop: true });
    }
    // why: workers bound their own drain by GRACEFUL_HAMMER_TIME; this only guards against one that hangs.
    setTimeout(() => process.exit(0), (s.server.gracefulHammerTime + 5) * 1000).unref();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

async function runWorker(): Promise<void> {
  let server: DrainableServer | null = null;
  let internal: http.Server | null = null;
  let pushes: PushProcessing | null = null;
  let hooks: HookDelivery | null = null;
  let actions: { stop(): void } | null = null;
  let mirrors: { stop(): Promise<void> } | null = null;
  let sessionCleanup: { stop(): void } | null = null;
  let packageCleanup: { stop(): void } | null = null;
  let packageIndexing: { stop(): Promise<void> } | null = null;
  let mailSender: { stop(): Promise<void> } | null = null;
  let ssh: SshServerHandle | null = null;
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    // why: [server] GRACEFUL_HAMMER_TIME bounds the wait; whatever still runs then is cut.
    const hammer = settings().server.gracefulHammerTime;
    setTimeout(() => process.exit(0), hammer * 1000).unref();
    if (!server) process.exit(0);
    log.notice(`worker ${process.pid} stopping: no new connections; what is in flight may finish (at most ${hammer}s)`);
    // why: both listeners stop accepting at once; SSH sessions and HTTP exchanges in flight finish.
    // The hooks of a push still in flight reach this worker's private internal listener, which
    // stays open until the end.
    void Promise.all([ssh?.stop(), server!.drain()])
      .then(() => Promise.all([pushes?.stop(), hooks?.stop(), actions?.stop(), mirrors?.stop(), sessionCleanup?.stop(), packageCleanup?.stop(), packageIndexing?.stop(), mailSender?.stop()]))
      .then(() => Promise.all([closeDatabase(), closeRedis()]))
      .finally(() => {
        internal?.close();
        void flushLogs(1000).finally(() => process.exit(0));
      });
  };
  // why: listen for the primary's stop before booting, so a worker told to stop while starting does not linger.
  process.on('message', (m: { forgeStop?: boolean }) => {
    if (m?.forgeStop) stop();
  });
  process.on('SIGTERM', stop);
  process.on('SIGINT', () => undefined);
  // why: a worker carries every clone and push in flight; one request's bug must cost that request
  // only. Handlers answer their own errors; anything that escapes them is logged here, never fatal.
  process.on('unhandledRejection', (err) => log.error('unhandled rejection:', err));
  process.on('uncaughtException', (err) => log.error('uncaught exception:', err));

  const s = bootSettings();
  startLogging(s, { access: true });
  openDatabase(s);
  if (s.redis.connStr && !(await waitForRedis(10_000))) log.warn('redis: not reachable at start; running without it until it is');
  startBus();
  const { createWebServer, createInternalServer } = await import('./app');
  (await import('./services/subscribers')).registerSubscribers();
  internal = createInternalServer();
  // why: the hooks of this worker's receive-packs call back on a loopback port of its own, not the
  // shared public port, so they reach this very process while it drains (exclusive: not shared by cluster).
  await new Promise<void>((resolve, reject) => {
    internal!.once('error', reject);
    internal!.listen({ port: 0, host: '127.0.0.1', exclusive: true }, resolve);
  });
  if (!s.server.localRootUrl) s.server.localRootUrl = `http://127.0.0.1:${(internal.address() as AddressInfo).port}/`;
  const srv = createWebServer();
  srv.keepAliveTimeout = 65_000;
  const drainableSrv = drainable(srv);
  await new Promise<void>((resolve, reject) => {
    srv.once('error', (err) => reject(listenError(err, 'HTTP_PORT', s.server.httpAddr, s.server.httpPort)));
    srv.listen(s.server.httpPort, s.server.httpAddr, resolve);
  });
  if (s.server.startSshServer && !s.server.disableSsh) {
    const { startSshServer } = await import('../ssh/server');
    ssh = await startSshServer().catch((err: Error) => { throw listenError(err, 'SSH_LISTEN_PORT', s.server.sshListenHost, s.server.sshListenPort); });
  }
  if (stopping) process.exit(0);
  server = drainableSrv;
  // why: the services are loaded here, not at the top: the primary, which only migrates and forks, starts in half the time without them.
  const [{ startPushProcessing }, { startHookDelivery }, { startActionsWork }, { startSessionCleanup }, { startMirrorWork }, { startPackageCleanup }, { startPackageIndexing }, { startMailDelivery }] = await Promise.all([
    import('./services/git-push/push.worker'), import('./services/webhook/delivery.worker'), import('./services/actions/background'),
    import('./services/auth/session.service'), import('./services/mirror/schedule'), import('./services/packages/package.service'),
    import('./services/packages/index-jobs'), import('./services/mail/sender'),
  ]);
  pushes = startPushProcessing({ reconcile: process.env.FORGE_WORKER_INDEX === '0', cleanQuarantine: process.env.FORGE_WORKER_INDEX === '0' });
  hooks = startHookDelivery({ cleanup: process.env.FORGE_WORKER_INDEX === '0' });
  actions = startActionsWork();
  mirrors = startMirrorWork();
  if (process.env.FORGE_WORKER_INDEX === '0') sessionCleanup = startSessionCleanup();
  // why: every worker answers POST /admin/cron/cleanup_packages; one keeps the schedule.
  packageCleanup = startPackageCleanup(process.env.FORGE_WORKER_INDEX === '0');
  if (s.packages.enabled) packageIndexing = startPackageIndexing();
  if (s.mailer.enabled) mailSender = startMailDelivery();
  const addr = srv.address() as AddressInfo;
  process.send?.({ forgeReady: true, http: hostPort(addr.address, addr.port), ssh: ssh ? hostPort(s.server.sshListenHost, ssh.port) : null });
}

function hostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/** A listen failure as one line naming the address and the [server] key that changes it. */
function listenError(err: Error, key: string, host: string, port: number): Error {
  const code = (err as NodeJS.ErrnoException).code;
  const where = hostPort(host, port);
  const env = `FORGE__SERVER__${key}`;
  if (code === 'EADDRINUSE') return new StartupError(`${where} is already in use by another program: stop it, or choose another port with [server] ${key} (${env})`);
  if (code === 'EACCES') return new StartupError(`no permission to listen on ${where} (ports below 1024 need privileges): choose a port above 1023 with [server] ${key} (${env})`);
  if (code === 'EADDRNOTAVAIL') return new StartupError(`${host} is not an address of this machine: fix the listen address of [server] ${key === 'HTTP_PORT' ? 'HTTP_ADDR' : 'SSH_LISTEN_HOST'}`);
  return err;
}

/**
 * Go on without a log once its reader is gone. why: with stdout or stderr closed (the process that
 * read the log pipe died), every write failed with EPIPE; unhandled, the error reached the
 * uncaught-exception handler, whose own log line failed the same way, and the worker spun at full
 * CPU for as long as it lived.
 */
function surviveClosedLog(): void {
  for (const stream of [process.stdout, process.stderr]) stream.on('error', () => undefined);
}

/** Entry of `forge web`; `--workers N` overrides cluster.config.ts. */
export async function runWeb(flags: Record<string, string>): Promise<void> {
  surviveClosedLog();
  if (cluster.isPrimary) {
    const n = Number(flags.workers ?? clusterConfig.workers);
    if (!Number.isInteger(n) || n < 1 || n > 256) throw new Error(`--workers must be an integer 1..256, got ${flags.workers ?? clusterConfig.workers}`);
    await runPrimary(n);
  } else {
    await runWorker();
  }
}
