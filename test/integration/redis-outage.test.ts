/**
 * Redis going away in cluster mode (a private Redis, stopped and started under a running forge):
 * password sign-in keeps working (the failed-sign-in counters fall back to the process), a write
 * that needs the repository lock is answered 503 at once naming the lock service, with nothing
 * changed, reads go on, the outage is logged once and the recovery once, and everything works
 * again without a restart. `/api/healthz` says "warn" meanwhile, and "fail" (424) while PostgreSQL
 * refuses connections.
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { startWorld, type World, type TestUser } from '../helpers/world';
import { freePort, pgAdmin } from '../helpers/server';
import { serverRepoDir } from '../helpers/repo-fixture';
import { waitFor } from '../helpers/refs';

/** A private redis-server on `port`; resolves once it answers. */
async function startRedis(port: number, dir: string): Promise<ChildProcess> {
  const proc = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: 'ignore' });
  await waitFor('redis to answer', async () => {
    try {
      return execFileSync('redis-cli', ['-p', String(port), 'ping'], { stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim() === 'PONG';
    } catch {
      return false;
    }
  });
  return proc;
}

async function stopRedis(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null) return;
  const gone = new Promise((resolve) => proc.once('exit', resolve));
  proc.kill('SIGKILL');
  await gone;
}

describe('Redis outage in cluster mode', () => {
  let w: World;
  let alice: TestUser;
  let redis: ChildProcess;
  let port: number;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'forge-redis-'));
  const refs = () => execFileSync('git', ['--git-dir', serverRepoDir(w.server, 'alice', 'proj'), 'for-each-ref']).toString();
  const count = (text: string, what: string) => text.split(what).length - 1;
  const healthz = async () => {
    const res = await fetch(`${w.server.url}api/healthz`);
    return { status: res.status, body: await res.json() as { status: string; checks: Record<string, { status: string }[]> } };
  };

  before(async () => {
    port = await freePort();
    redis = await startRedis(port, dir);
    w = await startWorld({ clusterRedis: `redis://127.0.0.1:${port}/0` });
    alice = await w.user('alice');
    expect((await w.raw('POST', '/user/repos', { name: 'proj', auto_init: true }, { token: alice.token })).status).to.equal(201);
  });
  after(async () => {
    await w.stop();
    await stopRedis(redis);
  });

  it('keeps sign-in and reads working, refuses locked writes at once with 503, and recovers by itself', async () => {
    expect((await w.raw('POST', '/repos/alice/proj/branches', { new_branch_name: 'before' }, { token: alice.token })).status).to.equal(201);
    const logStart = w.server.output.length;
    await stopRedis(redis);

    // password sign-in (git over HTTP uses it) answers, and wrong passwords are still 401, not 500
    await waitFor('the forge to notice', async () => w.server.output.slice(logStart).includes('connection lost'));
    expect((await w.raw('GET', '/user', undefined, { basic: ['alice', alice.password] })).status).to.equal(200);
    for (let i = 0; i < 3; i++) expect((await w.raw('GET', '/user', undefined, { basic: ['alice', 'wrong-password'] })).status).to.equal(401);
    expect((await w.raw('GET', '/repos/alice/proj/branches', undefined, { token: alice.token })).status).to.equal(200);

    const before = refs();
    for (let i = 0; i < 3; i++) {
      const r = await w.raw('POST', '/repos/alice/proj/branches', { new_branch_name: `during${i}` }, { token: alice.token });
      expect(r.status, r.text).to.equal(503);
      expect(r.body.message).to.equal('the lock service (Redis) cannot be reached, so changes to repositories are paused; try again shortly');
      expect(r.headers.get('retry-after')).to.equal('5');
    }
    expect(refs()).to.equal(before);

    // the health check tells a load balancer the node still serves, degraded
    const health = await healthz();
    expect(health.status).to.equal(200);
    expect(health.body.status).to.equal('warn');
    expect(health.body.checks['cache:ping'][0].status).to.equal('warn');
    expect(health.body.checks['database:ping'][0].status).to.equal('pass');

    redis = await startRedis(port, dir);
    await waitFor('a locked write to work again', async () => (await w.raw('POST', '/repos/alice/proj/branches', { new_branch_name: 'after' }, { token: alice.token })).status === 201);
    expect(refs()).to.include('refs/heads/after');
    await waitFor('the recovery to be logged', async () => w.server.output.slice(logStart).includes('connection is back'));
    // once per worker process: each has its own connections
    const workers = w.server.workers;
    await waitFor('every worker to reconnect', async () => count(w.server.output.slice(logStart), 'connection is back') === workers);
    const log = w.server.output.slice(logStart);
    expect(count(log, 'connection lost'), log).to.equal(workers);
    expect(count(log, 'connection is back'), log).to.equal(workers);
    expect(log).to.not.include('Unhandled error event');
    expect(count(log, 'failed sign-ins are counted per process'), log).to.be.within(1, workers);
    await waitFor('healthz to pass again', async () => (await healthz()).body.status === 'pass');
  });

  it('fails its health check with 424 while PostgreSQL refuses it, and passes again after', async () => {
    const name = w.server.env.FORGE__DATABASE__NAME;
    await pgAdmin(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
    try {
      await pgAdmin(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${name}'`);
      await waitFor('healthz to fail', async () => (await healthz()).status === 424);
      const h = await healthz();
      expect(h.body.status).to.equal('fail');
      expect(h.body.checks['database:ping'][0].status).to.equal('fail');
      expect(h.body.checks['data-dir:write'][0].status).to.equal('pass');
    } finally {
      await pgAdmin(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
    }
    await waitFor('healthz to pass again', async () => (await healthz()).body.status === 'pass');
    expect((await w.raw('GET', '/repos/alice/proj', undefined, { token: alice.token })).status).to.equal(200);
  });
});
