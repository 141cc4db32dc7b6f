/**
 * A part of bench/issues: how long `git push` takes now that the push's branch rows, size and
 * empty flag are written before its answer (read-your-writes), against the forge built before that
 * change when BENCH_BEFORE_CHECKOUT names such a checkout (with its `dist/` built; `git worktree
 * add <dir> <commit>` and `npm run build` there). One worker on SQLite; one small commit pushed
 * over HTTP to an existing branch, BENCH_PUSHES times on each server (default 60), the two servers
 * taking turns in rounds of ten so that the machine's drift touches both alike. Target: the p50
 * within 10% of the before figure.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { newServer, type TestServer } from '../test/helpers/server';
import { benchHome, gitEnv, median, percentile, timedGit } from './util';

const PUSHES = Number(process.env.BENCH_PUSHES ?? '60');
const ROUND = 10;
const TARGET = 1.1;

/** A started server with a user's repository cloned into a working copy. */
interface Pusher { label: string; server: TestServer; work: string; times: number[]; n: number }

async function prepare(label: string, home: string, checkout?: string): Promise<Pusher> {
  const server = await newServer({ workers: 1, postgres: false, checkout });
  await server.start();
  const made = await server.cli(['admin', 'user', 'create', '--username', 'alice', '--password', 'alice-password-1', '--email', 'alice@example.com', '--admin', '--must-change-password=false', '--access-token']);
  const token = /[0-9a-f]{40}/.exec(made.stdout)?.[0];
  if (!token) throw new Error(`no token: ${made.stderr}`);
  const res = await fetch(`${server.api}/user/repos`, {
    method: 'POST', headers: { Authorization: `token ${token}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'app', auto_init: true, readme: 'Default' }),
  });
  if (res.status !== 201) throw new Error(`create repository: ${res.status} ${await res.text()}`);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), `bench-push-${label}-`));
  execFileSync('git', ['clone', '-q', `http://alice:${token}@127.0.0.1:${server.httpPort}/alice/app.git`, work], { env: gitEnv(home) });
  return { label, server, work, times: [], n: 0 };
}

/** Commit one small change (not timed) and time its push. */
async function pushOnce(p: Pusher, home: string, record: boolean): Promise<void> {
  const file = path.join(p.work, 'change.txt');
  fs.writeFileSync(file, `change ${++p.n}\n`);
  execFileSync('git', ['-C', p.work, 'commit', '-q', '-am', `change ${p.n}`], { env: gitEnv(home) });
  const s = await timedGit(['-C', p.work, 'push', '-q', 'origin', 'main'], gitEnv(home));
  if (record) p.times.push(s * 1000);
}

/** The table rows (markdown) of the push's p50, now and before. */
export async function pushAnswerRows(): Promise<string[]> {
  const home = benchHome();
  const before = process.env.BENCH_BEFORE_CHECKOUT;
  const pushers = [await prepare('now', home)];
  if (before) pushers.push(await prepare('before', home, before));
  try {
    // why: the first commit adds the file; a few pushes warm each server (JIT, caches, git's first runs).
    for (const p of pushers) {
      fs.writeFileSync(path.join(p.work, 'change.txt'), 'start\n');
      execFileSync('git', ['-C', p.work, 'add', 'change.txt'], { env: gitEnv(home) });
      for (let i = 0; i < 5; i++) await pushOnce(p, home, false);
    }
    for (let done = 0; done < PUSHES; done += ROUND) for (const p of pushers) for (let i = 0; i < ROUND; i++) await pushOnce(p, home, true);
  } finally {
    for (const p of pushers) await p.server.stop();
  }
  const [now, old] = pushers;
  const rows = pushers.map((p) => `| git push of one commit over HTTP, ${p.label} | ${median(p.times).toFixed(1)} ms | ${percentile(p.times, 90).toFixed(1)} ms | ${p.times.length} |`);
  const ratio = old ? median(now.times) / median(old.times) : null;
  const verdict = ratio === null ? 'before: set BENCH_BEFORE_CHECKOUT' : `${ratio.toFixed(2)}x, ${ratio <= TARGET ? 'met' : 'NOT met'} (target <= ${TARGET.toFixed(2)}x)`;
  return ['| push answer | p50 | p90 | pushes |', '|---|---|---|---|', ...rows, `| now / before | ${verdict} | | |`];
}
