/**
 * The runtime: configuration from app.ini and FORGE__ variables (a bad value names its key),
 * migrations under a lock when several processes start together, graceful SIGTERM drain,
 * and the primary restarting a worker that dies.
 */
import { expect } from 'chai';
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { newServer, freePort } from '../helpers/server';
import { waitFor } from '../helpers/refs';

const execFileP = promisify(execFile);
const MAIN = path.resolve(__dirname, '..', '..', 'src', 'main.js');

function run(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return execFileP(process.execPath, [MAIN, ...args], { env: { ...process.env, ...env }, timeout: 60_000 })
    .then(({ stdout, stderr }) => ({ code: 0, stdout, stderr }))
    .catch((e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }));
}

describe('runtime', () => {
  it('fails start-up with a message naming the key of a bad value', async () => {
    const s = await newServer();
    for (const [key, value, name] of [
      ['FORGE__SERVER__HTTP_PORT', 'abc', 'HTTP_PORT'],
      ['FORGE__DATABASE__DB_TYPE', 'mysql', 'DB_TYPE'],
      ['FORGE__API__MAX_RESPONSE_ITEMS', '0', 'MAX_RESPONSE_ITEMS'],
      ['FORGE__SERVICE__DISABLE_REGISTRATION', 'maybe', 'DISABLE_REGISTRATION'],
    ]) {
      const out = await run(['web'], { ...s.env, [key]: value });
      expect(out.code, key).to.not.equal(0);
      expect(out.stderr).to.include(name);
    }
    expect(fs.existsSync(path.join(s.dataDir, 'forge.db'))).to.equal(false);
  });

  it('reads app.ini given by --config, and FORGE__ variables override it', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'forge-ini-'));
    const port = await freePort();
    const ini = path.join(dir, 'app.ini');
    fs.writeFileSync(ini, `APP_NAME = Ini Forge\n[server]\nHTTP_ADDR = 127.0.0.1\nHTTP_PORT = 1\nAPP_DATA_PATH = ${dir}/data\nSSH_PORT = ${await freePort()}\n[api]\nDEFAULT_PAGING_NUM = 7\n`);
    const env = { FORGE__SERVER__HTTP_PORT: String(port) };
    const proc = spawn(process.execPath, [MAIN, 'web', '--config', ini], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      // why: started when its primary says every worker listens (a fresh data dir makes host keys first; slow on a busy machine)
      let output = '';
      const listening = new Promise<boolean>((resolve) => {
        const seen = (d: Buffer) => { output += d.toString(); if (output.includes('forge is listening')) resolve(true); };
        proc.stdout!.on('data', seen);
        proc.stderr!.on('data', seen);
        proc.once('exit', () => resolve(false));
      });
      expect(await listening, output).to.equal(true);
      expect((await fetch(`http://127.0.0.1:${port}/api/v1/version`)).ok).to.equal(true);
      expect(fs.existsSync(path.join(dir, 'data', 'forge.db'))).to.equal(true);
      const page = await (await fetch(`http://127.0.0.1:${port}/api/swagger`)).text();
      expect(page).to.include('Ini Forge');
    } finally {
      proc.kill('SIGTERM');
    }
  });

  it('applies migrations once when several processes start together', async () => {
    const s = await newServer();
    const outs = await Promise.all([1, 2, 3].map(() => run(['migrate'], s.env)));
    for (const o of outs) expect(o.code, o.stderr).to.equal(0);
    expect(outs.filter((o) => o.stdout.includes('applied:'))).to.have.length(1);
    expect(outs.filter((o) => o.stdout.includes('up to date'))).to.have.length(2);
  });

  it('drains an in-flight request on SIGTERM and exits 0', async () => {
    const s = await newServer();
    await s.start();
    // a request whose body is still arriving when the signal comes: the server's 100 Continue says it has the request
    let req!: http.ClientRequest;
    const answer = new Promise<number>((resolve, reject) => {
      req = http.request({ host: '127.0.0.1', port: s.httpPort, path: '/api/v1/admin/users', method: 'POST', headers: { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked', Expect: '100-continue' } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
    });
    await new Promise<void>((resolve) => req.once('continue', resolve));
    req.write('{"username": ');
    const exited = new Promise<number | null>((resolve) => s.proc!.once('exit', (code) => resolve(code)));
    s.proc!.kill('SIGTERM');
    // the body ends only once the worker has begun to stop
    await waitFor('the worker to stop accepting', async () => s.output.includes('stopping: no new connections'));
    req.end('"late"}');
    expect(await answer).to.equal(401);
    expect(await exited).to.equal(0);
  });

  it('restarts a worker that dies', async () => {
    const s = await newServer({ workers: 2 });
    await s.start();
    try {
      const children = async () => (await execFileP('pgrep', ['-P', String(s.proc!.pid)]).catch(() => ({ stdout: '' }))).stdout.trim().split('\n').filter(Boolean);
      const before = await children();
      expect(before).to.have.length(2);
      process.kill(Number(before[0]), 'SIGKILL');
      let after: string[] = [];
      for (let i = 0; i < 100; i++) {
        after = await children();
        if (after.length === 2 && !after.includes(before[0])) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(after).to.have.length(2);
      expect(after).to.not.include(before[0]);
      for (let i = 0; i < 10; i++) expect((await fetch(`${s.api}/version`)).status).to.equal(200);
    } finally {
      await s.stop();
    }
  });

  it('goes on serving, idle, when the reader of its log goes away', async () => {
    const s = await newServer({ workers: 1, env: { FORGE__SECURITY__DISABLE_QUERY_AUTH_TOKEN: 'true' } });
    await s.start();
    try {
      const pids = async () => [String(s.proc!.pid), ...(await execFileP('pgrep', ['-P', String(s.proc!.pid)]).catch(() => ({ stdout: '' }))).stdout.trim().split('\n').filter(Boolean)];
      // clock ticks (1/100 s) of CPU the forge's processes have used
      const cpu = async () => (await pids()).reduce((sum, pid) => {
        const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
        return sum + Number(f[11]) + Number(f[12]);
      }, 0);
      s.proc!.stdout!.destroy();
      s.proc!.stderr!.destroy();
      // each of these logs a warning (a token in the query string is refused by this config)
      for (let i = 0; i < 5; i++) expect((await fetch(`${s.api}/repos/search?token=${'a'.repeat(40)}`)).status).to.equal(200);
      const before = await cpu();
      await new Promise((r) => setTimeout(r, 1000));
      expect(await cpu() - before).to.be.below(30);
      expect((await fetch(`${s.api}/version`)).status).to.equal(200);
    } finally {
      await s.stop();
    }
  });
});
