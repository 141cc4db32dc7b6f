/**
 * Starts the real forge (`node dist/src/main.js web`) on free ports with a fresh data dir, on
 * SQLite or, when FORGE_TEST_DB=postgres, on a fresh PostgreSQL database (with Redis when
 * FORGE_TEST_REDIS is set and FORGE_TEST_WORKERS workers).
 */
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';
import { promisify } from 'node:util';
import { Client } from 'pg';

const execFileP = promisify(execFile);
const ROOT = path.resolve(__dirname, '..', '..', '..');
const MAIN = path.join(ROOT, 'dist', 'src', 'main.js');
const PG_PORT = Number(process.env.FORGE_TEST_PG_PORT ?? '55432');

const PORT_CLAIMS = path.join(os.tmpdir(), 'forge-test-ports');

/** Can `port` be bound on every address right now? */
function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '0.0.0.0', () => srv.close(() => resolve(true)));
  });
}

/**
 * A free TCP port, claimed for this test run. why: test files run in parallel; a port the kernel
 * handed out and took back could be handed to another file's server before this one binds it. Ports
 * come from below the kernel's ephemeral range (so no client socket takes them) and are claimed by
 * an exclusive file, so no two files of a run pick the same one.
 */
export async function freePort(): Promise<number> {
  fs.mkdirSync(PORT_CLAIMS, { recursive: true });
  for (;;) {
    const port = 20000 + Math.floor(Math.random() * 12000);
    const claim = path.join(PORT_CLAIMS, String(port));
    try {
      fs.writeFileSync(claim, String(process.pid), { flag: 'wx' });
    } catch {
      // a claim older than two hours is a leftover of an earlier run (a run takes well under one)
      try { if (Date.now() - fs.statSync(claim).mtimeMs < 7_200_000) continue; } catch { continue; }
      fs.writeFileSync(claim, String(process.pid));
    }
    if (await bindable(port)) return port;
  }
}

/** Options for a test server. */
export interface ServerOptions {
  /** Extra FORGE__SECTION__KEY variables. */
  env?: Record<string, string>;
  workers?: number;
  /** Cluster mode on PostgreSQL with this Redis, whatever the pass (FORGE_TEST_DB) asks for. */
  clusterRedis?: string;
  /** PostgreSQL (true) or SQLite (false), whatever the pass asks for. */
  postgres?: boolean;
  /** Options for node itself (`--cpu-prof` for a benchmark's profile); the workers inherit them. */
  nodeArgs?: string[];
  /** Start from a copy of this template's database instead of an empty one. */
  from?: ServerTemplate;
  /** The host name of ROOT_URL (default 127.0.0.1); a browser's WebAuthn needs a domain such as `localhost`. */
  rootHost?: string;
  /** Run the forge built in this other checkout (its `dist/src/main.js`): a benchmark's "before" figure. */
  checkout?: string;
}

/** A stopped forge's data dir (with its SQLite database) and PostgreSQL database, to copy. */
export interface ServerTemplate { dataDir: string; pgName: string | null }

/** Whether a server made with `opts` runs on PostgreSQL. */
export function usesPostgres(opts: ServerOptions): boolean {
  return opts.postgres ?? (process.env.FORGE_TEST_DB === 'postgres' || !!opts.clusterRedis);
}

/** The servers running in this process now (a failed test's message gets their latest output). */
export const runningServers = new Set<TestServer>();

/** A running forge for tests. */
export class TestServer {
  proc: ChildProcess | null = null;
  output = '';
  /** The `all` token of the site administrator, once startWorld made it (fixtures use the API with it). */
  adminToken: string | null = null;
  constructor(
    public readonly dataDir: string,
    public readonly httpPort: number,
    public readonly sshPort: number,
    public readonly env: Record<string, string>,
    public readonly workers: number,
    public readonly nodeArgs: string[] = [],
    /** The `forge` program this server runs. */
    public readonly main: string = MAIN,
  ) {}

  /** The server's address for the tests' own requests, with a trailing slash. */
  get url(): string { return `http://127.0.0.1:${this.httpPort}/`; }
  /** ROOT_URL, with a trailing slash (what a browser opens). */
  get rootUrl(): string { return this.env.FORGE__SERVER__ROOT_URL; }
  /** The API base, without a trailing slash. */
  get api(): string { return `${this.url}api/v1`; }

  /** Run a `forge` CLI command against this server's config. */
  async cli(args: string[]): Promise<{ stdout: string; stderr: string; code: number }> {
    try {
      const { stdout, stderr } = await execFileP(process.execPath, [this.main, ...args], { env: { ...process.env, ...this.env }, timeout: 60_000 });
      return { stdout, stderr, code: 0 };
    } catch (err) {
      const e = err as { stdout: string; stderr: string; code: number };
      return { stdout: e.stdout ?? '', stderr: e.stderr ?? '', code: typeof e.code === 'number' ? e.code : 1 };
    }
  }

  /** Start `forge web` and wait until it answers. */
  async start(): Promise<void> {
    this.proc = spawn(process.execPath, [...this.nodeArgs, this.main, 'web', '--workers', String(this.workers)], { env: { ...process.env, ...this.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    const proc = this.proc;
    runningServers.add(this);
    proc.once('exit', () => { if (this.proc === proc) runningServers.delete(this); });
    // why: a restarted server's output still holds the first start's "listening" line.
    const from = this.output.length;
    // why: the data dir outlives the test run, so server.log is there for a post-mortem of a failure.
    const log = fs.createWriteStream(path.join(this.dataDir, 'server.log'), { flags: 'a' });
    const keep = (d: Buffer) => { this.output += d.toString(); log.write(d); };
    this.proc.stdout!.on('data', keep);
    this.proc.stderr!.on('data', keep);
    this.proc.once('exit', () => log.end());
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (this.proc.exitCode !== null) throw new Error(`forge exited with ${this.proc.exitCode}:\n${this.output}`);
      try {
        const res = await fetch(`${this.api}/version`);
        if (res.ok) {
          // every worker must be up: wait for the primary's "listening" line
          if (this.output.includes('forge is listening', from)) return;
        }
      } catch { /* not yet */ }
      if (Date.now() > deadline) throw new Error(`forge did not start:\n${this.output}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** SIGTERM the server and wait for it to exit; returns the exit code. */
  async stop(): Promise<number | null> {
    const p = this.proc;
    if (!p || p.exitCode !== null) return p?.exitCode ?? null;
    const done = new Promise<number | null>((resolve) => p.once('exit', (code) => resolve(code)));
    p.kill('SIGTERM');
    return done;
  }

  /** SIGKILL the primary and its worker processes at once (a crash, not a stop); git children are left alone. */
  async kill9(): Promise<void> {
    const p = this.proc;
    if (!p || p.exitCode !== null || !p.pid) return;
    const children = (() => {
      try { return fs.readFileSync(`/proc/${p.pid}/task/${p.pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number); } catch { return []; }
    })();
    const done = new Promise<void>((resolve) => p.once('exit', () => resolve()));
    for (const pid of [p.pid, ...children]) { try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ } }
    await done;
    // why: the next start must not find the killed workers still holding the ports.
    for (const pid of children) {
      for (let i = 0; i < 100; i++) {
        try { process.kill(pid, 0); } catch { break; }
        await new Promise((r) => setTimeout(r, 20));
      }
    }
  }

  /** Stop the server and drop its PostgreSQL database, if it has one. */
  async destroy(): Promise<void> {
    await this.stop();
    if (this.env.FORGE__DATABASE__DB_TYPE !== 'postgres') return;
    await pgAdmin(`DROP DATABASE IF EXISTS ${this.env.FORGE__DATABASE__NAME} WITH (FORCE)`);
  }
}

/** Run one statement on the test PostgreSQL as its administrator (database `postgres`); answers its rows. */
export async function pgAdmin(statement: string): Promise<Record<string, unknown>[]> {
  const admin = new Client({ host: '127.0.0.1', port: PG_PORT, user: 'forge', password: 'forge', database: 'postgres' });
  await admin.connect();
  try {
    return (await admin.query(statement)).rows as Record<string, unknown>[];
  } finally {
    await admin.end();
  }
}

/** Make a fresh server (not started): own data dir and ports, and a fresh database. */
export async function newServer(opts: ServerOptions = {}): Promise<TestServer> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'forge-test-'));
  const httpPort = await freePort();
  const sshPort = await freePort();
  const env: Record<string, string> = {
    FORGE_CONFIG: '',
    FORGE__SERVER__HTTP_ADDR: '127.0.0.1',
    FORGE__SERVER__HTTP_PORT: String(httpPort),
    FORGE__SERVER__SSH_PORT: String(sshPort),
    FORGE__SERVER__ROOT_URL: `http://${opts.rootHost ?? '127.0.0.1'}:${httpPort}/`,
    FORGE__SERVER__APP_DATA_PATH: dataDir,
    FORGE__LOG__LEVEL: 'warn',
  };
  // why: only the database (with its write-ahead log, which may still hold the CLI's rows); each server
  // makes its own secrets, from which its keys in the shared Redis are named.
  for (const f of opts.from ? ['forge.db', 'forge.db-wal', 'forge.db-shm'] : []) {
    if (fs.existsSync(path.join(opts.from!.dataDir, f))) fs.copyFileSync(path.join(opts.from!.dataDir, f), path.join(dataDir, f));
  }
  if (usesPostgres(opts)) {
    const name = `forge_test_${path.basename(dataDir).replace(/[^a-z0-9]/gi, '').toLowerCase()}`;
    await pgAdmin(`CREATE DATABASE ${name}${opts.from?.pgName ? ` TEMPLATE ${opts.from.pgName}` : ''}`);
    Object.assign(env, {
      FORGE__DATABASE__DB_TYPE: 'postgres', FORGE__DATABASE__HOST: `127.0.0.1:${PG_PORT}`, FORGE__DATABASE__NAME: name,
      FORGE__DATABASE__USER: 'forge', FORGE__DATABASE__PASSWD: 'forge',
    });
  }
  const redisUrl = opts.clusterRedis ?? process.env.FORGE_TEST_REDIS;
  if (redisUrl) Object.assign(env, { FORGE__REDIS__CONN_STR: redisUrl, FORGE_MODE: 'cluster' });
  Object.assign(env, opts.env ?? {});
  const workers = opts.workers ?? Number(process.env.FORGE_TEST_WORKERS ?? '1');
  const main = opts.checkout ? path.join(path.resolve(opts.checkout), 'dist', 'src', 'main.js') : MAIN;
  return new TestServer(dataDir, httpPort, sshPort, env, workers, opts.nodeArgs, main);
}
