/**
 * bench/git: clones of a large repository (20,000 commits, about 105 MB packed) through the forge
 * over HTTP and SSH, each against `git clone --no-local` of the same bare repository on disk (the
 * raw-git baseline), measured in the same run; the single clones again with one busy process
 * beside them (SSH judged against HTTP under the same load); then 32 concurrent bare clones with
 * the peak resident memory of the forge's own processes. When OpenSSH's sshd is installed, the
 * SSH rows are also run against git over sshd on the same repository: what SSH itself costs here,
 * with the ssh clients on the same two cores. The source repository is generated once with
 * `git fast-import` and kept in .bench/.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import type { TestServer } from '../test/helpers/server';
import { COMMITS, SOURCE, benchHome, benchServer, generateSource, gitEnv, median, pushSource, sourcePackMb, timedGit } from './util';

const RUNS = Number(process.env.BENCH_RUNS ?? '5');
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? '32');

/** Does something accept TCP connections on 127.0.0.1:port? */
function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const c = net.connect(port, '127.0.0.1', () => { c.destroy(); resolve(true); });
    c.once('error', () => resolve(false));
  });
}

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

/**
 * OpenSSH's sshd on a free port of 127.0.0.1, for this user only, accepting `keyFile`: git over it
 * runs git-upload-pack directly, the SSH baseline without the forge. Null when sshd is missing or
 * does not start.
 */
async function startSshd(work: string, keyFile: string): Promise<{ url: (dir: string) => string; stop: () => void } | null> {
  const sshd = ['/usr/sbin/sshd', '/usr/bin/sshd'].find((f) => fs.existsSync(f));
  if (!sshd) return null;
  const dir = path.join(work, 'sshd');
  fs.mkdirSync(dir);
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', path.join(dir, 'host')]);
  fs.copyFileSync(`${keyFile}.pub`, path.join(dir, 'authorized_keys'));
  try { fs.mkdirSync('/run/sshd', { recursive: true }); } catch { /* not root: sshd runs without privilege separation */ }
  const srv = net.createServer();
  const port = await new Promise<number>((resolve) => srv.listen(0, '127.0.0.1', () => { const p = (srv.address() as net.AddressInfo).port; srv.close(() => resolve(p)); }));
  fs.writeFileSync(path.join(dir, 'config'), [`Port ${port}`, 'ListenAddress 127.0.0.1', `HostKey ${dir}/host`, `AuthorizedKeysFile ${dir}/authorized_keys`,
    'StrictModes no', 'PasswordAuthentication no', 'KbdInteractiveAuthentication no', 'UsePAM no', 'MaxStartups 200', 'MaxSessions 200', `PidFile ${dir}/pid`, ''].join('\n'));
  const proc: ChildProcess = spawn(sshd, ['-D', '-e', '-f', path.join(dir, 'config')], { stdio: 'ignore' });
  for (let i = 0; i < 50 && !(await portOpen(port)); i++) await new Promise((r) => setTimeout(r, 100));
  if (!(await portOpen(port))) { proc.kill(); return null; }
  const user = os.userInfo().username;
  return { url: (repo) => `ssh://${user}@127.0.0.1:${port}${repo}`, stop: () => proc.kill() };
}

/** A process that keeps one core busy at the benchmark's (and so the forge's) priority, until stopped. */
function busyProcess(): () => void {
  const p = spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' });
  return () => p.kill();
}

/** Run the scenario and print its table. */
export async function run(): Promise<void> {
  const home = benchHome();
  await generateSource(home);
  const packMb = sourcePackMb(home);
  const { server, token } = await benchServer();
  const rows: Row[] = [];
  let sshd: Awaited<ReturnType<typeof startSshd>> = null;
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-git-'));
  try {
    const api = (method: string, p: string, body: unknown) => fetch(`${server.api}${p}`, { method, headers: { Authorization: `token ${token}`, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    const keyFile = path.join(home, 'id_ed25519');
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', keyFile]);
    const keyAdded = (await api('POST', '/user/keys', { title: 'bench', key: fs.readFileSync(`${keyFile}.pub`, 'utf8') })).status === 201;
    const sshUrl = `ssh://git@127.0.0.1:${server.sshPort}/bench/big.git`;
    const sshEnv = gitEnv(home, { GIT_SSH_COMMAND: `ssh -i ${keyFile} -o IdentitiesOnly=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o BatchMode=yes -o LogLevel=ERROR` });

    // The push goes through the forge too (receive-pack with fsckObjects and the hooks), against a push into a bare repository on disk.
    const rawTarget = path.join(work, 'raw-target.git');
    execFileSync('git', ['init', '-q', '--bare', rawTarget], { env: gitEnv(home) });
    execFileSync('git', ['--git-dir', rawTarget, 'config', 'receive.fsckObjects', 'true'], { env: gitEnv(home) });
    const rawPush = await timedGit(['--git-dir', SOURCE, 'push', '-q', `file://${rawTarget}`, 'main'], gitEnv(home));
    const { seconds: ourPush, dir: serverDir, url: httpUrl } = await pushSource(server, token, home, 'big');
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
    sshd = transports.length > 1 ? await startSshd(work, keyFile) : null;
    if (transports.length > 1 && !sshd) process.stdout.write('OpenSSH sshd is not installed or did not start: its rows left out\n');
    if (transports.length > 1) {
      // why: on a machine the forge shares, SSH's own work (encryption in the worker and in the
      // client) competes for the CPU; HTTP under the same load is the comparison.
      const [[, httpCloneUrl, httpEnv], [, sshCloneUrl, sshCloneEnv]] = transports;
      const times: Record<string, number[]> = { http: [], ssh: [], sshd: [] };
      const stopBusy = busyProcess();
      try {
        for (let i = 0; i < RUNS; i++) {
          times.http.push(await timedGit(['clone', '-q', httpCloneUrl, dest()], httpEnv));
          times.ssh.push(await timedGit(['clone', '-q', sshCloneUrl, dest()], sshCloneEnv));
          if (sshd) times.sshd.push(await timedGit(['clone', '-q', sshd.url(serverDir), dest()], sshCloneEnv));
          clean();
        }
      } finally {
        stopBusy();
      }
      rows.push({ scenario: `clone over SSH, one busy process beside it`, ours: median(times.ssh), raw: median(times.http), target: 1.1, note: 'baseline: the forge over HTTP, same load' });
      if (sshd) rows.push({ scenario: `clone over SSH, busy process (vs OpenSSH sshd)`, ours: median(times.ssh), raw: median(times.sshd), target: null, note: 'baseline: git over sshd, same load' });
    }
    for (const [name, url, env] of transports) {
      const batch = (src: string) => Promise.all(Array.from({ length: CONCURRENCY }, () => timedGit(['clone', '-q', '--bare', '--no-local', src, dest()], env)));
      const t0 = Date.now();
      await batch(serverDir);
      const raw = (Date.now() - t0) / 1000;
      clean();
      const t1 = Date.now();
      const { peakMb } = await withPeakRss(server, () => batch(url));
      const ours = (Date.now() - t1) / 1000;
      clean();
      rows.push({ scenario: `${CONCURRENCY} concurrent bare clones over ${name}`, ours, raw, target: name === 'SSH' ? 1.1 : null, note: `forge RSS peak ${peakMb.toFixed(0)} MB (target < 600)` });
      if (name === 'SSH' && sshd) {
        const t2 = Date.now();
        await batch(sshd.url(serverDir));
        const viaSshd = (Date.now() - t2) / 1000;
        clean();
        rows.push({ scenario: `${CONCURRENCY} concurrent over SSH (vs OpenSSH sshd)`, ours, raw: viaSshd, target: null, note: 'baseline: git over sshd' });
      }
    }
  } finally {
    sshd?.stop();
    await server.stop();
    fs.rmSync(work, { recursive: true, force: true });
  }
  const pad = (v: string | number, w: number) => String(v).padEnd(w);
  process.stdout.write(`\nbench/git: ${COMMITS} commits, ${packMb.toFixed(0)} MB packed, one worker, SQLite, ${os.cpus().length} cores\n\n`);
  process.stdout.write(`| ${pad('scenario', 48)} | forge s | raw git s | ratio | target  | note\n|${'-'.repeat(50)}|---------|-----------|-------|---------|------\n`);
  for (const r of rows) {
    const ratio = r.ours / r.raw;
    const target = r.target === null ? '-' : `${ratio <= r.target ? 'met' : 'NOT met'} ≤${r.target}`;
    process.stdout.write(`| ${pad(r.scenario, 48)} | ${pad(r.ours.toFixed(2), 7)} | ${pad(r.raw.toFixed(2), 9)} | ${pad(ratio.toFixed(2), 5)} | ${pad(target, 7)} | ${r.note}\n`);
  }
}
