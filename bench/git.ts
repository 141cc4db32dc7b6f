/**
 * bench/git: clones of a large repository (20,000 commits, about 105 MB packed) through the forge
 * over HTTP and SSH, each against `git clone --no-local` of the same bare repository on disk (the
 * raw-git baseline), measured in the same run; then 32 concurrent bare clones with the peak
 * resident memory of the forge's own processes. The source repository is generated once with
 * `git fast-import` and kept in .bench/.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import net from 'node:net';
import { spawn, execFileSync } from 'node:child_process';
import { newServer, type TestServer } from '../test/helpers/server';

const COMMITS = Number(process.env.BENCH_COMMITS ?? '20000');
const BYTES_PER_COMMIT = Number(process.env.BENCH_COMMIT_BYTES ?? '6500');
const RUNS = Number(process.env.BENCH_RUNS ?? '3');
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? '32');
const ROOT = path.resolve(__dirname, '../../.bench');
const SOURCE = path.join(ROOT, `git-source-${COMMITS}x${BYTES_PER_COMMIT}.git`);

const gitEnv = (home: string, extra: Record<string, string> = {}) => ({ PATH: process.env.PATH!, HOME: home, GIT_TERMINAL_PROMPT: '0', GIT_CONFIG_NOSYSTEM: '1', LANG: 'C', ...extra });

/** Run git; resolves with the elapsed seconds, rejects on failure. */
function timedGit(args: string[], env: Record<string, string>, cwd = os.tmpdir()): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const p = spawn('git', args, { cwd, env, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    p.stderr.on('data', (d: Buffer) => { err += d.toString(); });
    p.once('exit', (code) => (code === 0 ? resolve(Number(process.hrtime.bigint() - t0) / 1e9) : reject(new Error(`git ${args.join(' ')}: ${err}`))));
  });
}

/** Build the source repository with fast-import: each commit rewrites one of 400 files with incompressible text. */
async function generateSource(home: string): Promise<void> {
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

/** Does something accept TCP connections on 127.0.0.1:port? */
function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const c = net.connect(port, '127.0.0.1', () => { c.destroy(); resolve(true); });
    c.once('error', () => resolve(false));
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Resident memory (MB) of the forge processes: the primary and its workers, not their git children. */
function forgeRssMb(server: TestServer): number {
  const pid = server.proc?.pid;
  if (!pid) return 0;
  const rss = (p: number) => {
    try { return Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${p}/status`, 'utf8'))?.[1] ?? 0) / 1024; } catch { return 0; }
  };
  let children: number[] = [];
  try { children = fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number); } catch { /* gone */ }
  return rss(pid) + children.reduce((s, c) => s + rss(c), 0);
}

/** Sample forge RSS every 100 ms while `fn` runs; returns fn's result and the peak. */
async function withPeakRss<T>(server: TestServer, fn: () => Promise<T>): Promise<{ value: T; peakMb: number }> {
  let peak = forgeRssMb(server);
  const timer = setInterval(() => { peak = Math.max(peak, forgeRssMb(server)); }, 100);
  try {
    const value = await fn();
    return { value, peakMb: peak };
  } finally {
    clearInterval(timer);
  }
}

interface Row { scenario: string; ours: number; raw: number; target: number | null; note: string }

/** Run the scenario and print its table. */
export async function run(): Promise<void> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-git-home-'));
  fs.writeFileSync(path.join(home, '.gitconfig'), '[user]\n\tname = Bench\n\temail = bench@example.com\n');
  await generateSource(home);
  const packMb = Number(execFileSync('git', ['count-objects', '-v'], { env: gitEnv(home, { GIT_DIR: SOURCE }) }).toString().match(/size-pack: (\d+)/)![1]) / 1024;

  const server = await newServer({ env: { FORGE__LOG__LEVEL: 'error' } });
  const made = await server.cli(['admin', 'user', 'create', '--username', 'bench', '--password', 'bench-password', '--email', 'bench@example.com',
    '--must-change-password=false', '--access-token', '--access-token-scopes', 'all']);
  if (made.code !== 0) throw new Error(made.stderr);
  const token = made.stdout.trim().split('\n').pop()!;
  await server.start();
  const rows: Row[] = [];
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-git-'));
  try {
    const api = (method: string, p: string, body: unknown) => fetch(`${server.api}${p}`, { method, headers: { Authorization: `token ${token}`, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    if ((await api('POST', '/user/repos', { name: 'big' })).status !== 201) throw new Error('cannot create the repository');
    const keyFile = path.join(home, 'id_ed25519');
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', keyFile]);
    const keyAdded = (await api('POST', '/user/keys', { title: 'bench', key: fs.readFileSync(`${keyFile}.pub`, 'utf8') })).status === 201;
    const host = `127.0.0.1:${server.httpPort}`;
    const httpUrl = `http://bench:${token}@${host}/bench/big.git`;
    const sshUrl = `ssh://git@127.0.0.1:${server.sshPort}/bench/big.git`;
    const sshEnv = gitEnv(home, { GIT_SSH_COMMAND: `ssh -i ${keyFile} -o IdentitiesOnly=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o BatchMode=yes -o LogLevel=ERROR` });
    const serverDir = path.join(server.dataDir, 'repositories', 'bench', 'big.git');

    // The push goes through the forge too (receive-pack with fsckObjects and the hooks), against a push into a bare repository on disk.
    const rawTarget = path.join(work, 'raw-target.git');
    execFileSync('git', ['init', '-q', '--bare', rawTarget], { env: gitEnv(home) });
    execFileSync('git', ['--git-dir', rawTarget, 'config', 'receive.fsckObjects', 'true'], { env: gitEnv(home) });
    const rawPush = await timedGit(['--git-dir', SOURCE, 'push', '-q', `file://${rawTarget}`, 'main'], gitEnv(home));
    const ourPush = await timedGit(['--git-dir', SOURCE, 'push', '-q', httpUrl, 'main'], gitEnv(home));
    rows.push({ scenario: `push ${COMMITS} commits (${packMb.toFixed(0)} MB), HTTP`, ours: ourPush, raw: rawPush, target: null, note: 'baseline: git push file://' });

    let n = 0;
    const dest = () => path.join(work, `c${++n}`);
    const clean = () => { for (const f of fs.readdirSync(work)) if (/^c\d+$/.test(f)) fs.rmSync(path.join(work, f), { recursive: true, force: true }); };
    const transports: [string, string, Record<string, string>][] = [['HTTP', httpUrl, gitEnv(home)]];
    if (keyAdded && (await portOpen(server.sshPort))) transports.push(['SSH', sshUrl, sshEnv]);
    else process.stdout.write('the SSH server is not answering: SSH rows left out\n');
    for (const [name, url, env] of transports) {
      const ours: number[] = [];
      const raw: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        raw.push(await timedGit(['clone', '-q', '--no-local', serverDir, dest()], env));
        ours.push(await timedGit(['clone', '-q', url, dest()], env));
        clean();
      }
      rows.push({ scenario: `clone over ${name} (median of ${RUNS})`, ours: median(ours), raw: median(raw), target: 1.15, note: 'baseline: git clone --no-local' });
    }
    for (const [name, url, env] of transports) {
      const batch = (src: string) => Promise.all(Array.from({ length: CONCURRENCY }, () => timedGit(['clone', '-q', '--bare', src, dest()], env)));
      const t0 = Date.now();
      await batch(serverDir);
      const raw = (Date.now() - t0) / 1000;
      clean();
      const t1 = Date.now();
      const { peakMb } = await withPeakRss(server, () => batch(url));
      const ours = (Date.now() - t1) / 1000;
      clean();
      rows.push({ scenario: `${CONCURRENCY} concurrent bare clones over ${name}`, ours, raw, target: null, note: `forge RSS peak ${peakMb.toFixed(0)} MB (target < 600)` });
    }
  } finally {
    await server.stop();
    fs.rmSync(work, { recursive: true, force: true });
  }
  const pad = (v: string | number, w: number) => String(v).padEnd(w);
  process.stdout.write(`\nbench/git: ${COMMITS} commits, ${packMb.toFixed(0)} MB packed, one worker, SQLite, ${os.cpus().length} cores\n\n`);
  process.stdout.write(`| ${pad('scenario', 44)} | forge s | raw git s | ratio | target  | note\n|${'-'.repeat(46)}|---------|-----------|-------|---------|------\n`);
  for (const r of rows) {
    const ratio = r.ours / r.raw;
    const target = r.target === null ? '-' : `${ratio <= r.target ? 'met' : 'NOT met'} ≤${r.target}`;
    process.stdout.write(`| ${pad(r.scenario, 44)} | ${pad(r.ours.toFixed(2), 7)} | ${pad(r.raw.toFixed(2), 9)} | ${pad(ratio.toFixed(2), 5)} | ${pad(target, 7)} | ${r.note}\n`);
  }
}
