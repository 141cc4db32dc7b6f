/**
 * SIGTERM stops a forge without cutting anyone off: running SSH clones finish, and a git client
 * between its two HTTP requests (ref advertisement, then the pack) is served the second on the
 * keep-alive connection it has; then the forge exits 0.
 */
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { startWorld, type World, type TestUser } from '../helpers/world';
import { git, gitHome, serverRepoDir, type GitResult } from '../helpers/repo-fixture';
import { gitSshCommand, sshKeyFile, type SshKeyFile } from '../helpers/ssh';
import { waitFor } from '../helpers/refs';

const home = gitHome();
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'forge-stop-'));
const g = (args: string[], cwd?: string, env?: Record<string, string>) => git(args, { cwd, home, env });
const ok = (r: GitResult) => { expect(r.code, r.stderr).to.equal(0); return r; };

/** A forge with alice/big: thirty megabytes of noise in one commit. Returns the head commit. */
async function bigRepo(w: World, alice: TestUser): Promise<string> {
  expect((await w.raw('POST', '/user/repos', { name: 'big' }, { token: alice.token })).status).to.equal(201);
  const work = fs.mkdtempSync(path.join(tmp, 'work-'));
  ok(await g(['init', '-q', '-b', 'main', work]));
  fs.writeFileSync(path.join(work, 'noise.bin'), crypto.randomBytes(30 * 1024 * 1024));
  ok(await g(['add', '.'], work));
  ok(await g(['commit', '-qm', 'noise'], work));
  ok(await g(['push', '-q', `http://alice:${alice.token}@${new URL(w.server.url).host}/alice/big.git`, 'main'], work));
  await waitFor('the push to be processed', async () => (await w.raw('GET', '/repos/alice/big', undefined, { token: alice.token })).body.empty === false);
  return ok(await g(['rev-parse', 'HEAD'], work)).stdout.trim();
}

/** How many upload-packs are serving `dir` now. */
function uploadPacks(dir: string): number {
  return execFileSync('ps', ['-eo', 'args=']).toString().split('\n').filter((l) => l.includes('upload-pack') && l.includes(dir)).length;
}

describe('graceful stop', () => {
  it('lets running SSH clones finish, and exits 0', async function () {
    // why: a 30 MB push and six 30 MB clones beside the busy suite took 111 s.
    this.timeout(300_000);
    const w = await startWorld();
    try {
      const alice = await w.user('alice');
      const key: SshKeyFile = sshKeyFile();
      expect((await w.raw('POST', '/user/keys', { title: 'k', key: key.pub }, { token: alice.token })).status).to.equal(201);
      const head = await bigRepo(w, alice);
      const env = { GIT_SSH_COMMAND: gitSshCommand(w.server.sshPort, key) };
      const sshUrl = `ssh://git@127.0.0.1:${w.server.sshPort}/alice/big.git`;
      const clones = Array.from({ length: 6 }, (_, i) => g(['clone', '-q', '--bare', sshUrl, path.join(tmp, `ssh-${i}.git`)], undefined, env));
      const dir = serverRepoDir(w.server, 'alice', 'big');
      await waitFor('clones in flight', async () => uploadPacks(dir) >= 3);
      const exited = new Promise<number | null>((resolve) => w.server.proc!.once('exit', (code) => resolve(code)));
      w.server.proc!.kill('SIGTERM');
      await waitFor('the worker to stop', async () => w.server.output.includes('stopping: no new connections'));
      const results = await Promise.all(clones);
      for (const [i, r] of results.entries()) {
        expect(r.code, `clone ${i}: ${r.stderr}`).to.equal(0);
        expect(ok(await g(['--git-dir', path.join(tmp, `ssh-${i}.git`), 'rev-parse', 'main'])).stdout.trim()).to.equal(head);
      }
      expect(await exited).to.equal(0);
    } finally {
      await w.stop();
    }
  });

  it('serves the second request of a clone on its keep-alive connection after SIGTERM, and exits 0', async function () {
    // why: a 30 MB push and its clone beside the busy suite took 109 s in one pass and over 120 s in the other.
    this.timeout(300_000);
    const w = await startWorld();
    try {
      const alice = await w.user('alice');
      const head = await bigRepo(w, alice);
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      const auth = `Basic ${Buffer.from(`alice:${alice.token}`).toString('base64')}`;
      const send = (method: string, p: string, headers: Record<string, string>, body?: Buffer) => new Promise<{ status: number; body: Buffer; socket: unknown }>((resolve, reject) => {
        const req = http.request({ host: '127.0.0.1', port: w.server.httpPort, method, path: p, agent, headers: { Authorization: auth, ...headers } }, (res) => {
          const parts: Buffer[] = [];
          res.on('data', (d: Buffer) => parts.push(d));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(parts), socket: req.socket }));
        });
        req.on('error', reject);
        req.end(body);
      });
      const refs = await send('GET', '/alice/big.git/info/refs?service=git-upload-pack', {});
      expect(refs.status).to.equal(200);
      expect(refs.body.toString()).to.include(head);
      const exited = new Promise<number | null>((resolve) => w.server.proc!.once('exit', (code) => resolve(code)));
      w.server.proc!.kill('SIGTERM');
      await waitFor('the worker to stop', async () => w.server.output.includes('stopping: no new connections'));
      // the clone's connection gets its pack
      const want = `0032want ${head}\n`;
      const pack = await send('POST', '/alice/big.git/git-upload-pack', { 'Content-Type': 'application/x-git-upload-pack-request' }, Buffer.from(`${want}00000009done\n`));
      expect(pack.socket).to.equal(refs.socket);
      expect(pack.status).to.equal(200);
      expect(pack.body.subarray(0, 8).toString()).to.equal('0008NAK\n');
      expect(pack.body.includes(Buffer.from('PACK'))).to.equal(true);
      expect(pack.body.length).to.be.greaterThan(30 * 1024 * 1024);
      agent.destroy();
      expect(await exited).to.equal(0);
    } finally {
      await w.stop();
    }
  });
});
