/**
 * bench/push-refs (a row of bench/issues; `npm run bench -- push-refs` runs it alone): a push of 100
 * commits to the default branch of alice/refs, a repository with 10,000 issues (seeded with SQL
 * while the server is stopped, as bench/issues seeds), timed from the start of `git push` until
 * the push's side effects are done: the outbox holds no pending or leased job (the ref sync, then
 * the commit references, the closes and their notifications). Three pushes are compared, in
 * alternating rounds: commits that reference no issue (the baseline), commits that each reference
 * an issue (`See #n`), and commits that each close one (`Fixes #n`). Median of BENCH_PUSH_ROUNDS.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { newServer, type TestServer } from '../test/helpers/server';
import { benchHome, gitEnv, median } from './util';
import { COUNTER_COLS, ISSUE_COLS, openBulk, type Bulk } from './issues';

const ISSUES = Number(process.env.BENCH_PUSH_ISSUES ?? '10000');
const COMMITS = 100;
const ROUNDS = Number(process.env.BENCH_PUSH_ROUNDS ?? '9');
/** The issue's target: the push with references takes at most this times the push without. */
export const PUSH_REFS_RATIO = 1.3;

/** The medians of one database's run. */
export interface PushRefsResult { plain: number; refs: number; fixes: number; rounds: number; issues: number; closed: number; commitRefs: number }

/** Run git; rejects with its stderr on failure. */
function git(args: string[], env: Record<string, string>, cwd: string, input?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const p = spawn('git', args, { cwd, env, stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stdout!.on('data', (d: Buffer) => { out += d.toString(); });
    p.stderr!.on('data', (d: Buffer) => { err += d.toString(); });
    p.once('exit', (code) => (code === 0 ? resolve(out.trim()) : reject(new Error(`git ${args.join(' ')}: ${err}`))));
    if (input !== undefined) p.stdin!.end(input);
  });
}

/** 100 commits on main with the given messages, each changing one small file, made by one fast-import. */
async function makeCommits(dir: string, env: Record<string, string>, messages: string[]): Promise<void> {
  const parent = await git(['rev-parse', 'HEAD'], env, dir);
  const t = Math.floor(Date.now() / 1000);
  let stream = '';
  messages.forEach((m, i) => {
    const content = `line ${i} ${Math.random()}\n`;
    stream += `commit refs/heads/main\ncommitter Bench <bench@example.com> ${t + i} +0000\ndata ${Buffer.byteLength(m)}\n${m}\n`;
    if (i === 0) stream += `from ${parent}\n`;
    stream += `M 100644 inline notes/file${i % 20}.txt\ndata ${Buffer.byteLength(content)}\n${content}\n`;
  });
  await git(['fast-import', '--quiet', '--force'], env, dir, stream);
  await git(['reset', '-q', '--hard', 'refs/heads/main'], env, dir);
}

/** Milliseconds from the start of the push until the outbox is idle again. */
async function timedPush(db: Bulk, dir: string, env: Record<string, string>): Promise<number> {
  const t0 = process.hrtime.bigint();
  await git(['push', '-q', 'origin', 'main'], env, dir);
  for (;;) {
    const [r] = await db.rows("SELECT COUNT(*) AS n FROM outbox WHERE status IN ('pending', 'leased')");
    if (Number(r.n) === 0) return Number(process.hrtime.bigint() - t0) / 1e6;
    await new Promise((res) => setTimeout(res, 5));
  }
}

/** Make the server, alice/refs with ISSUES issues, and time the three pushes. */
export async function benchPushRefs(dbType: string, workers: number, say: (m: string) => void): Promise<PushRefsResult> {
  const pg = dbType === 'postgres';
  if (pg) process.env.FORGE_TEST_DB = 'postgres';
  else delete process.env.FORGE_TEST_DB;
  const redis = pg ? (process.env.FORGE_TEST_REDIS ?? 'redis://127.0.0.1:56379/0') : undefined;
  const s: TestServer = await newServer({ workers, env: { FORGE__LOG__LEVEL: 'error' }, clusterRedis: redis });
  const home = benchHome();
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-push-refs-'));
  try {
    const made = await s.cli(['admin', 'user', 'create', '--username', 'alice', '--password', 'alice-password', '--email', 'alice@example.com',
      '--must-change-password=false', '--access-token', '--access-token-scopes', 'all']);
    if (made.code !== 0) throw new Error(made.stderr);
    const token = made.stdout.trim().split('\n').pop()!;
    await s.start();
    const res = await fetch(`${s.api}/user/repos`, { method: 'POST', headers: { Authorization: `token ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'refs', auto_init: true }) });
    if (res.status !== 201) throw new Error(`cannot create alice/refs: ${res.status} ${await res.text()}`);
    const repoId = ((await res.json()) as { id: number }).id;
    await s.stop();

    say(`seeding ${ISSUES} issues in alice/refs ...`);
    let db = await openBulk(s);
    try {
      const [alice] = await db.rows("SELECT id FROM users WHERE lower_name = 'alice'");
      const now = Math.floor(Date.now() / 1000) - 3600;
      const rows = Array.from({ length: ISSUES }, (_, k) => [0, repoId, k + 1, Number(alice.id), `Issue ${k + 1}`, `Body of issue ${k + 1}.`,
        0, 0, false, false, 0, '', 0, false, 0, 0, now - ISSUES + k, now - ISSUES + k]);
      const first = Number((await db.rows('SELECT COALESCE(MAX(id), 0) AS m FROM issue'))[0].m) + 1;
      rows.forEach((r, k) => { r[0] = first + k; });
      await db.run('BEGIN');
      await db.insert('issue', ISSUE_COLS, rows);
      await db.run('DELETE FROM repo_issue_counter WHERE repo_id = $1', [repoId]);
      await db.insert('repo_issue_counter', COUNTER_COLS, [[repoId, ISSUES, ISSUES, 0, 0, 0, 0, 0]]);
      await db.run('COMMIT');
      if (pg) await db.run("SELECT setval(pg_get_serial_sequence('issue', 'id'), (SELECT MAX(id) FROM issue))");
    } finally {
      await db.close();
    }
    await s.start();
    const env = gitEnv(home);
    await git(['clone', '-q', `http://alice:${token}@127.0.0.1:${s.httpPort}/alice/refs.git`, work], env, os.tmpdir());
    // why: bench/issues runs this right after the tracker part wrote and removed a database of a
    // gigabyte; its dirty pages, written back during the first rounds, slowed whichever push they met.
    await new Promise<void>((resolve) => spawn('sync', [], { stdio: 'ignore' }).once('exit', () => resolve()));
    db = await openBulk(s);
    try {
      const times = { plain: [] as number[], refs: [] as number[], fixes: [] as number[] };
      let next = 1;
      const kinds: (keyof typeof times)[] = ['plain', 'refs', 'fixes'];
      // why: one warm-up push of each kind first (JIT, caches), then rounds that alternate the kinds so drift hits all three alike.
      for (let round = 0; round <= ROUNDS; round++) {
        for (const kind of kinds) {
          const messages = Array.from({ length: COMMITS }, (_, i) => {
            const subject = `Update the notes, part ${round}.${i}`;
            if (kind === 'plain') return `${subject}\n\nNo issue named here.\n`;
            return `${subject}\n\n${kind === 'refs' ? 'See' : 'Fixes'} #${next++}\n`;
          });
          await makeCommits(work, env, messages);
          const ms = await timedPush(db, work, env);
          if (round > 0) times[kind].push(ms);
        }
      }
      const [closed] = await db.rows('SELECT COUNT(*) AS n FROM issue WHERE repo_id = $1 AND is_closed = $2', [repoId, true]);
      const [refs] = await db.rows('SELECT COUNT(*) AS n FROM comment WHERE type = 4');
      const result = { plain: median(times.plain), refs: median(times.refs), fixes: median(times.fixes), rounds: ROUNDS, issues: ISSUES, closed: Number(closed.n), commitRefs: Number(refs.n) };
      say(`push of ${COMMITS} commits: plain ${result.plain.toFixed(0)} ms, each referencing an issue ${result.refs.toFixed(0)} ms, each closing one ${result.fixes.toFixed(0)} ms `
        + `(${result.commitRefs} commit_ref entries, ${result.closed} issues closed)`);
      return result;
    } finally {
      await db.close();
    }
  } finally {
    await s.destroy();
    fs.rmSync(work, { recursive: true, force: true });
    fs.rmSync(home, { recursive: true, force: true });
  }
}

/** The rows bench/issues prints for this scenario. */
export function pushRefsRows(r: PushRefsResult, pad: (v: string | number, n: number) => string): string {
  const row = (scenario: string, ms: number, target: string, note: string) => `| ${pad(scenario, 40)} | ${pad(ms.toFixed(0), 7)} | ${pad('', 7)} | ${pad('', 12)} | ${pad(target, 26)} | ${note}\n`;
  const ratio = r.refs / r.plain;
  const fixRatio = r.fixes / r.plain;
  return row(`push ${COMMITS} commits, no references`, r.plain, '', `${r.issues.toLocaleString('en-US')} issues in the repository; ms from git push until the outbox is idle, median of ${r.rounds}`)
    + row(`push ${COMMITS} commits, each "See #n"`, r.refs, `${ratio <= PUSH_REFS_RATIO ? 'met' : 'NOT met'} ≤${PUSH_REFS_RATIO}x (${ratio.toFixed(2)}x)`, `${COMMITS} commit_ref entries per push`)
    + row(`push ${COMMITS} commits, each "Fixes #n"`, r.fixes, `${fixRatio.toFixed(2)}x the plain push`, `also closes ${COMMITS} issues per push (entries, counts, feed, notifications); ${r.closed} closed in all`);
}

/** Run this row alone and print it. */
export async function run(): Promise<void> {
  const dbs = process.env.BENCH_DB ? process.env.BENCH_DB.split(',') : ['sqlite3'];
  const pad = (v: string | number, n: number) => String(v).padEnd(n);
  for (const dbType of dbs) {
    const r = await benchPushRefs(dbType, Number(process.env.BENCH_WORKERS ?? '1'), (m) => process.stdout.write(`[push-refs/${dbType}] ${m}\n`));
    process.stdout.write(`\n| ${pad('scenario', 40)} | ${pad('ms', 7)} | ${pad('', 7)} | ${pad('', 12)} | ${pad('target', 26)} | note\n`);
    process.stdout.write(pushRefsRows(r, pad));
  }
}
