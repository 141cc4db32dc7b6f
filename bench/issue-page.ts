/**
 * bench/issues' row for issue 35: the page of an issue with 250 comments of 16 KiB of task-list
 * lines each (every comment different, so nothing is rendered once for all), on a fresh server (one
 * worker, SQLite), read anonymously. Measured: the first (cold) page and the warm page times, and
 * the latency of /api/v1/version while the page is
 * requested (bench/probe.ts in its own process), once during the first page and then while the page
 * is requested in a loop; the worker process's resident memory before and at its peak.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { newServer } from '../test/helpers/server';
import { percentile } from './util';

const COMMENTS = Number(process.env.BENCH_PAGE_COMMENTS ?? '250');
const COMMENT_BYTES = 16 * 1024;
const LOOP_SECONDS = Number(process.env.BENCH_PAGE_SECONDS ?? '15');
const IDLE_SECONDS = 5;
/** The target of issue 35. */
export const VERSION_P99_MS = 50;

/** What the row prints. */
export interface IssuePageResult {
  comments: number; pageMb: number; firstMs: number; warm: { n: number; p50: number; p99: number };
  versionIdle: Probe; versionFirst: Probe; versionLoop: Probe; rssBeforeMb: number; rssFirstMb: number; rssPeakMb: number;
}

/** Latencies of /version one request at a time, 20 ms apart, in ms. */
interface Probe { n: number; p50: number; p99: number; max: number }

/** A comment: its number, then task-list lines up to COMMENT_BYTES. */
function comment(k: number): string {
  const head = `Comment ${k}: the list of things to check.\n\n`;
  return head + '- [ ] a\n'.repeat(Math.floor((COMMENT_BYTES - head.length) / 8));
}

/** The house prober (bench/probe.ts) in its own process, from when it is connected until stopped. */
async function startProbe(url: string): Promise<{ stop: () => Promise<Probe> }> {
  const child = spawn(process.execPath, [path.join(__dirname, 'probe.js'), url, '3600'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
  await new Promise<void>((resolve, reject) => {
    child.stderr.on('data', (d: Buffer) => { if (d.toString().includes('ready')) resolve(); });
    child.once('exit', (code) => reject(new Error(`the prober exited with ${code}`)));
  });
  return {
    stop: async () => {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      await exited;
      const xs = JSON.parse(out) as number[];
      const r = (x: number) => Math.round(x * 10) / 10;
      return { n: xs.length, p50: r(percentile(xs, 50)), p99: r(percentile(xs, 99)), max: r(Math.max(...xs)) };
    },
  };
}

/** Resident memory of a process in MB (0 once it is gone). */
function rssMb(pid: number): number {
  try { return Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024; } catch { return 0; }
}

/** One anonymous GET of the page: its time in ms, its size, and its body when asked for. */
function getPage(url: string, agent: http.Agent, keep: boolean): Promise<{ ms: number; bytes: number; body: string }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    http.get(url, { agent }, (res) => {
      const chunks: Buffer[] = [];
      let bytes = 0;
      res.on('data', (d: Buffer) => {
        bytes += d.length;
        if (keep) chunks.push(d);
      });
      res.once('end', () => (res.statusCode === 200 ? resolve({ ms: performance.now() - t0, bytes, body: Buffer.concat(chunks).toString('utf8') }) : reject(new Error(`${url}: ${res.statusCode}`))));
      res.once('error', reject);
    }).once('error', reject);
  });
}

/** Build the issue and measure its page. */
export async function benchIssuePage(say: (m: string) => void): Promise<IssuePageResult> {
  const s = await newServer({ workers: 1, postgres: false, env: { FORGE__LOG__LEVEL: 'error' } });
  const agent = new http.Agent({ keepAlive: true });
  try {
    const made = await s.cli(['admin', 'user', 'create', '--username', 'alice', '--password', 'alice-password', '--email', 'alice@example.com',
      '--must-change-password=false', '--access-token', '--access-token-scopes', 'all']);
    if (made.code !== 0) throw new Error(made.stderr);
    const token = made.stdout.trim().split('\n').pop()!;
    await s.start();
    const headers = { Authorization: `token ${token}`, 'Content-Type': 'application/json' };
    const post = async (p: string, body: unknown) => {
      const res = await fetch(`${s.api}${p}`, { method: 'POST', headers, body: JSON.stringify(body) });
      if (res.status !== 201) throw new Error(`POST ${p}: ${res.status} ${await res.text()}`);
    };
    await post('/user/repos', { name: 'pub' });
    await post('/repos/alice/pub/issues', { title: 'A long checklist', body: 'Each comment is a list of things to check.' });
    say(`posting ${COMMENTS} comments of ${COMMENT_BYTES / 1024} KiB ...`);
    for (let k = 0; k < COMMENTS; k += 8) {
      await Promise.all(Array.from({ length: Math.min(8, COMMENTS - k) }, (_, j) => post('/repos/alice/pub/issues/1/comments', { body: comment(k + j) })));
    }
    const worker = Number(fs.readFileSync(`/proc/${s.proc!.pid}/task/${s.proc!.pid}/children`, 'utf8').trim().split(/\s+/)[0]);
    const page = `${s.url}alice/pub/issues/1`;
    const version = `${s.api}/version`;
    const rssBeforeMb = rssMb(worker);
    let rssPeakMb = rssBeforeMb;
    const sampler = setInterval(() => { rssPeakMb = Math.max(rssPeakMb, rssMb(worker)); }, 20);

    // why: the machine's own noise (other processes on the two cores), measured the same way with no page requested.
    const probeIdle = await startProbe(version);
    await new Promise((resolve) => setTimeout(resolve, IDLE_SECONDS * 1000));
    const versionIdle = await probeIdle.stop();

    const probeFirst = await startProbe(version);
    const first = await getPage(page, agent, true);
    const versionFirst = await probeFirst.stop();
    const rssFirstMb = rssPeakMb;
    const lines = Math.floor((COMMENT_BYTES - comment(0).indexOf('- [ ]')) / 8);
    const boxes = first.body.match(/<input type="checkbox" disabled[^>]*>/g)?.length ?? 0;
    if (boxes !== COMMENTS * lines) throw new Error(`the page shows ${boxes} checkboxes, not ${COMMENTS * lines}`);
    say(`first page: ${first.ms.toFixed(0)} ms, ${(first.bytes / 1e6).toFixed(1)} MB; /version p99 ${versionFirst.p99} ms`);

    const probeLoop = await startProbe(version);
    const warm: number[] = [];
    const until = performance.now() + LOOP_SECONDS * 1000;
    while (performance.now() < until) {
      const p = await getPage(page, agent, false);
      // why: the footer says how long the page took to render, so sizes may differ by a few bytes.
      if (Math.abs(p.bytes - first.bytes) > 16) throw new Error(`a warm page has ${p.bytes} bytes, the first ${first.bytes}`);
      warm.push(p.ms);
    }
    const versionLoop = await probeLoop.stop();
    clearInterval(sampler);
    const r = (x: number) => Math.round(x * 10) / 10;
    return {
      comments: COMMENTS, pageMb: first.bytes / 1e6, firstMs: r(first.ms), warm: { n: warm.length, p50: r(percentile(warm, 50)), p99: r(percentile(warm, 99)) },
      versionIdle, versionFirst, versionLoop, rssBeforeMb: Math.round(rssBeforeMb), rssFirstMb: Math.round(rssFirstMb), rssPeakMb: Math.round(rssPeakMb),
    };
  } finally {
    agent.destroy();
    await s.destroy();
    fs.rmSync(s.dataDir, { recursive: true, force: true });
  }
}

/** The row's table. */
export function printIssuePage(r: IssuePageResult): void {
  const pad = (v: string | number, n: number) => String(v).padEnd(n);
  const met = (p: Probe) => (p.p99 < VERSION_P99_MS ? 'met' : 'NOT met');
  process.stdout.write(`\nbench/issues, issue page (issue 35), SQLite, 1 worker: an issue with ${r.comments} comments of ${COMMENT_BYTES / 1024} KiB of task-list lines each `
    + `(a ${r.pageMb.toFixed(1)} MB page), read anonymously; /api/v1/version from its own process, one request at a time, 20 ms apart.\n\n`);
  process.stdout.write(`| ${pad('scenario', 44)} | ${pad('p50 ms', 8)} | ${pad('p99 ms', 8)} | ${pad('target', 22)} | note\n`);
  process.stdout.write(`|${'-'.repeat(46)}|${'-'.repeat(10)}|${'-'.repeat(10)}|${'-'.repeat(24)}|------\n`);
  process.stdout.write(`| ${pad('first page (cold)', 44)} | ${pad(r.firstMs, 8)} | ${pad('', 8)} | ${pad('', 22)} | one request\n`);
  process.stdout.write(`| ${pad('warm page, requested in a loop', 44)} | ${pad(r.warm.p50, 8)} | ${pad(r.warm.p99, 8)} | ${pad('', 22)} | ${r.warm.n} requests in ${LOOP_SECONDS} s\n`);
  process.stdout.write(`| ${pad('/api/v1/version, no page requested', 44)} | ${pad(r.versionIdle.p50, 8)} | ${pad(r.versionIdle.p99, 8)} | ${pad('baseline', 22)} | `
    + `${r.versionIdle.n} requests in ${IDLE_SECONDS} s before the first page, max ${r.versionIdle.max} ms: the machine's own noise\n`);
  process.stdout.write(`| ${pad('/api/v1/version during the first page', 44)} | ${pad(r.versionFirst.p50, 8)} | ${pad(r.versionFirst.p99, 8)} | ${pad(`${met(r.versionFirst)} p99<${VERSION_P99_MS}`, 22)} | `
    + `${r.versionFirst.n} requests, max ${r.versionFirst.max} ms\n`);
  process.stdout.write(`| ${pad('/api/v1/version while the page loops', 44)} | ${pad(r.versionLoop.p50, 8)} | ${pad(r.versionLoop.p99, 8)} | ${pad(`${met(r.versionLoop)} p99<${VERSION_P99_MS}`, 22)} | `
    + `${r.versionLoop.n} requests, max ${r.versionLoop.max} ms\n`);
  process.stdout.write(`| ${pad('worker resident memory, MB', 44)} | ${pad(r.rssBeforeMb, 8)} | ${pad(r.rssPeakMb, 8)} | ${pad('', 22)} | `
    + `before the first page (p50 column) and the peak (p99 column; ${r.rssFirstMb} by the end of the first page), sampled every 20 ms\n`);
}
