/**
 * Faults of the storage answer truthfully: a ref store that cannot be written is a logged 500 (not
 * "already exists"), a repository whose directory is gone or whose pack is damaged is named as such
 * (a logged 500, never a 404, and git clients get the message), quarantines left by killed pushes
 * are removed at the next start, and the git launcher of a killed worker ends quietly.
 */
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { startWorld, type World, type TestUser } from '../helpers/world';
import { git, gitHome, serverRepoDir, type GitResult } from '../helpers/repo-fixture';
import { waitFor } from '../helpers/refs';
import { lockDir, unlockDir } from '../helpers/faults';
import { gitSshCommand, sshKeyFile } from '../helpers/ssh';

/** pid and command line of each running process. */
function processes(): { pid: number; ppid: number; args: string }[] {
  return execFileSync('ps', ['-eo', 'pid=,ppid=,args='], { maxBuffer: 16 << 20 }).toString().split('\n').filter(Boolean).map((l) => {
    const [pid, ppid, ...rest] = l.trim().split(/\s+/);
    return { pid: Number(pid), ppid: Number(ppid), args: rest.join(' ') };
  });
}

describe('faults', () => {
  let w: World;
  let alice: TestUser;
  const home = gitHome();
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'forge-faults-'));
  const g = (args: string[], cwd?: string, env?: Record<string, string>) => git(args, { cwd, home, env });
  const ok = (r: GitResult) => { expect(r.code, r.stderr).to.equal(0); return r; };
  const url = (repo: string) => `http://alice:${alice.token}@${new URL(w.server.url).host}/alice/${repo}.git`;
  const repo = async (name: string) => {
    expect((await w.raw('POST', '/user/repos', { name, auto_init: true }, { token: alice.token })).status).to.equal(201);
    return serverRepoDir(w.server, 'alice', name);
  };
  const refsOf = (dir: string) => execFileSync('git', ['--git-dir', dir, 'for-each-ref']).toString();

  before(async () => {
    w = await startWorld();
    alice = await w.user('alice');
  });
  after(() => w.stop());

  it('answers a ref store that cannot be written with a logged 500, never "already exists", and changes nothing', async () => {
    const dir = await repo('locked');
    const before = refsOf(dir);
    const branches = (await w.raw('GET', '/repos/alice/locked/branches', undefined, { token: alice.token })).body;
    const releases = (await w.raw('GET', '/repos/alice/locked/releases', undefined, { token: alice.token })).body;
    lockDir(path.join(dir, 'refs', 'heads'));
    lockDir(path.join(dir, 'refs', 'tags'));
    try {
      const branch = await w.raw('POST', '/repos/alice/locked/branches', { new_branch_name: 'feature' }, { token: alice.token });
      expect(branch.status, branch.text).to.equal(500);
      expect(branch.body.message).to.equal('internal server error');
      expect(w.server.output).to.include(`[${branch.headers.get('x-request-id')}] POST /api/v1/repos/alice/locked/branches`);
      // a site administrator is told what failed
      const asAdmin = await w.raw('POST', '/repos/alice/locked/branches', { new_branch_name: 'feature' }, { token: w.admin.token });
      expect(asAdmin.status).to.equal(500);
      expect(asAdmin.body.message).to.match(/Unable to create .*feature\.lock': (Operation not permitted|Permission denied)/);
      const release = await w.raw('POST', '/repos/alice/locked/releases', { tag_name: 'v9', target_commitish: 'main', name: 'v9' }, { token: alice.token });
      expect(release.status, release.text).to.equal(500);
      expect(release.text).to.not.include('already exists');
      expect(refsOf(dir)).to.equal(before);
      expect((await w.raw('GET', '/repos/alice/locked/branches', undefined, { token: alice.token })).body).to.deep.equal(branches);
      expect((await w.raw('GET', '/repos/alice/locked/releases', undefined, { token: alice.token })).body).to.deep.equal(releases);
    } finally {
      unlockDir(path.join(dir, 'refs', 'heads'));
      unlockDir(path.join(dir, 'refs', 'tags'));
    }
    // a name that does exist is still the 409 it always was
    expect((await w.raw('POST', '/repos/alice/locked/branches', { new_branch_name: 'feature' }, { token: alice.token })).status).to.equal(201);
    const again = await w.raw('POST', '/repos/alice/locked/branches', { new_branch_name: 'feature' }, { token: alice.token });
    expect(again.status).to.equal(409);
    expect(again.body.message).to.equal('The branch already exists.');
  });

  it('names a repository whose directory is missing on every route, and git clients get the message', async () => {
    const dir = await repo('gone');
    const key = sshKeyFile();
    expect((await w.raw('POST', '/user/keys', { title: 'k', key: key.pub }, { token: alice.token })).status).to.equal(201);
    fs.renameSync(dir, `${dir}.away`);
    try {
      const message = 'repository alice/gone cannot be read: its directory is missing';
      for (const p of ['branches', 'branches/main', 'commits', 'contents/README.md', 'raw/README.md', 'archive/main.zip', 'git/refs', 'tags', 'languages']) {
        const r = await w.raw('GET', `/repos/alice/gone/${p}`, undefined, { token: alice.token });
        expect(r.status, `${p}: ${r.text}`).to.equal(500);
        expect(r.body.message, p).to.equal(message);
      }
      expect(w.server.output).to.include(`directory ${dir} does not exist`);
      const http = await g(['clone', '-q', url('gone'), path.join(tmp, 'http-clone')]);
      expect(http.code).to.not.equal(0);
      expect(http.stderr).to.include(`remote error: ${message}`);
      const ssh = await g(['clone', '-q', `ssh://git@127.0.0.1:${w.server.sshPort}/alice/gone.git`, path.join(tmp, 'ssh-clone')], undefined, { GIT_SSH_COMMAND: gitSshCommand(w.server.sshPort, key) });
      expect(ssh.code).to.not.equal(0);
      expect(ssh.stderr).to.include(message);
    } finally {
      fs.renameSync(`${dir}.away`, dir);
    }
    expect((await w.raw('GET', '/repos/alice/gone/contents/README.md', undefined, { token: alice.token })).status).to.equal(200);
  });

  it('answers a damaged pack with a logged 500 naming the damage, never a 404', async () => {
    const dir = await repo('damaged');
    const work = path.join(tmp, 'damaged');
    ok(await g(['clone', '-q', url('damaged'), work]));
    for (let i = 0; i < 3; i++) {
      fs.writeFileSync(path.join(work, `f${i}.txt`), crypto.randomBytes(20_000).toString('hex'));
      ok(await g(['add', '.'], work));
      ok(await g(['commit', '-qm', `file ${i}`], work));
    }
    ok(await g(['push', '-q', 'origin', 'main'], work));
    const head = ok(await g(['rev-parse', 'HEAD'], work)).stdout.trim();
    await waitFor('the push to be processed', async () => (await w.raw('GET', '/repos/alice/damaged/branches/main', undefined, { token: alice.token })).body?.commit?.id === head);
    // the objects go into one pack, which then loses its second half
    execFileSync('git', ['--git-dir', dir, 'repack', '-adq']);
    const pack = fs.readdirSync(path.join(dir, 'objects', 'pack')).find((f) => f.endsWith('.pack'))!;
    const packFile = path.join(dir, 'objects', 'pack', pack);
    fs.truncateSync(packFile, Math.floor(fs.statSync(packFile).size / 2));
    // why: a long-running reader the server started before the repack (cat-file --batch, kept for
    // 30 s) still holds the packs repack removed and reads the objects from them; stop it, so
    // every read meets the damage as it would once that reader was gone.
    const readers = () => processes().filter((p) => p.args.includes(`--git-dir=${dir}`)).map((p) => p.pid);
    for (const pid of readers()) {
      try { process.kill(pid, 'SIGKILL'); } catch { /* it ended by itself meanwhile */ }
    }
    await waitFor('the old readers to end', async () => readers().length === 0);
    // why: the server hears of its reader's end a moment after it is gone from the process table.
    await waitFor('a read to meet the damage', async () => (await w.raw('GET', `/repos/alice/damaged/git/commits/${head}`, undefined, { token: alice.token })).status === 500);
    const message = 'repository alice/damaged cannot be read: its object database is damaged';
    for (const p of [`git/commits/${head}`, 'contents/f2.txt', 'raw/f1.txt', 'archive/main.tar.gz', `commits?sha=${head}`]) {
      const r = await w.raw('GET', `/repos/alice/damaged/${p}`, undefined, { token: alice.token });
      expect(r.status, `${p}: ${r.text}`).to.equal(500);
      expect(r.body.message, p).to.equal(message);
    }
    expect(w.server.output).to.include('does not match index');
    const clone = await g(['clone', '-q', url('damaged'), path.join(tmp, 'damaged-clone')]);
    expect(clone.code).to.not.equal(0);
  });

  it('removes the quarantine of a push killed mid-way at the next start', async () => {
    const dir = await repo('killed');
    const work = path.join(tmp, 'killed');
    ok(await g(['clone', '-q', url('killed'), work]));
    fs.writeFileSync(path.join(work, 'big.bin'), crypto.randomBytes(40 * 1024 * 1024));
    ok(await g(['add', '.'], work));
    ok(await g(['commit', '-qm', 'forty megabytes'], work));
    const push = g(['push', '-q', 'origin', 'main'], work);
    const quarantines = () => fs.readdirSync(path.join(dir, 'objects')).filter((d) => d.startsWith('tmp_objdir-incoming-'));
    // the push is receiving into its quarantine when its receive-pack is killed
    let pid = 0;
    await waitFor('receive-pack to receive', async () => {
      pid = processes().find((p) => p.args.includes('receive-pack') && p.args.includes(dir))?.pid ?? 0;
      return pid > 0 && quarantines().length > 0;
    });
    // receive-pack and the unpacker it started die at once, as in a crash of the machine
    const tree = (root: number): number[] => [root, ...processes().filter((p) => p.ppid === root).flatMap((p) => tree(p.pid))];
    for (const p of tree(pid)) process.kill(p, 'SIGKILL');
    expect((await push).code).to.not.equal(0);
    const left = quarantines();
    expect(left).to.have.length(1);
    // older than any push could be, it goes at the next start on every kind of node
    const old = new Date(Date.now() - 2 * 3600_000);
    const age = (p: string) => { for (const e of fs.readdirSync(p, { recursive: true }) as string[]) fs.utimesSync(path.join(p, e), old, old); fs.utimesSync(p, old, old); };
    age(path.join(dir, 'objects', left[0]));
    await w.server.stop();
    await w.server.start();
    await waitFor('the leftover to be removed', async () => quarantines().length === 0);
    await waitFor('the removal to be logged', async () => w.server.output.includes('removed 1 quarantine directory left by interrupted pushes'));
  });

  it('lets the git launcher of a killed worker end quietly once its git is done', async () => {
    const dir = await repo('bigfile');
    const work = path.join(tmp, 'bigfile');
    ok(await g(['clone', '-q', url('bigfile'), work]));
    fs.writeFileSync(path.join(work, 'big.bin'), crypto.randomBytes(20 * 1024 * 1024));
    ok(await g(['add', '.'], work));
    ok(await g(['commit', '-qm', 'twenty megabytes'], work));
    ok(await g(['push', '-q', 'origin', 'main'], work));
    // a raw download whose client stops reading keeps a git child of a worker's launcher busy
    const res = await fetch(`${w.server.api}/repos/alice/bigfile/raw/big.bin?ref=main`, { headers: { Authorization: `token ${alice.token}` } });
    expect(res.status).to.equal(200);
    const reader = res.body!.getReader();
    await reader.read();
    let git: ReturnType<typeof processes>[number] | undefined;
    await waitFor('the blob being sent', async () => { git = processes().find((p) => p.args.includes(dir) && p.args.includes('cat-file blob')); return !!git; });
    const launcher = processes().find((p) => p.pid === git!.ppid)!;
    expect(launcher.args).to.include('launcher-process');
    const worker = launcher.ppid;
    const before = w.server.output.length;
    process.kill(worker, 'SIGKILL');
    await waitFor('the orphaned launcher to exit', async () => !processes().some((p) => p.pid === launcher.pid || p.pid === git!.pid));
    await waitFor('a new worker', async () => w.server.output.slice(before).includes('starting another'));
    await reader.cancel().catch(() => undefined);
    expect(w.server.output.slice(before)).to.not.match(/ERR_IPC_CHANNEL_CLOSED|launcher-process/);
    await waitFor('the forge to answer', async () => (await w.raw('GET', '/version').catch(() => ({ status: 0 }))).status === 200);
  });
});
