/**
 * `forge doctor check`: every check finds its drift (hooks altered or missing, quarantine leftovers,
 * repository rows without directories and the reverse, missing LFS objects, branch tables behind
 * git) without changing anything; `--fix` repairs what is safe and leaves the rest reported.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { startWorld, type World, type TestUser } from '../helpers/world';
import { apiRepo, GitTool } from '../helpers/refs';
import { serverRepoDir } from '../helpers/repo-fixture';
import { sql } from '../helpers/db';

describe('forge doctor', function () {
  this.timeout(120_000);
  let w: World;
  let alice: TestUser;
  let g: GitTool;
  let projId: number;
  const doctor = (...args: string[]) => w.server.cli(['doctor', 'check', ...args]);
  const branchRow = async () => (await sql(w.server, "SELECT commit_id FROM branch WHERE repo_id = $1 AND name = 'main'", [projId]))[0].commit_id as string;

  before(async () => {
    w = await startWorld();
    alice = await w.user('alice');
    g = new GitTool(w);
    projId = await apiRepo(w, alice, 'proj');
    await apiRepo(w, alice, 'gone');
    await apiRepo(w, alice, 'lfsrepo');
    const put = async (file: string, content: string | Buffer) => {
      const r = await w.raw('POST', `/repos/alice/lfsrepo/contents/${file}`, { content: Buffer.from(content).toString('base64') }, { token: alice.token });
      expect(r.status, r.text).to.equal(201);
    };
    await put('.gitattributes', '*.bin filter=lfs diff=lfs merge=lfs -text\n');
    await put('big.bin', Buffer.alloc(2000, 3));
  });
  after(async () => { await w?.stop(); });

  it('lists its checks, and finds nothing wrong on a healthy forge', async () => {
    const list = await w.server.cli(['doctor', 'check', '--list']);
    expect(list.code, list.stderr).to.equal(0);
    expect(list.stdout.split('\n').map((l) => l.split(/ +/).filter(Boolean)).filter((p) => p[0] === '*').map((p) => p[1]))
      .to.deep.equal(['paths', 'storage-repositories', 'hooks', 'quarantine', 'storage-lfs', 'synchronize-repo-heads']);
    const out = await doctor();
    expect(out.code, out.stdout + out.stderr).to.equal(0);
    expect(out.stdout).to.include('\n[1] Check paths and basic configuration\n');
    expect(out.stdout.match(/^OK$/gm)).to.have.length(6);
    expect(out.stdout).to.include(' - [I] 3 repositories\n');
    expect(out.stdout).to.include(' - [I] 1 LFS links\n');
    expect(out.stdout.trimEnd().endsWith('All done (checks: 6).')).to.equal(true);
  });

  it('reports drift without changing anything, then fixes what is safe with --fix', async () => {
    const proj = serverRepoDir(w.server, 'alice', 'proj');
    const goodHook = fs.readFileSync(path.join(proj, 'hooks', 'pre-receive'), 'utf8');
    fs.rmSync(path.join(proj, 'hooks', 'post-receive'));
    fs.writeFileSync(path.join(proj, 'hooks', 'pre-receive'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    const quarantine = path.join(proj, 'objects', 'tmp_objdir-incoming-doctor');
    fs.mkdirSync(quarantine);
    fs.writeFileSync(path.join(quarantine, 'pack'), 'x');
    const old = new Date(Date.now() - 2 * 3600_000);
    fs.utimesSync(path.join(quarantine, 'pack'), old, old);
    fs.utimesSync(quarantine, old, old);
    const gone = serverRepoDir(w.server, 'alice', 'gone');
    fs.renameSync(gone, `${gone}.away`);
    const stray = path.join(path.dirname(proj), 'stray.git');
    fs.mkdirSync(stray);
    const lfsObjects = path.join(w.server.dataDir, 'lfs');
    const oidFile = (dir: string): string => {
      for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        const p = path.join(dir, e.name);
        if (e.isDirectory()) { const f = oidFile(p); if (f) return f; } else if (/^[0-9a-f]{64}$/.test(e.name)) return p;
      }
      return '';
    };
    const lfsFile = oidFile(lfsObjects);
    fs.renameSync(lfsFile, `${lfsFile}.away`);
    const recorded = await branchRow();
    const behind = await g.bare('alice', 'proj', ['commit-tree', '-p', 'main', '-m', 'made behind the server', 'main^{tree}']);
    await g.bare('alice', 'proj', ['update-ref', 'refs/heads/main', behind]);

    const report = await doctor();
    expect(report.code).to.equal(1);
    for (const line of [
      ` - [E] repository alice/gone (id `, ` - [E] directory ${stray} belongs to no repository`,
      ' - [E] alice/proj: hooks missing or altered: pre-receive, post-receive', ` - [E] left by an interrupted push: ${quarantine}`,
      ' is missing from ', ' - [E] alice/proj: 1 ref out of step with git (refs/heads/main)',
    ]) expect(report.stdout, line).to.include(line);
    expect(report.stdout.match(/^ERROR$/gm)).to.have.length(5);
    // nothing changed
    expect(fs.existsSync(path.join(proj, 'hooks', 'post-receive'))).to.equal(false);
    expect(fs.existsSync(quarantine)).to.equal(true);
    expect(await branchRow()).to.equal(recorded);

    const fixed = await doctor('--fix');
    expect(fixed.code).to.equal(1);
    for (const line of [' - [W] fixed: alice/proj: hooks missing or altered', ` - [W] fixed: left by an interrupted push: ${quarantine}`,
      ' - [W] fixed: alice/proj: 1 ref out of step with git']) expect(fixed.stdout, line).to.include(line);
    expect(fs.readFileSync(path.join(proj, 'hooks', 'pre-receive'), 'utf8')).to.equal(goodHook);
    expect(fs.statSync(path.join(proj, 'hooks', 'post-receive')).mode & 0o111).to.equal(0o111);
    expect(fs.existsSync(quarantine)).to.equal(false);
    expect(await branchRow()).to.equal(behind);
    // what it may not repair stays reported, and untouched
    expect(fixed.stdout).to.include(` - [E] directory ${stray} belongs to no repository`);
    expect(fs.existsSync(stray)).to.equal(true);

    const safe = await doctor('--run', 'hooks,quarantine', '--run', 'synchronize-repo-heads');
    expect(safe.code, safe.stdout).to.equal(0);
    expect(safe.stdout.match(/^OK$/gm)).to.have.length(3);

    fs.renameSync(`${gone}.away`, gone);
    fs.rmdirSync(stray);
    fs.renameSync(`${lfsFile}.away`, lfsFile);
    expect((await doctor()).code).to.equal(0);
  });

  it('refuses an unknown check or subcommand with a message', async () => {
    const bad = await doctor('--run', 'nope');
    expect(bad.code).to.equal(1);
    expect(bad.stderr).to.equal('Command error: unknown check: nope (forge doctor check --list names them)\n');
    const sub = await w.server.cli(['doctor', 'frobnicate']);
    expect(sub.code).to.equal(2);
    expect(sub.stderr).to.include('unknown doctor command: frobnicate');
  });
});
