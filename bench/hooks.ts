/**
 * bench/hooks: webhook delivery at volume and through faults, on the embedded default (SQLite,
 * BENCH_WORKERS workers). Three gitea hooks on alice/proj (push, create and issues events) point at
 * a receiver in this process that counts deliveries by X-Gitea-Delivery (a second arrival of one id
 * is a duplicate). Events come from issues created by BENCH_CONCURRENCY API clients (8) and, at the
 * same time, from git pushes over HTTP by BENCH_PUSHERS clients (1, each from its own clone, one push
 * after another), each push making BENCH_BRANCHES new branches (a create and a push event each);
 * BENCH_ISSUE_SHARE of the events are issues.
 * - steady: BENCH_EVENTS events, each delivered to the three hooks: deliveries per second (first
 *   event to last delivery) and event-to-delivery p50/p99 (from the answer of the request or push
 *   that caused the event to its arrival at the receiver);
 * - receiver down: the receiver stopped, BENCH_OUTAGE_EVENTS events, the receiver started again
 *   BENCH_OUTAGE_SECONDS after it stopped; every delivery must arrive (lost = expected minus
 *   distinct arrivals); the drain rate once the first retry got through;
 * - kill -9: a slow receiver (BENCH_SLOW_MS per answer, 20) so deliveries queue up, BENCH_KILL_EVENTS
 *   events made, the node (primary and workers) killed with SIGKILL once a third of their
 *   deliveries arrived, started again; lost and duplicate deliveries once every task is finished.
 * Retries start after `[webhook] RETRY_FIRST_DELAY` = BENCH_RETRY_FIRST seconds (default 5; the
 * forge's default is 10).
 */
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { newServer, type TestServer } from '../test/helpers/server';
import { count } from '../test/helpers/db';
import { percentile as pct } from './util';

const execFileP = promisify(execFile);
const EVENTS = Number(process.env.BENCH_EVENTS ?? '10000');
const OUTAGE_EVENTS = Number(process.env.BENCH_OUTAGE_EVENTS ?? '3000');
const KILL_EVENTS = Number(process.env.BENCH_KILL_EVENTS ?? '3000');
const ISSUE_SHARE = Number(process.env.BENCH_ISSUE_SHARE ?? '0.2');
const BRANCHES = Number(process.env.BENCH_BRANCHES ?? '50');
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? '8');
const PUSHERS = Number(process.env.BENCH_PUSHERS ?? '1');
const OUTAGE_SECONDS = Number(process.env.BENCH_OUTAGE_SECONDS ?? '60');
const SLOW_MS = Number(process.env.BENCH_SLOW_MS ?? '20');
const WORKERS = Number(process.env.BENCH_WORKERS ?? '1');
const RETRY_FIRST = process.env.BENCH_RETRY_FIRST ?? '5';
const HOOKS = 3;

/** The receiver: distinct deliveries by event key (`issue:<n>`, `create:<ref>`, `push:<ref>`), with their arrival times. */
class Receiver {
  readonly seen = new Set<string>();
  duplicates = 0;
  readonly byEvent = new Map<string, number[]>();
  /** Hook path -> event key -> arrival time. */
  readonly byHook = new Map<string, Map<string, number>>();
  slowMs = 0;
  port = 0;
  private server: http.Server | null = null;
  private sockets = new Set<net.Socket>();

  async start(): Promise<void> {
    this.server = http.createServer((req, res) => {
      const parts: Buffer[] = [];
      req.on('data', (d: Buffer) => parts.push(d));
      req.on('end', () => {
        const at = Date.now();
        const id = String(req.headers['x-gitea-delivery']);
        if (this.seen.has(id)) this.duplicates++;
        else {
          this.seen.add(id);
          const p = JSON.parse(Buffer.concat(parts).toString()) as { issue?: { number: number }; ref?: string };
          const key = p.issue ? `issue:${p.issue.number}` : `${String(req.headers['x-gitea-event'])}:${p.ref}`;
          const list = this.byEvent.get(key) ?? [];
          list.push(at);
          this.byEvent.set(key, list);
          const hook = this.byHook.get(req.url ?? '') ?? new Map<string, number>();
          hook.set(key, at);
          this.byHook.set(req.url ?? '', hook);
        }
        const answer = () => res.writeHead(200).end('ok');
        if (this.slowMs) setTimeout(answer, this.slowMs);
        else answer();
      });
    });
    this.server.on('connection', (sock) => {
      this.sockets.add(sock);
      sock.once('close', () => this.sockets.delete(sock));
    });
    await new Promise<void>((resolve) => this.server!.listen(this.port, '127.0.0.1', resolve));
    this.port = (this.server.address() as net.AddressInfo).port;
  }

  async stop(): Promise<void> {
    const s = this.server;
    if (!s) return;
    for (const sock of this.sockets) sock.destroy();
    await new Promise((resolve) => s.close(resolve));
    this.server = null;
  }

  /** Each hook's rate of delivering these events (first to last arrival at it), summed over the hooks. */
  hookRates(keys: string[]): number {
    let sum = 0;
    for (const [, times] of this.byHook) {
      const mine = keys.flatMap((k) => times.get(k) ?? []);
      if (mine.length > 1) sum += mine.length / ((Math.max(...mine) - Math.min(...mine)) / 1000);
    }
    return sum;
  }

  /** Distinct arrivals of these events. */
  arrivals(keys: Iterable<string>): number[] {
    return [...keys].flatMap((k) => this.byEvent.get(k) ?? []);
  }
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

/** POST JSON; resolves with the status, the parsed body and when the answer came. */
function post(server: TestServer, token: string, p: string, body: unknown): Promise<{ status: number; json: Record<string, unknown>; at: number }> {
  const data = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(`${server.api}${p}`, { method: 'POST', agent, headers: { Authorization: `token ${token}`, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(data) } }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (d: Buffer) => parts.push(d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(parts).toString() || 'null') as Record<string, unknown>, at: Date.now() }));
    });
    req.once('error', reject);
    req.end(data);
  });
}


/** The event sources: the API for issues, a working clone for pushes. */
class Events {
  private pushes = 0;
  /** How long each push and each issue creation took (ms), for the table. */
  readonly pushMs: number[] = [];
  readonly issueMs: number[] = [];
  /** `works`: one working clone per pusher. */
  constructor(private readonly server: TestServer, private readonly token: string, private readonly works: string[], private readonly env: NodeJS.ProcessEnv) {}

  private git(work: string, args: string[]): Promise<{ stdout: string }> {
    return execFileP('git', ['-C', work, ...args], { env: this.env, maxBuffer: 64 << 20 });
  }

  /** One push from `work` of BRANCHES new branches at a new commit; their events' keys with the push's end time. */
  private async push(work: string, at: Map<string, number>): Promise<number> {
    const n = ++this.pushes;
    fs.writeFileSync(path.join(work, 'f.txt'), `push ${n}\n`);
    await this.git(work, ['commit', '-q', '-a', '-m', `push ${n}`]);
    const names = Array.from({ length: BRANCHES }, (_, i) => `p${n}-${i}`);
    const started = Date.now();
    await this.git(work, ['push', '-q', 'origin', ...names.map((b) => `HEAD:refs/heads/${b}`)]);
    const t = Date.now();
    this.pushMs.push(t - started);
    for (const b of names) {
      at.set(`create:${b}`, t);
      at.set(`push:refs/heads/${b}`, t);
    }
    return names.length * 2;
  }

  /** Make about `total` events (issues and pushes at once); returns how many were made, each key with its time in `at`. */
  async make(total: number, at: Map<string, number>): Promise<number> {
    const issues = Math.round(total * ISSUE_SHARE);
    let next = 0;
    let made = 0;
    const client = async () => {
      while (next < issues) {
        next++;
        const started = Date.now();
        const r = await post(this.server, this.token, '/repos/alice/proj/issues', { title: `event ${next}` }).catch(() => null);
        if (r?.status === 201) {
          this.issueMs.push(r.at - started);
          at.set(`issue:${r.json.number as number}`, r.at);
          made++;
        }
      }
    };
    let left = total - issues;
    const pusher = async (work: string) => {
      while (left > 0) {
        left -= BRANCHES * 2;
        const n = await this.push(work, at);
        made += n;
      }
    };
    await Promise.all([...Array.from({ length: CONCURRENCY }, client), ...this.works.map(pusher)]);
    return made;
  }
}

/** Wait until no push is left to process and no delivery is pending; false on timeout. */
async function drained(server: TestServer, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const jobs = await count(server, "SELECT COUNT(*) AS n FROM outbox WHERE status IN ('pending', 'leased')");
    if (jobs === 0 && (await count(server, "SELECT COUNT(*) AS n FROM hook_task WHERE status = 'pending'")) === 0) return true;
    await new Promise((r) => setTimeout(r, 200));
  }
  return false;
}

export async function run(): Promise<void> {
  const rx = new Receiver();
  await rx.start();
  const server = await newServer({
    workers: WORKERS,
    env: { FORGE__LOG__LEVEL: 'error', FORGE__WEBHOOK__ALLOWED_HOST_LIST: 'loopback', FORGE__WEBHOOK__RETRY_FIRST_DELAY: RETRY_FIRST },
  });
  const made = await server.cli(['admin', 'user', 'create', '--username', 'alice', '--password', 'alice-password', '--email', 'alice@example.com',
    '--must-change-password=false', '--access-token', '--access-token-scopes', 'all']);
  if (made.code !== 0) throw new Error(made.stderr);
  const token = made.stdout.trim().split('\n').pop()!;
  await server.start();
  const repo = await post(server, token, '/user/repos', { name: 'proj', auto_init: true });
  if (repo.status !== 201) throw new Error(`repository: ${repo.status}`);
  for (let h = 0; h < HOOKS; h++) {
    const r = await post(server, token, '/repos/alice/proj/hooks', {
      type: 'gitea', config: { url: `http://127.0.0.1:${rx.port}/hook${h}`, content_type: 'json', secret: `secret ${h}` }, events: ['push', 'create', 'issues'], active: true,
    });
    if (r.status !== 201) throw new Error(`hook: ${r.status} ${JSON.stringify(r.json)}`);
  }
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-hooks-'));
  const env = { ...process.env, HOME: home, GIT_TERMINAL_PROMPT: '0', GIT_AUTHOR_NAME: 'alice', GIT_AUTHOR_EMAIL: 'alice@example.com', GIT_COMMITTER_NAME: 'alice', GIT_COMMITTER_EMAIL: 'alice@example.com' };
  const works = Array.from({ length: PUSHERS }, (_, i) => path.join(home, `w${i}`));
  for (const work of works) {
    await execFileP('git', ['clone', '-q', `http://alice:${token}@127.0.0.1:${server.httpPort}/alice/proj.git`, work], { env });
    fs.writeFileSync(path.join(work, 'f.txt'), 'start\n');
    await execFileP('git', ['-C', work, 'add', 'f.txt'], { env });
  }
  const events = new Events(server, token, works, env);
  const rows: string[][] = [];
  const drainNote = (ok: boolean) => (ok ? '' : ' (NOT drained)');

  // Steady.
  const steadyAt = new Map<string, number>();
  const t0 = Date.now();
  const steady = await events.make(EVENTS, steadyAt);
  const createdIn = (Date.now() - t0) / 1000;
  const okSteady = await drained(server, 600_000);
  const arrivals = rx.arrivals(steadyAt.keys());
  const latencies = [...steadyAt].flatMap(([k, at]) => (rx.byEvent.get(k) ?? []).map((t) => Math.max(0, t - at)));
  rows.push(['steady: events made / per second', `${steady} / ${(steady / createdIn).toFixed(0)}`, '']);
  rows.push([`steady: git push of ${BRANCHES} branches p50 / p99 (ms)`, `${pct(events.pushMs, 50).toFixed(0)} / ${pct(events.pushMs, 99).toFixed(0)}`, '']);
  rows.push([`steady: issue creation p50 / p99 (ms), ${CONCURRENCY} clients`, `${pct(events.issueMs, 50).toFixed(0)} / ${pct(events.issueMs, 99).toFixed(0)}`, '']);
  rows.push(['steady: deliveries/s', (arrivals.length / ((Math.max(...arrivals) - t0) / 1000)).toFixed(0), '>= 1000']);
  rows.push(['steady: event-to-delivery p50 (ms)', pct(latencies, 50).toFixed(0), '']);
  rows.push(['steady: event-to-delivery p99 (ms)', pct(latencies, 99).toFixed(0), '< 2000']);
  rows.push([`steady: deliveries / lost${drainNote(okSteady)}`, `${arrivals.length} / ${steady * HOOKS - arrivals.length}`, 'lost 0']);

  // Receiver down.
  await rx.stop();
  const down = Date.now();
  const outageAt = new Map<string, number>();
  const outage = await events.make(OUTAGE_EVENTS, outageAt);
  await new Promise((r) => setTimeout(r, Math.max(0, down + OUTAGE_SECONDS * 1000 - Date.now())));
  const back = Date.now();
  await rx.start();
  const okOutage = await drained(server, 900_000);
  const outageArrivals = rx.arrivals(outageAt.keys());
  const first = Math.min(...outageArrivals);
  const last = Math.max(...outageArrivals);
  // why: each hook drains on its own once its waiting retry got through; their rates add up while they overlap.
  const drainRate = rx.hookRates([...outageAt.keys()]);
  rows.push([`receiver down ${OUTAGE_SECONDS} s: events / lost${drainNote(okOutage)}`, `${outage} / ${outage * HOOKS - outageArrivals.length}`, 'lost 0']);
  rows.push(['receiver down: back to first / last delivery (s)', `${((first - back) / 1000).toFixed(1)} / ${((last - back) / 1000).toFixed(1)}`, '']);
  rows.push(['receiver down: backlog drain deliveries/s (hooks summed)', drainRate.toFixed(0), '']);

  // kill -9 mid-stream: the events made first, so deliveries queue behind the slow receiver; the node dies a third of the way through them.
  rx.slowMs = SLOW_MS;
  const killAt = new Map<string, number>();
  const before = rx.seen.size;
  const kill = await events.make(KILL_EVENTS, killAt);
  while (rx.seen.size - before < (kill * HOOKS) / 3) await new Promise((r) => setTimeout(r, 10));
  const atKill = rx.seen.size - before;
  const dupBefore = rx.duplicates;
  await server.kill9();
  const killed = Date.now();
  await server.start();
  const okKill = await drained(server, 900_000);
  const killArrivals = rx.arrivals(killAt.keys());
  rows.push([`kill -9 mid-stream: events / delivered before the kill / lost${drainNote(okKill)}`, `${kill} / ${atKill} / ${kill * HOOKS - killArrivals.length}`, 'lost 0']);
  rows.push(['kill -9: duplicates (same X-Gitea-Delivery)', String(rx.duplicates - dupBefore), 'counted']);
  rows.push(['kill -9: kill to last delivery (s)', ((Math.max(...killArrivals) - killed) / 1000).toFixed(1), '']);

  await server.destroy();
  await rx.stop();
  fs.rmSync(home, { recursive: true, force: true });
  const w0 = Math.max(...rows.map((r) => r[0].length));
  const w1 = Math.max(...rows.map((r) => r[1].length));
  console.log(`\nwebhooks: ${HOOKS} hooks, ${WORKERS} workers, SQLite, ${PUSHERS} pushers of ${BRANCHES} branches a push, ${CONCURRENCY} API clients, ${ISSUE_SHARE * 100}% issues, retries from ${RETRY_FIRST} s (${os.cpus().length} cores)`);
  console.log(`${'scenario'.padEnd(w0)}  ${'figure'.padStart(w1)}  target`);
  for (const [a, b, c] of rows) console.log(`${a.padEnd(w0)}  ${b.padStart(w1)}  ${c}`);
}
