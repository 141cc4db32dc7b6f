/**
 * bench/pulls: on the generated 20,000-commit repository, a pull request changing 1,000 files in
 * 50 commits, each figure beside the raw git that does the same work, measured in turn in the
 * same run on a copy of the same repository:
 * - `/pulls/{index}/files` page 1 against `git diff --numstat base...head`;
 * - `.diff` against `git diff base...head`;
 * - each merge style (POST /merge on a fresh base that moved by one commit) against merge-tree +
 *   commit-tree + update-ref (merge, squash), `git rebase` in a prepared worktree (rebase;
 *   rebase-merge adds the merge commit) and merge-base --is-ancestor + update-ref (fast-forward-only);
 * - 200 open pull requests against one base and a push to it: the time until every one has been
 *   checked again, and `GET /api/v1/version` p99 from a separate process meanwhile.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { agent, timedGet } from './http';
import { benchHome, benchServer, generateSource, gitEnv, median, pushSource, timedGit } from './util';
import { count } from '../test/helpers/db';

const execFileAsync = promisify(execFile);
const RUNS = Number(process.env.BENCH_RUNS ?? '9');
const MERGE_RUNS = Number(process.env.BENCH_MERGE_RUNS ?? '5');
const OPEN_PULLS = Number(process.env.BENCH_OPEN_PULLS ?? '200');

interface Row { scenario: string; ours: number; raw: number; target: number | null }

/** Feed a fast-import stream to the bare repository `dir`. */
export async function fastImport(dir: string, home: string, stream: string): Promise<void> {
  const fi = spawn('git', ['fast-import', '--quiet'], { cwd: dir, env: gitEnv(home, { GIT_DIR: dir }), stdio: ['pipe', 'inherit', 'inherit'] });
  fi.stdin.end(stream);
  await new Promise<void>((resolve, reject) => fi.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`fast-import exited ${code}`)))));
}

/** 50 commits on `topic` from main, together changing the 400 existing files and adding 600. */
export function topicStream(): string {
  const files = [...Array.from({ length: 400 }, (_, i) => `dir${i % 50}/file${i}.txt`), ...Array.from({ length: 600 }, (_, i) => `pr/dir${i % 30}/new${i}.txt`)];
  let s = '';
  const t = 1_800_000_000;
  for (let c = 0; c < 50; c++) {
    const msg = `topic commit ${c + 1}\n`;
    s += `commit refs/heads/topic\ncommitter Bench <bench@example.com> ${t + c * 60} +0000\ndata ${msg.length}\n${msg}`;
    if (c === 0) s += 'from refs/heads/main^0\n';
    for (const f of files.slice(c * 20, c * 20 + 20)) {
      const body = `${Array.from({ length: 40 }, (_, k) => `line ${k} of ${f} changed by the pull request`).join('\n')}\n`;
      s += `M 100644 inline ${f}\ndata ${Buffer.byteLength(body)}\n${body}\n`;
    }
  }
  return s;
}

async function api(base: string, token: string, method: string, p: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> & { number?: number; mergeable?: boolean } }> {
  const res = await fetch(`${base}${p}`, { method, headers: { Authorization: `token ${token}`, 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : null };
}

/** Median ms of each function, taken in turn after one warm-up each; `first` holds the warm-ups' own times. */
async function inTurn(runs: number, ...fns: (() => Promise<number>)[]): Promise<number[] & { first: number[] }> {
  const xs: number[][] = fns.map(() => []);
  const first: number[] = [];
  for (let i = -1; i < runs; i++) {
    for (const [k, fn] of fns.entries()) {
      const x = await fn();
      if (i >= 0) xs[k].push(x);
      else first.push(x);
    }
  }
  return Object.assign(xs.map(median), { first });
}


/** Run the scenario and print the table. */
export async function run(): Promise<void> {
  const home = benchHome();
  await generateSource(home);
  const { server, token } = await benchServer();
  const repoApi = `${server.api}/repos/bench/pulls`;
  try {
    const { dir, url } = await pushSource(server, token, home, 'pulls');
    // a copy of the repository to stage branches in and to run the raw git baselines on
    const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-pulls-'));
    await execFileAsync('git', ['clone', '-q', '--bare', dir, path.join(copy, 'r.git')], { env: gitEnv(home) });
    const raw = path.join(copy, 'r.git');
    await fastImport(raw, home, topicStream());
    await timedGit(['--git-dir', raw, 'push', '-q', url, 'topic'], gitEnv(home));
    const made = await api(server.api, token, 'POST', '/repos/bench/pulls/pulls', { head: 'topic', base: 'main', title: 'Topic' });
    if (made.status !== 201) throw new Error(`create: ${made.status} ${JSON.stringify(made.json)}`);
    const n = made.json.number as number;
    const rows: Row[] = [];
    const g = (args: string[], cwd = raw) => timedGit(['--git-dir', cwd, ...args], gitEnv(home));

    // why: git's output is read through a pipe, as the forge's client reads the answer; written to
    // /dev/null, git may skip work (about 15 ms of a 75 ms diff here).
    const piped = (args: string[]) => new Promise<number>((resolve, reject) => {
      const t0 = process.hrtime.bigint();
      const p = spawn('git', ['--git-dir', raw, ...args], { env: gitEnv(home), stdio: ['ignore', 'pipe', 'ignore'] });
      p.stdout.resume();
      p.once('close', (code) => (code === 0 ? resolve(Number(process.hrtime.bigint() - t0) / 1e6) : reject(new Error(`git ${args.join(' ')} exited ${code}`))));
    });
    const filesTimes = await inTurn(RUNS, () => timedGet(`${repoApi}/pulls/${n}/files`, token), () => piped(['diff', '--numstat', 'main...topic']));
    // why: the first request computes the list (later ones are served from what it kept); it is printed as its own row.
    rows.push({ scenario: '/pulls/{n}/files page 1, first request', ours: filesTimes.first[0], raw: filesTimes.first[1], target: null });
    rows.push({ scenario: '/pulls/{n}/files page 1 (1,000 files)', ours: filesTimes[0], raw: filesTimes[1], target: 1.2 });
    const diffTimes = await inTurn(RUNS, () => timedGet(`${repoApi}/pulls/${n}.diff`, token), () => piped(['diff', 'main...topic']));
    // why: the same for the diff: the first request streams it from git and keeps it, later ones are sent as kept.
    rows.push({ scenario: '/pulls/{n}.diff, first request', ours: diffTimes.first[0], raw: diffTimes.first[1], target: null });
    rows.push({ scenario: '/pulls/{n}.diff', ours: diffTimes[0], raw: diffTimes[1], target: 1.2 });

    // merges: each run on a fresh base branch that moved one commit past the topic's fork point
    const worktree = path.join(copy, 'wt');
    await execFileAsync('git', ['--git-dir', raw, 'worktree', 'add', '-q', '--detach', worktree, 'topic'], { env: gitEnv(home) });
    let k = 0;
    const freshBase = async (style: string) => {
      const base = `base-${style}-${++k}`;
      const fromMain = style !== 'fast-forward-only';
      if ((await api(server.api, token, 'POST', '/repos/bench/pulls/branches', { new_branch_name: base, old_ref_name: 'main' })).status !== 201) throw new Error('branch');
      if (fromMain) {
        const c = await api(server.api, token, 'POST', `/repos/bench/pulls/contents/base-only-${k}.txt`, { content: Buffer.from(`base ${k}\n`).toString('base64'), branch: base });
        if (c.status !== 201) throw new Error(`commit on base: ${c.status}`);
      }
      const pr = await api(server.api, token, 'POST', '/repos/bench/pulls/pulls', { head: 'topic', base, title: `Merge into ${base}` });
      if (pr.status !== 201 || !pr.json.mergeable) throw new Error(`pull request: ${pr.status} ${JSON.stringify(pr.json)}`);
      // the same refs in the copy, for the raw baseline
      await g(['fetch', '-q', url, `+refs/heads/${base}:refs/heads/${base}`]);
      return { base, number: pr.json.number as number };
    };
    const ident = { GIT_AUTHOR_NAME: 'Bench', GIT_AUTHOR_EMAIL: 'bench@example.com', GIT_COMMITTER_NAME: 'Bench', GIT_COMMITTER_EMAIL: 'bench@example.com' };
    const sh = async (script: string, cwd = copy) => {
      const t0 = process.hrtime.bigint();
      await execFileAsync('sh', ['-ec', script], { cwd, env: gitEnv(home, ident), maxBuffer: 64 * 1024 * 1024 });
      return Number(process.hrtime.bigint() - t0) / 1e6;
    };
    const rawMerge = (style: string, base: string): Promise<number> => {
      const G = `git --git-dir=${raw}`;
      if (style === 'merge' || style === 'squash') {
        const parents = style === 'merge' ? `-p ${base} -p topic` : `-p ${base}`;
        return sh(`t=$(${G} merge-tree --write-tree ${base} topic); c=$(echo msg | ${G} commit-tree $t ${parents}); ${G} update-ref refs/heads/${base} $c`);
      }
      if (style === 'fast-forward-only') return sh(`${G} merge-base --is-ancestor ${base} topic; ${G} update-ref refs/heads/${base} $(${G} rev-parse topic)`);
      const merge = style === 'rebase-merge' ? `; c=$(echo msg | git commit-tree HEAD^{tree} -p ${base} -p HEAD); git update-ref refs/heads/${base} $c` : `; git update-ref refs/heads/${base} HEAD`;
      // why: the worktree is put at the head before the clock starts; git rebase itself is timed.
      return execFileAsync('git', ['checkout', '-q', '--detach', 'topic'], { cwd: worktree, env: gitEnv(home) }).then(() => sh(`git rebase -q ${base}${merge}`, worktree));
    };
    for (const style of ['merge', 'squash', 'rebase', 'rebase-merge', 'fast-forward-only']) {
      const ours: number[] = [];
      const rawTimes: number[] = [];
      for (let i = 0; i < MERGE_RUNS; i++) {
        const a = await freshBase(style);
        const t0 = process.hrtime.bigint();
        const r = await api(server.api, token, 'POST', `/repos/bench/pulls/pulls/${a.number}/merge`, { Do: style });
        ours.push(Number(process.hrtime.bigint() - t0) / 1e6);
        if (r.status !== 200) throw new Error(`merge ${style}: ${r.status} ${JSON.stringify(r.json)}`);
        const b = await freshBase(style);
        rawTimes.push(await rawMerge(style, b.base));
      }
      rows.push({ scenario: `merge, ${style}`, ours: median(ours), raw: median(rawTimes), target: 1.3 });
    }

    // 200 open pull requests against one base, then a push to the base
    const heads = Array.from({ length: OPEN_PULLS }, (_, i) => `many-${i}`);
    let stream = '';
    for (const [i, h] of heads.entries()) {
      const body = `head ${i}\n`;
      stream += `commit refs/heads/${h}\ncommitter Bench <bench@example.com> ${1_900_000_000 + i} +0000\ndata 5\nhead\nfrom refs/heads/main^0\nM 100644 inline many/${h}.txt\ndata ${body.length}\n${body}\n`;
    }
    await fastImport(raw, home, stream);
    await g(['push', '-q', url, ...heads.map((h) => `refs/heads/${h}:refs/heads/${h}`)]);
    const tCreate = Date.now();
    for (const h of heads) {
      const r = await api(server.api, token, 'POST', '/repos/bench/pulls/pulls', { head: h, base: 'main', title: h });
      if (r.status !== 201) throw new Error(`create ${h}: ${r.status}`);
    }
    const createSeconds = (Date.now() - tCreate) / 1000;
    await fastImport(raw, home, `commit refs/heads/main\ncommitter Bench <bench@example.com> 1950000000 +0000\ndata 5\nmain\nfrom refs/heads/main^0\nM 100644 inline moved.txt\ndata 6\nmoved\n\n`);
    const probe = execFileAsync(process.execPath, [path.join(__dirname, 'probe.js'), `${server.api}/version`, '12']);
    const t0 = Date.now();
    await g(['push', '-q', url, 'main']);
    const pg = server.env.FORGE__DATABASE__DB_TYPE === 'postgres';
    const rechecked = `SELECT COUNT(*) AS n FROM pull_request WHERE base_branch = 'main' AND has_merged = ${pg ? 'false' : '0'} AND commits_behind = 1 AND status = 2`;
    while ((await count(server, rechecked)) < OPEN_PULLS) {
      if (Date.now() - t0 > 120_000) throw new Error('the pull requests were not re-checked within two minutes');
      await new Promise((r) => setTimeout(r, 50));
    }
    const recheckSeconds = (Date.now() - t0) / 1000;
    const samples = (JSON.parse((await probe).stdout) as number[]).sort((a, b) => a - b);
    const p99 = samples[Math.floor(samples.length * 0.99)];

    const f = (x: number) => x.toFixed(1).padStart(8);
    process.stdout.write(`\n| scenario | forge ms | raw git ms | ratio | target |\n|---|---:|---:|---:|---:|\n`);
    for (const r of rows) process.stdout.write(`| ${r.scenario} | ${f(r.ours)} | ${f(r.raw)} | ${(r.ours / r.raw).toFixed(2)} | ${r.target ? `≤ ${r.target}` : ''} |\n`);
    process.stdout.write(`| ${OPEN_PULLS} open pull requests re-checked after a push to their base | ${f(recheckSeconds * 1000)} | | | ≤ 10,000 |\n`);
    process.stdout.write(`| GET /api/v1/version p99 meanwhile (${samples.length} samples) | ${f(p99)} | | | ≤ 50 |\n`);
    process.stdout.write(`\n(${OPEN_PULLS} pull requests created in ${createSeconds.toFixed(1)} s; ${RUNS} runs for reads, ${MERGE_RUNS} per merge style; database ${server.env.FORGE__DATABASE__DB_TYPE ?? 'sqlite3'})\n`);
    fs.rmSync(copy, { recursive: true, force: true });
  } finally {
    agent.destroy();
    if (!process.env.BENCH_KEEP) await server.stop();
  }
}
