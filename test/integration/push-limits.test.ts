/**
 * Caps on what one push may bring: [repository] MAX_PUSH_SIZE (git's receive.maxInputSize) refuses
 * a pack while it arrives, MAX_PUSH_REFS refuses a push changing more refs, over HTTP and SSH;
 * [server] LFS_MAX_BATCH_SIZE refuses a batch naming more objects (413). Each refusal leaves the
 * repository as it was.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { startWorld, type World, type TestUser } from '../helpers/world';
import { git, gitHome, serverRepoDir, type GitResult } from '../helpers/repo-fixture';
import { gitSshCommand, sshKeyFile } from '../helpers/ssh';
import { LfsClient, lfsFiles } from '../helpers/lfs';
import { count } from '../helpers/db';

describe('push limits', () => {
  let w: World;
  let alice: TestUser;
  const home = gitHome();
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'forge-limits-'));
  const g = (args: string[], cwd?: string, env?: Record<string, string>) => git(args, { cwd, home, env });
  const ok = (r: GitResult) => { expect(r.code, r.stderr).to.equal(0); return r; };
  const refs = async () => (await g(['--git-dir', serverRepoDir(w.server, 'alice', 'capped'), 'for-each-ref'])).stdout;
  let work: string;

  before(async () => {
    w = await startWorld({ env: { FORGE__REPOSITORY__MAX_PUSH_SIZE: '1', FORGE__REPOSITORY__MAX_PUSH_REFS: '10', FORGE__SERVER__LFS_MAX_BATCH_SIZE: '20' } });
    alice = await w.user('alice');
    expect((await w.raw('POST', '/user/repos', { name: 'capped', auto_init: true }, { token: alice.token })).status).to.equal(201);
    work = path.join(tmp, 'work');
    ok(await g(['clone', '-q', `http://alice:${alice.token}@${new URL(w.server.url).host}/alice/capped.git`, work]));
  });
  after(() => w.stop());

  it('refuses a pack larger than MAX_PUSH_SIZE while it arrives, and keeps nothing of it', async () => {
    const before = await refs();
    fs.writeFileSync(path.join(work, 'noise.bin'), crypto.randomBytes(2 * 1024 * 1024));
    ok(await g(['add', 'noise.bin'], work));
    ok(await g(['commit', '-qm', 'two megabytes'], work));
    const r = await g(['push', 'origin', 'HEAD:refs/heads/big'], work);
    expect(r.code).to.not.equal(0);
    expect(r.stderr).to.match(/pack exceeds maximum allowed size/);
    expect(await refs()).to.equal(before);
    const objects = path.join(serverRepoDir(w.server, 'alice', 'capped'), 'objects');
    expect(fs.readdirSync(objects).filter((d) => d.startsWith('tmp_objdir-incoming-'))).to.deep.equal([]);
    ok(await g(['reset', '-q', '--hard', 'HEAD~1'], work));
  });

  it('refuses a push changing more than MAX_PUSH_REFS refs (SSH), and accepts one at the bound (HTTP)', async () => {
    const key = sshKeyFile();
    expect((await w.raw('POST', '/user/keys', { title: 'k', key: key.pub }, { token: alice.token })).status).to.equal(201);
    const sshUrl = `ssh://git@127.0.0.1:${w.server.sshPort}/alice/capped.git`;
    const before = await refs();
    const eleven = Array.from({ length: 11 }, (_, i) => `HEAD:refs/heads/b${i}`);
    const r = await g(['push', sshUrl, ...eleven], work, { GIT_SSH_COMMAND: gitSshCommand(w.server.sshPort, key) });
    expect(r.code).to.not.equal(0);
    expect(r.stderr).to.include('this push changes 11 refs; a push may change at most 10 ([repository] MAX_PUSH_REFS)');
    expect(await refs()).to.equal(before);
    ok(await g(['push', 'origin', ...eleven.slice(0, 10)], work));
    expect((await refs()).split('\n').filter((l) => l.includes('refs/heads/b'))).to.have.length(10);
  });

  it('refuses an LFS batch naming more than LFS_MAX_BATCH_SIZE objects with 413, before any work', async () => {
    const lfs = new LfsClient(w.server);
    const objects = (n: number) => Array.from({ length: n }, (_, i) => ({ oid: crypto.createHash('sha256').update(String(i)).digest('hex'), size: 1 }));
    for (const auth of [null, { token: alice.token }] as const) {
      const r = await lfs.batch('alice/capped', 'upload', objects(21), auth);
      expect(r.status, JSON.stringify(r.body)).to.equal(413);
      expect(r.body.message).to.equal('a batch may name at most 20 objects ([server] LFS_MAX_BATCH_SIZE)');
    }
    // an anonymous batch of a hundred thousand objects is refused as a body too large to read at all
    const huge = await lfs.batch('alice/capped', 'download', objects(100_000), null);
    expect(huge.status).to.equal(413);
    const fine = await lfs.batch('alice/capped', 'upload', objects(20), { token: alice.token });
    expect(fine.status).to.equal(200);
    expect(fine.body.objects).to.have.length(20);
    expect(lfsFiles(w.server)).to.deep.equal([]);
    expect(await count(w.server, 'SELECT COUNT(*) AS n FROM lfs_meta_object')).to.equal(0);
  });
});
