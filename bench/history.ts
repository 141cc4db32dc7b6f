/**
 * bench/history: on the generated 20,000-commit repository, each figure beside its raw-git
 * baseline measured in the same run on the same bare repository:
 * - the commit list, page 1 and page 300, with stat/files/verification on and off, against the
 *   `git log` giving the same data: warm (two discarded warm-ups, then pages served from the
 *   in-process id list and commit texts) and cold (a fork nothing of which is cached, a commit
 *   pushed to it, then the first request), the cold ones against the git work that gives the
 *   same answer (`git rev-list --count` for the total plus `git log -50 --numstat`);
 * - `.tar.gz` and `.zip` archives of the default branch, cold and cached, against `git archive`;
 * - event loop health: p99 of `GET /api/v1/version`, asked from a separate process, while 16 archive
 *   downloads and 16 commit-list pages run concurrently from another.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFile, fork } from 'node:child_process';
import { promisify } from 'node:util';
import { ARCHIVE_ENV } from '../src/git/archive';
import { agent, timedGet } from './http';
import { COMMITS, benchHome, benchServer, generateSource, gitEnv, median, pushSource, timedGit } from './util';
import type { TestServer } from '../test/helpers/server';
import { count, tableWritten } from '../test/helpers/db';

const execFileAsync = promisify(execFile);
const RUNS = Number(process.env.BENCH_RUNS ?? '15');
// why: each cold run forks the repository and pushes a commit; five give a stable median.
const COLD_RUNS = Number(process.env.BENCH_COLD_RUNS ?? '5');
const PAGE = 50;

interface Row { scenario: string; ours: number; raw: number; target: number | null; note: string }

/** Median milliseconds of `fn` over RUNS runs after two warm-up runs. */
async function measure(fn: () => Promise<number>): Promise<number> {
  await fn();
  await fn();
  const xs: number[] = [];
  for (let i = 0; i < RUNS; i++) xs.push(await fn());
  return median(xs);
}

/**
 * Median milliseconds of each of `fns` over RUNS runs after two warm-up runs, taken in turn so that
 * a slower or faster stretch of the machine weighs on all alike.
 */
async function measureInTurn(...fns: (() => Promise<number>)[]): Promise<number[]> {
  const xs: number[][] = fns.map(() => []);
  for (let i = -2; i < RUNS; i++) {
    for (const [k, fn] of fns.entries()) {
      const x = await fn();
      if (i >= 0) xs[k].push(x);
    }
  }
  return xs.map(median);
}

const LOAD = 16;
const LOOP_SECONDS = Number(process.env.BENCH_LOOP_SECONDS ?? '20');
// why: on a real installation the clients run on other machines. Here they share the forge's two
// cores, and a closed loop of 32 clients takes as much CPU as it can get; at the forge's own priority
// the figure measures how the kernel shares the CPU between client and server rather than the
// forge's event loop. At a lower priority the clients still get every cycle the forge leaves.
const LOAD_NICE = Number(process.env.BENCH_LOAD_NICE ?? '10');

/** What the event-loop scenario measured. */
interface LoopHealth { nice: number; p50: number; p99: number; max: number; samples: number; archives: number; pages: number }

/**
 * Sample `/version` one request at a time, from a separate process (./probe), while LOAD clients
 * download archives of different commits (a cold build the first time each, so the archive cache is
 * emptied first) and LOAD clients read commit-list pages with every switch on, from another process
 * (./load) running at niceness `nice`.
 */
async function eventLoopHealth(api: string, token: string, cacheDir: string, nice: number): Promise<LoopHealth> {
  const ids = ((await (await fetch(`${api}/repos/bench/history/commits?limit=50&stat=false&files=false&verification=false`, { headers: { Authorization: `token ${token}` } })).json()) as { sha: string }[]).map((c) => c.sha);
  fs.rmSync(cacheDir, { recursive: true, force: true });
  const load = fork(path.join(__dirname, 'load.js'), [api, token, String(LOAD), ids.join(',')]);
  if (nice) os.setPriority(load.pid!, nice);
  const served = new Promise<{ archives: number; pages: number }>((resolve, reject) => {
    load.once('message', (m) => resolve(m as { archives: number; pages: number }));
    load.once('exit', (code) => reject(new Error(`the load process exited with ${code}`)));
  });
  // why: when the prober fails, the load is killed below and nothing awaits this any more.
  served.catch(() => undefined);
  try {
    const probe = await execFileAsync(process.execPath, [path.join(__dirname, 'probe.js'), `${api}/version`, String(LOOP_SECONDS)]);
    load.send('stop');
    const { archives, pages } = await served;
    const samples = (JSON.parse(probe.stdout) as number[]).sort((a, b) => a - b);
    const at = (q: number) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))];
    return { nice, p50: at(0.5), p99: at(0.99), max: samples[samples.length - 1], samples: samples.length, archives, pages };
  } finally {
    load.kill();
  }
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

/**
 * The first request of a commit-list page (stat, files and verification on) after a push, with
 * nothing of the repository cached: each run forks the repository (a server-side copy the worker has
 * never read: no id list, commit texts or git processes for it), empties the database caches, pushes
 * a commit to the fork and times the first request; against the git work giving the same answer on
 * the fork: `git rev-list --count main` (the total) plus `git log -50 --numstat`.
 * why: a fork rather than a restart, since a restart also pays the worker's one-off start-up (JIT,
 * threads, the git launcher), which no push pays.
 */
async function coldPages(server: TestServer, token: string, home: string, deep: number): Promise<Row[]> {
  const env = gitEnv(home, { GIT_AUTHOR_NAME: 'Bench', GIT_AUTHOR_EMAIL: 'bench@example.com', GIT_COMMITTER_NAME: 'Bench', GIT_COMMITTER_EMAIL: 'bench@example.com' });
  const api = async (method: string, p: string, body?: unknown) => {
    const res = await fetch(`${server.api}${p}`, { method, headers: { Authorization: `token ${token}`, 'Content-Type': 'application/json' }, body: body ? JSON.stringify(body) : undefined });
    if (res.status >= 300) throw new Error(`${method} ${p}: ${res.status} ${await res.text()}`);
  };
  const out: Row[] = [];
  let n = 0;
  for (const [label, page] of [['page 1', 1], [`page ${deep}`, deep]] as const) {
    const skip = (page - 1) * PAGE;
    const ours: number[] = [];
    const raw: number[] = [];
    for (let i = 0; i < COLD_RUNS; i++) {
      const org = `cold${++n}`;
      await api('POST', '/orgs', { username: org });
      await api('POST', '/repos/bench/history/forks', { organization: org });
      const dir = path.join(server.dataDir, 'repositories', org, 'history.git');
      const git = async (args: string[]) => (await execFileAsync('git', ['--git-dir', dir, ...args], { env })).stdout.trim();
      const commit = await git(['commit-tree', await git(['rev-parse', 'main^{tree}']), '-p', await git(['rev-parse', 'main']), '-m', `cold ${org}`]);
      await execFileAsync('git', ['--git-dir', dir, 'push', '-q', `http://bench:${token}@127.0.0.1:${server.httpPort}/${org}/history.git`, `${commit}:refs/heads/main`], { env });
      await waitPushed(server, commit);
      for (const table of ['users', 'email_address']) await tableWritten(server, table);
      ours.push(await timedGet(`${server.api}/repos/${org}/history/commits?limit=${PAGE}&page=${page}`, token));
      const gitMs = (args: string[]) => timedGit(['--git-dir', dir, ...args], env).then((s) => s * 1000);
      raw.push(await gitMs(['rev-list', '--count', 'main']) + await gitMs(['log', `-${PAGE}`, ...(skip ? [`--skip=${skip}`] : []), '--numstat', 'main']));
    }
    out.push({ scenario: `commit list ${label}, stat+files+verification, cold`, ours: median(ours), raw: median(raw), target: 1.3,
      note: `first request after a push, nothing cached; baseline: git rev-list --count + git log -${PAGE}${skip ? ` --skip=${skip}` : ''} --numstat` });
  }
  return out;
}

/** Wait until the push of `commit` is processed: its push event recorded and no job left in the outbox (the commit-graph written). */
async function waitPushed(server: TestServer, commit: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    const recorded = await count(server, 'SELECT COUNT(*) AS n FROM push_event WHERE new_commit_id = $1', [commit]);
    if (recorded > 0 && (await count(server, "SELECT COUNT(*) AS n FROM outbox WHERE status <> 'done'")) === 0) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('the push was not processed');
}

/** Run the scenario and print its table. */
export async function run(): Promise<void> {
  const home = benchHome();
  await generateSource(home);
  const { server, token } = await benchServer();
  const rows: Row[] = [];
  const loops: LoopHealth[] = [];
  try {
    const { dir } = await pushSource(server, token, home, 'history');
    await waitProcessed(server.api, token, dir);
    const env = gitEnv(home);
    const gitMs = async (args: string[], gitEnvironment = env) => (await timedGit(['--git-dir', dir, ...args], gitEnvironment)) * 1000;
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
      const [raw, mine] = await measureInTurn(() => gitMs(gitArgs), () => timedGet(url, token));
      ours.set(scenario, mine);
      rows.push({ scenario: `commit list ${scenario}, warm`, ours: mine, raw, target, note: `baseline: git ${gitArgs.slice(0, -1).join(' ')}` });
    }
    rows.push(...await coldPages(server, token, home, deep));
    // archives: cold (cache emptied before each run) and cached, against git archive of the same
    // commit, run as a user would and with the environment the forge gives it (ARCHIVE_ENV)
    const repoId = ((await (await fetch(`${server.api}/repos/bench/history`, { headers: { Authorization: `token ${token}` } })).json()) as { id: number }).id;
    const cacheDir = path.join(server.dataDir, 'repo-archive', String(repoId));
    const emptyCache = () => fs.rmSync(cacheDir, { recursive: true, force: true });
    const tuned = { ...env, ...ARCHIVE_ENV };
    for (const [ext, format] of [['tar.gz', 'tar.gz'], ['zip', 'zip']]) {
      const url = `${server.api}/repos/bench/history/archive/main.${ext}`;
      const gitArgs = ['archive', `--format=${format}`, '--prefix=history/', '-o', '/dev/null', 'main'];
      const [raw, rawTuned, cold] = await measureInTurn(() => gitMs(gitArgs), () => gitMs(gitArgs, tuned),
        async () => { emptyCache(); return timedGet(url, token); });
      const cached = await measure(() => timedGet(url, token));
      rows.push({ scenario: `archive .${ext} of main, cold`, ours: cold, raw: rawTuned, target: 1.1, note: `like for like: git archive --format=${format} with the forge's ARCHIVE_ENV` });
      rows.push({ scenario: `archive .${ext} of main, cold (vs plain git)`, ours: cold, raw, target: null, note: `git archive --format=${format} as a user runs it` });
      rows.push({ scenario: `archive .${ext} of main, cached (vs cold)`, ours: cached, raw: cold, target: 0.2, note: 'target: at least 5x faster than cold' });
    }
    for (const nice of new Set([LOAD_NICE, 0])) loops.push(await eventLoopHealth(server.api, token, cacheDir, nice));
    for (const sw of ['stat+files+verification', 'switches off']) {
      const p1 = ours.get(`page 1, ${sw}`)!;
      const pd = ours.get(`page ${deep}, ${sw}`)!;
      rows.push({ scenario: `page ${deep} / page 1, ${sw}`, ours: pd, raw: p1, target: null, note: 'no linear rescan: about 1' });
    }
  } finally {
    agent.destroy();
    await server.stop();
  }
  const pad = (v: string | number, w: number) => String(v).padEnd(w);
  const db = server.env.FORGE__DATABASE__DB_TYPE === 'postgres' ? 'PostgreSQL' : 'SQLite';
  process.stdout.write(`\nbench/history: ${COMMITS} commits, ${PAGE} per page, ${server.workers} worker${server.workers > 1 ? 's' : ''}, ${db}, `
    + `median of ${RUNS} (warm rows, after two warm-ups) or ${COLD_RUNS} (cold rows, each on a fresh fork after a push)\n\n`);
  process.stdout.write(`| ${pad('scenario', 50)} | forge ms | raw ms | ratio | target      | note\n|${'-'.repeat(52)}|----------|--------|-------|-------------|------\n`);
  for (const r of rows) {
    const ratio = r.ours / r.raw;
    const target = r.target === null ? '-' : `${ratio <= r.target ? 'met' : 'NOT met'} ≤${r.target}`;
    process.stdout.write(`| ${pad(r.scenario, 50)} | ${pad(r.ours.toFixed(1), 8)} | ${pad(r.raw.toFixed(1), 6)} | ${pad(ratio.toFixed(2), 5)} | ${pad(target, 11)} | ${r.note}\n`);
  }
  for (const l of loops) {
    const target = l.nice === LOAD_NICE ? `target p99 < 50 ms: ${l.p99 < 50 ? 'met' : 'NOT met'}` : 'no target (clients and forge compete for the same 2 cores)';
    process.stdout.write(`\nevent loop, clients at niceness ${l.nice}: GET /api/v1/version (from a separate process) while ${LOAD} archive downloads and ${LOAD} commit-list pages run at once `
      + `(${l.archives} archives and ${l.pages} pages served in ${LOOP_SECONDS} s): `
      + `p50 ${l.p50.toFixed(1)} ms, p99 ${l.p99.toFixed(1)} ms, max ${l.max.toFixed(1)} ms over ${l.samples} samples; ${target}\n`);
  }
}
