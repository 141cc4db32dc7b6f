/**
 * bench/history: the commit list of the generated 20,000-commit repository through the API, page 1
 * and page 300, with stat/files/verification on and off, each beside the raw `git log` that gives
 * the same information, measured in the same run on the same bare repository.
 */
import fs from 'node:fs';
import path from 'node:path';
import { COMMITS, benchHome, benchServer, generateSource, gitEnv, median, pushSource, timedGit } from './util';

const RUNS = Number(process.env.BENCH_RUNS ?? '15');
const PAGE = 50;

interface Row { scenario: string; ours: number; raw: number; target: number | null; note: string }

/** Milliseconds of one GET (body read fully). */
async function timedGet(url: string, token: string): Promise<number> {
  const t0 = process.hrtime.bigint();
  const res = await fetch(url, { headers: { Authorization: `token ${token}` } });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`${url}: ${res.status}`);
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

/** Median milliseconds of `fn` over RUNS runs after two warm-up runs. */
async function measure(fn: () => Promise<number>): Promise<number> {
  await fn();
  await fn();
  const xs: number[] = [];
  for (let i = 0; i < RUNS; i++) xs.push(await fn());
  return median(xs);
}

/** Wait until push processing has recorded the branch and written the commit-graph. */
async function waitProcessed(api: string, token: string, dir: string): Promise<void> {
  const chain = path.join(dir, 'objects', 'info', 'commit-graphs', 'commit-graph-chain');
  for (let i = 0; i < 1200; i++) {
    const repo = (await (await fetch(`${api}/repos/bench/history`, { headers: { Authorization: `token ${token}` } })).json()) as { empty: boolean };
    if (!repo.empty && fs.existsSync(chain)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the push was not processed');
}

/** Run the scenario and print its table. */
export async function run(): Promise<void> {
  const home = benchHome();
  await generateSource(home);
  const { server, token } = await benchServer();
  const rows: Row[] = [];
  try {
    const { dir } = await pushSource(server, token, home, 'history');
    await waitProcessed(server.api, token, dir);
    const env = gitEnv(home);
    const gitMs = async (args: string[]) => (await timedGit(['--git-dir', dir, ...args], env)) * 1000;
    const deep = 300;
    const skip = (deep - 1) * PAGE;
    const list = (page: number, switches: boolean) =>
      `${server.api}/repos/bench/history/commits?limit=${PAGE}&page=${page}${switches ? '' : '&stat=false&files=false&verification=false'}`;
    const cases: [string, string, string[], number][] = [
      ['page 1, stat+files+verification', list(1, true), ['log', `-${PAGE}`, '--numstat', 'main'], 1.5],
      ['page 1, switches off', list(1, false), ['log', `-${PAGE}`, 'main'], 1.3],
      [`page ${deep}, stat+files+verification`, list(deep, true), ['log', `-${PAGE}`, `--skip=${skip}`, '--numstat', 'main'], 1.5],
      [`page ${deep}, switches off`, list(deep, false), ['log', `-${PAGE}`, `--skip=${skip}`, 'main'], 1.3],
    ];
    const ours = new Map<string, number>();
    for (const [scenario, url, gitArgs, target] of cases) {
      const raw = await measure(() => gitMs(gitArgs));
      const mine = await measure(() => timedGet(url, token));
      ours.set(scenario, mine);
      rows.push({ scenario: `commit list ${scenario}`, ours: mine, raw, target, note: `baseline: git ${gitArgs.slice(0, -1).join(' ')}` });
    }
    for (const sw of ['stat+files+verification', 'switches off']) {
      const p1 = ours.get(`page 1, ${sw}`)!;
      const pd = ours.get(`page ${deep}, ${sw}`)!;
      rows.push({ scenario: `page ${deep} / page 1, ${sw}`, ours: pd, raw: p1, target: null, note: 'no linear rescan: about 1' });
    }
  } finally {
    await server.stop();
  }
  const pad = (v: string | number, w: number) => String(v).padEnd(w);
  process.stdout.write(`\nbench/history: ${COMMITS} commits, ${PAGE} per page, one worker, SQLite, median of ${RUNS}\n\n`);
  process.stdout.write(`| ${pad('scenario', 50)} | forge ms | raw ms | ratio | target      | note\n|${'-'.repeat(52)}|----------|--------|-------|-------------|------\n`);
  for (const r of rows) {
    const ratio = r.ours / r.raw;
    const target = r.target === null ? '-' : `${ratio <= r.target ? 'met' : 'NOT met'} ≤${r.target}`;
    process.stdout.write(`| ${pad(r.scenario, 50)} | ${pad(r.ours.toFixed(1), 8)} | ${pad(r.raw.toFixed(1), 6)} | ${pad(ratio.toFixed(2), 5)} | ${pad(target, 11)} | ${r.note}\n`);
  }
}
