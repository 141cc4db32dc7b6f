/**
 * bench/actions: runners at scale, on BENCH_WORKERS worker processes (1), on PostgreSQL (whose
 * statistics count the rows written; `BENCH_DB=sqlite3` runs on the embedded default without that row).
 * - idle: BENCH_RUNNERS runners (1,000) in two load processes (bench/actions-load.ts) poll as
 *   act_runner does for BENCH_IDLE_SECONDS (300), with no job: rows written per runner per minute,
 *   the forge's CPU (its processes' user+system time over the wall time, in % of one core), its
 *   resident memory at the end, and the p99 of `GET /api/v1/version` asked 50 times a second by a
 *   prober process;
 * - dispatch: BENCH_JOBS single-step jobs (2,000), ten per workflow dispatch (each on a branch of its own), queued at
 *   BENCH_JOB_RATE jobs/s (200) while the other runners go on polling, run by BENCH_BUSY_RUNNERS
 *   (200) of them: jobs started per second (first start to last start) and queue-to-start
 *   p50/p99 (from the dispatch's answer to the task's arrival at its runner), and `/version` p99.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import { newServer, type TestServer } from '../test/helpers/server';
import { sql } from '../test/helpers/db';
import { percentile as pct } from './util';

const execFileP = promisify(execFile);
const RUNNERS = Number(process.env.BENCH_RUNNERS ?? '1000');
const BUSY = Number(process.env.BENCH_BUSY_RUNNERS ?? '200');
const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? '300');
const JOBS = Number(process.env.BENCH_JOBS ?? '2000');
const JOB_RATE = Number(process.env.BENCH_JOB_RATE ?? '200');
const DB = process.env.BENCH_DB ?? 'postgres';
const WORKERS = Number(process.env.BENCH_WORKERS ?? '1');
const PER_DISPATCH = 10;

/** User+system CPU seconds and resident MB of a process and its children. */
async function usage(pid: number): Promise<{ cpu: number; rssMb: number }> {
  const { stdout } = await execFileP('ps', ['-e', '-o', 'pid=,ppid=,rss=']);
  const rows = stdout.trim().split('\n').map((l) => l.trim().split(/\s+/).map(Number));
  const pids = new Set([pid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const [p, pp] of rows) if (pids.has(pp) && !pids.has(p)) { pids.add(p); grew = true; }
  }
  let cpu = 0;
  let rss = 0;
  const tick = Number((await execFileP('getconf', ['CLK_TCK'])).stdout.trim());
  for (const p of pids) {
    try {
      const f = fs.readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1].split(' ');
      cpu += (Number(f[11]) + Number(f[12])) / tick;
    } catch { /* gone */ }
  }
  for (const [p, , r] of rows) if (pids.has(p)) rss += r;
  return { cpu, rssMb: rss / 1024 };
}

/** Rows written in the server's PostgreSQL database so far (null on SQLite). */
async function rowsWritten(server: TestServer): Promise<number | null> {
  if (DB !== 'postgres') return null;
  const [r] = await sql(server, 'SELECT tup_inserted + tup_updated + tup_deleted AS n FROM pg_stat_database WHERE datname = current_database()');
  return Number(r.n);
}

/** Start a load process of `n` runners with `label`; resolves once they are registered. */
function load(server: TestServer, token: string, n: number, label: string, out: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [path.join(__dirname, 'actions-load.js'), server.url, token, String(n), label, out], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => { if (d.toString().includes('ready')) resolve(child); });
    child.once('exit', (code) => reject(new Error(`load process ended with ${code}`)));
  });
}

/** Run the prober (bench/probe.ts) against /version for `seconds`; resolves with its latencies. */
function probe(server: TestServer, seconds: number): Promise<number[]> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [path.join(__dirname, 'probe.js'), `${server.api}/version`, String(seconds)], { maxBuffer: 64 << 20 }, (err, stdout) => {
      if (err) reject(err);
      else resolve(JSON.parse(stdout) as number[]);
    });
  });
}

async function api(server: TestServer, token: string, method: string, p: string, body?: unknown): Promise<{ status: number; json: unknown }> {
  const res = await fetch(`${server.api}${p}`, { method, headers: { Authorization: `token ${token}`, 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : null };
}

export async function run(): Promise<void> {
  if (DB === 'postgres') process.env.FORGE_TEST_DB = 'postgres';
  // why: BENCH_CPU_PROF=<dir> writes the forge's CPU profiles (primary and worker) there when it stops.
  const prof = process.env.BENCH_CPU_PROF;
  const server = await newServer({ workers: WORKERS, env: { FORGE__LOG__LEVEL: 'error' }, nodeArgs: prof ? ['--cpu-prof', `--cpu-prof-dir=${prof}`] : [] });
  const made = await server.cli(['admin', 'user', 'create', '--username', 'root', '--password', 'root-password-1', '--email', 'root@example.com', '--admin',
    '--must-change-password=false', '--access-token', '--access-token-scopes', 'all']);
  if (made.code !== 0) throw new Error(made.stderr);
  const token = made.stdout.trim().split('\n').pop()!;
  await server.start();
  const reg = await api(server, token, 'POST', '/admin/actions/runners/registration-token');
  const regToken = (reg.json as { token: string }).token;

  // A repository whose one workflow runs ten single-step jobs per dispatch.
  if ((await api(server, token, 'POST', '/user/repos', { name: 'ci', auto_init: true })).status !== 201) throw new Error('repository');
  const workflow = `on:\n  workflow_dispatch:\n    inputs:\n      seq:\n        default: "0"\njobs:\n  one:\n    runs-on: bench\n    strategy:\n      matrix:\n        n: [${Array.from({ length: PER_DISPATCH }, (_, i) => i).join(', ')}]\n    steps:\n      - run: echo \${{ matrix.n }}\n`;
  const file = await api(server, token, 'POST', '/repos/root/ci/contents/.gitea/workflows/bench.yml', { content: Buffer.from(workflow).toString('base64'), message: 'bench workflow' });
  if (file.status !== 201) throw new Error(`workflow file: ${file.status}`);

  // why: a dispatch cancels the unfinished runs of its workflow on the same ref (Gitea's rule), so each goes to a branch of its own.
  const dispatches = JOBS / PER_DISPATCH;
  for (let k = 0; k < dispatches; k++) {
    const b = await api(server, token, 'POST', '/repos/root/ci/branches', { new_branch_name: `b${k}`, old_ref_name: 'main' });
    if (b.status !== 201) throw new Error(`branch b${k}: ${b.status} ${JSON.stringify(b.json)}`);
  }
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-actions-'));
  const idleOut = path.join(tmp, 'idle.json');
  const busyOut = path.join(tmp, 'busy.json');
  const t0 = Date.now();
  const [idleLoad, busyLoad] = await Promise.all([load(server, regToken, RUNNERS - BUSY, 'other', idleOut), load(server, regToken, BUSY, 'bench', busyOut)]);
  process.stderr.write(`${RUNNERS} runners registered in ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
  // why: the first polls carry version 0 and are answered at once; after a few seconds every runner long-polls.
  await new Promise((r) => setTimeout(r, 15_000));

  // Idle.
  process.stderr.write(`idle for ${IDLE_SECONDS} s\n`);
  const w0 = await rowsWritten(server);
  const u0 = await usage(server.proc!.pid!);
  const i0 = Date.now();
  const idleProbe = await probe(server, IDLE_SECONDS);
  const idleSecs = (Date.now() - i0) / 1000;
  const u1 = await usage(server.proc!.pid!);
  const w1 = await rowsWritten(server);
  const idleRows: [string, string, string][] = [
    [`idle: runners / seconds`, `${RUNNERS} / ${idleSecs.toFixed(0)}`, ''],
    ['idle: rows written per runner per minute', w0 === null ? 'n/a (SQLite)' : ((w1! - w0) / RUNNERS / (idleSecs / 60)).toFixed(3), '< 1'],
    ['idle: forge CPU (% of one core)', (((u1.cpu - u0.cpu) / idleSecs) * 100).toFixed(1), '< 25'],
    ['idle: forge RSS at the end (MB)', u1.rssMb.toFixed(0), ''],
    ['idle: GET /api/v1/version p50 / p99 (ms)', `${pct(idleProbe, 50).toFixed(1)} / ${pct(idleProbe, 99).toFixed(1)}`, 'p99 < 50'],
  ];
  process.stderr.write(`${idleRows.map((r) => r.join('  ')).join('\n')}\n`);

  // Dispatch.
  const queued = new Map<number, number>();
  const busyProbe = probe(server, Math.ceil(JOBS / JOB_RATE) + 10);
  const d0 = Date.now();
  const gap = (1000 * PER_DISPATCH) / JOB_RATE;
  const sent: Promise<void>[] = [];
  for (let k = 0; k < dispatches; k++) {
    const due = d0 + k * gap;
    if (due > Date.now()) await new Promise((r) => setTimeout(r, due - Date.now()));
    sent.push(api(server, token, 'POST', '/repos/root/ci/actions/workflows/bench.yml/dispatches', { ref: `b${k}`, inputs: { seq: String(k) } }).then((r) => {
      if (r.status !== 204) throw new Error(`dispatch ${k}: ${r.status} ${JSON.stringify(r.json)}`);
      queued.set(k, Date.now());
    }));
  }
  await Promise.all(sent);
  process.stderr.write(`${dispatches} dispatches made in ${((Date.now() - d0) / 1000).toFixed(1)} s\n`);
  const deadline = Date.now() + Number(process.env.BENCH_FINISH_SECONDS ?? '300') * 1000;
  for (;;) {
    const [row] = await sql(server, 'SELECT COUNT(*) AS n FROM action_run_job WHERE status IN (1, 2, 3, 4)');
    if (Number(row.n) >= JOBS) break;
    if (Date.now() > deadline) {
      const by = await sql(server, 'SELECT status, COUNT(*) AS n FROM action_run_job GROUP BY status');
      throw new Error(`only ${row.n} of ${JOBS} jobs finished (${JSON.stringify(by)}); the server's log: ${server.dataDir}`);
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  const busyLatencies = await busyProbe;
  const [failed] = await sql(server, 'SELECT COUNT(*) AS n FROM action_run_job WHERE status <> 1');
  idleLoad.kill('SIGTERM');
  busyLoad.kill('SIGTERM');
  await Promise.all([idleLoad, busyLoad].map((c) => new Promise((r) => c.once('exit', r))));
  const busy = JSON.parse(fs.readFileSync(busyOut, 'utf8')) as { arrivals: { at: number; seq: number }[]; errors: number };
  const idle = JSON.parse(fs.readFileSync(idleOut, 'utf8')) as { errors: number };
  const waits = busy.arrivals.filter((a) => queued.has(a.seq)).map((a) => a.at - queued.get(a.seq)!);
  const starts = busy.arrivals.map((a) => a.at);
  const [firstStart, lastStart] = [Math.min(...starts), Math.max(...starts)];
  await server.destroy();

  const rows: [string, string, string][] = [
    ...idleRows,
    [`dispatch: jobs started / runners`, `${busy.arrivals.length} / ${BUSY}`, ''],
    // why: from the first start to the last; measured from the first dispatch, the pace of the
    // dispatches (JOB_RATE) bounds the figure and the last job's wait lowers it.
    ['dispatch: jobs started per second', ((busy.arrivals.length - 1) / ((lastStart - firstStart) / 1000)).toFixed(0), '>= 200'],
    ['dispatch: queue-to-start p50 / p99 (ms)', `${pct(waits, 50).toFixed(0)} / ${pct(waits, 99).toFixed(0)}`, 'p99 < 1000'],
    ['dispatch: GET /api/v1/version p50 / p99 (ms)', `${pct(busyLatencies, 50).toFixed(1)} / ${pct(busyLatencies, 99).toFixed(1)}`, 'p99 < 50'],
    ['dispatch: jobs not ending in success', String(failed.n), '0'],
    ['runner call errors (idle / busy processes)', `${idle.errors} / ${busy.errors}`, ''],
  ];
  const width = Math.max(...rows.map((r) => r[0].length));
  process.stdout.write(`\nbench actions (${DB}, ${WORKERS} worker${WORKERS > 1 ? 's' : ''}; jobs queued at ${JOB_RATE}/s)\n`);
  for (const [what, value, target] of rows) process.stdout.write(`${what.padEnd(width)}  ${value.padStart(14)}  ${target}\n`);
}
