/**
 * What the benchmarks share: the generated source repository (20,000 commits, about 100 MB packed,
 * made once with `git fast-import` and kept in .bench/), a git runner that times itself, a started
 * forge with a user and token, and the median.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import { spawn, execFileSync } from 'node:child_process';
import { newServer, type TestServer } from '../test/helpers/server';

/** Commits and bytes per commit of the generated repository (BENCH_COMMITS, BENCH_COMMIT_BYTES). */
export const COMMITS = Number(process.env.BENCH_COMMITS ?? '20000');
const BYTES_PER_COMMIT = Number(process.env.BENCH_COMMIT_BYTES ?? '6500');
const ROOT = path.resolve(__dirname, '../../.bench');
/** The generated bare repository. */
export const SOURCE = path.join(ROOT, `git-source-${COMMITS}x${BYTES_PER_COMMIT}.git`);

/** A clean environment for git with `home` as HOME. */
export const gitEnv = (home: string, extra: Record<string, string> = {}) => ({ PATH: process.env.PATH!, HOME: home, GIT_TERMINAL_PROMPT: '0', GIT_CONFIG_NOSYSTEM: '1', LANG: 'C', ...extra });

/** Run git; resolves with the elapsed seconds, rejects on failure. */
export function timedGit(args: string[], env: Record<string, string>, cwd = os.tmpdir()): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const p = spawn('git', args, { cwd, env, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    p.stderr.on('data', (d: Buffer) => { err += d.toString(); });
    p.once('exit', (code) => (code === 0 ? resolve(Number(process.hrtime.bigint() - t0) / 1e9) : reject(new Error(`git ${args.join(' ')}: ${err}`))));
  });
}

/** A scratch HOME with a git identity. */
export function benchHome(): string {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-home-'));
  fs.writeFileSync(path.join(home, '.gitconfig'), '[user]\n\tname = Bench\n\temail = bench@example.com\n');
  return home;
}

/** Build the source repository with fast-import: each commit rewrites one of 400 files with incompressible text. */
export async function generateSource(home: string): Promise<void> {
  if (fs.existsSync(path.join(SOURCE, 'bench-complete'))) return;
  fs.rmSync(SOURCE, { recursive: true, force: true });
  fs.mkdirSync(ROOT, { recursive: true });
  execFileSync('git', ['init', '-q', '--bare', '-b', 'main', SOURCE], { env: gitEnv(home) });
  process.stdout.write(`generating ${COMMITS} commits in ${SOURCE} ...\n`);
  const fi = spawn('git', ['fast-import', '--quiet'], { cwd: SOURCE, env: gitEnv(home, { GIT_DIR: SOURCE }), stdio: ['pipe', 'inherit', 'inherit'] });
  const write = (s: string | Buffer) => (fi.stdin.write(s) ? Promise.resolve() : new Promise<void>((r) => fi.stdin.once('drain', () => r())));
  const t = 1_700_000_000;
  for (let i = 1; i <= COMMITS; i++) {
    const content = Buffer.from(crypto.randomBytes(Math.ceil(BYTES_PER_COMMIT * 0.75)).toString('base64').replace(/(.{76})/g, '$1\n'));
    const msg = `commit ${i}: update file${i % 400}\n`;
    await write(`commit refs/heads/main\nmark :${i}\ncommitter Bench <bench@example.com> ${t + i * 60} +0000\ndata ${Buffer.byteLength(msg)}\n${msg}`);
    if (i > 1) await write(`from :${i - 1}\n`);
    await write(`M 100644 inline dir${i % 50}/file${i % 400}.txt\ndata ${content.length}\n`);
    await write(content);
    await write('\n');
  }
  fi.stdin.end();
  await new Promise<void>((resolve, reject) => fi.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`fast-import exited ${code}`)))));
  fs.writeFileSync(path.join(SOURCE, 'bench-complete'), '');
}

/** The median of some numbers. */
export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** The `p`th percentile of some numbers (NaN for none). */
export function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((s.length * p) / 100))] ?? NaN;
}

/** Packed size of the source repository in MB. */
export function sourcePackMb(home: string): number {
  return Number(execFileSync('git', ['count-objects', '-v'], { env: gitEnv(home, { GIT_DIR: SOURCE }) }).toString().match(/size-pack: (\d+)/)![1]) / 1024;
}

/** A started forge (one worker, SQLite unless BENCH/FORGE_TEST_DB says otherwise) with user "bench" and an all-scoped token. */
export async function benchServer(): Promise<{ server: TestServer; token: string }> {
  const server = await newServer({ env: { FORGE__LOG__LEVEL: 'error' } });
  const made = await server.cli(['admin', 'user', 'create', '--username', 'bench', '--password', 'bench-password', '--email', 'bench@example.com',
    '--must-change-password=false', '--access-token', '--access-token-scopes', 'all']);
  if (made.code !== 0) throw new Error(made.stderr);
  await server.start();
  return { server, token: made.stdout.trim().split('\n').pop()! };
}

/** Push the source repository's main branch into a new repository bench/<name> over HTTP; returns its bare path. */
export async function pushSource(server: TestServer, token: string, home: string, name: string): Promise<{ seconds: number; dir: string; url: string }> {
  const res = await fetch(`${server.api}/user/repos`, { method: 'POST', headers: { Authorization: `token ${token}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ name }) });
  if (res.status !== 201) throw new Error(`cannot create ${name}: ${res.status}`);
  const url = `http://bench:${token}@127.0.0.1:${server.httpPort}/bench/${name}.git`;
  const seconds = await timedGit(['--git-dir', SOURCE, 'push', '-q', url, 'main'], gitEnv(home));
  return { seconds, dir: path.join(server.dataDir, 'repositories', 'bench', `${name}.git`), url };
}
