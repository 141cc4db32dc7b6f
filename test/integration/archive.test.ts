/**
 * Repository archives: zip and tar.gz byte-identical to `git archive` of the same commit, bundles
 * that git can clone, the cache (served with a length, built once under concurrency, evicted when
 * full), refs with slashes, and the refusals.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { expect } from 'chai';
import { startWorld, type World, type TestUser } from '../helpers/world';
import { git, gitHome, serverRepoDir, type GitResult } from '../helpers/repo-fixture';
import { waitFor } from '../helpers/refs';
import { sql } from '../helpers/db';

let w: World;
let alice: TestUser;
let home: string;

const ok = (r: GitResult) => { expect(r.code, r.stderr).to.equal(0); return r; };
const g = (args: string[], cwd?: string) => git(args, { cwd, home });
const url = (repo: string) => `http://alice:${alice.token}@${new URL(w.server.url).host}/alice/${repo}.git`;
const get = async (p: string, token: string | null = alice.token) => {
  const res = await fetch(`${w.server.api}${p}`, { headers: token ? { Authorization: `token ${token}` } : {} });
  return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
};
const rawArchive = (repo: string, commit: string, format: string) =>
  execFileSync('git', ['--git-dir', serverRepoDir(w.server, 'alice', repo), 'archive', `--format=${format}`, `--prefix=${repo}/`, commit], { maxBuffer: 64 << 20 });
const waitProcessed = async (repo: string) => {
  for (let i = 0; i < 400; i++) {
    if ((await w.raw('GET', `/repos/alice/${repo}`, undefined, { token: alice.token })).body.empty === false) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('push not processed');
};

describe('archives', () => {
  let bob: TestUser;
  let tmp: string;
  let head: string;
  let d: string;

  const cacheFiles = (repoId: number) => {
    const dir = path.join(w.server.dataDir, 'repo-archive', String(repoId));
    return fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => !f.endsWith('.tmp')) : [];
  };
  let repoId: number;

  before(async () => {
    w = await startWorld({ env: { 'FORGE__REPO-ARCHIVE__MAX_SIZE': '1' } });
    alice = await w.user('alice');
    bob = await w.user('bob');
    home = gitHome();
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'forge-archive-'));
    repoId = (await w.raw('POST', '/user/repos', { name: 'arch' }, { token: alice.token })).body.id;
    d = path.join(tmp, 'work');
    ok(await g(['init', '-q', '-b', 'main', d]));
    fs.mkdirSync(path.join(d, 'src'));
    fs.writeFileSync(path.join(d, 'README.md'), '# arch\n');
    fs.writeFileSync(path.join(d, 'src', 'main.c'), 'int main(void) { return 0; }\n');
    ok(await g(['add', '.'], d));
    ok(await g(['commit', '-qm', 'one'], d));
    head = ok(await g(['rev-parse', 'HEAD'], d)).stdout.trim();
    ok(await g(['branch', 'release/v1'], d));
    ok(await g(['tag', 'v1.0'], d));
    ok(await g(['push', '-q', url('arch'), 'main', 'release/v1', 'v1.0'], d));
    await waitProcessed('arch');
  });
  after(async () => { await w?.stop(); });

  it('serves zip and tar.gz identical to git archive, with Gitea\'s file name, then from the cache with a length', async () => {
    for (const [ext, format, type] of [['zip', 'zip', 'application/zip'], ['tar.gz', 'tar.gz', 'application/gzip']]) {
      const first = await get(`/repos/alice/arch/archive/main.${ext}`);
      expect(first.status).to.equal(200);
      expect(first.headers.get('content-type')).to.equal(type);
      expect(first.headers.get('content-disposition')).to.equal(`attachment; filename="arch-main.${ext}"`);
      expect(first.body.equals(rawArchive('arch', head, format)), ext).to.equal(true);
      const again = await get(`/repos/alice/arch/archive/${head}.${ext}`);
      expect(again.headers.get('content-length')).to.equal(String(first.body.length));
      expect(again.body.equals(first.body)).to.equal(true);
    }
    expect(cacheFiles(repoId)).to.have.length(2);
  });

  it('serves a bundle git can clone, and refs with slashes and tags', async () => {
    const b = await get('/repos/alice/arch/archive/release/v1.bundle');
    expect(b.status).to.equal(200);
    expect(b.headers.get('content-disposition')).to.equal('attachment; filename="arch-release-v1.bundle"');
    const file = path.join(tmp, 'x.bundle');
    fs.writeFileSync(file, b.body);
    expect(ok(await g(['bundle', 'list-heads', file], tmp)).stdout).to.contain(`${head} refs/heads/main`);
    const clone = path.join(tmp, 'from-bundle');
    ok(await g(['clone', '-q', file, clone]));
    expect(ok(await g(['rev-parse', 'HEAD'], clone)).stdout.trim()).to.equal(head);
    const t = await get('/repos/alice/arch/archive/v1.0.tar.gz');
    expect(t.status).to.equal(200);
    expect(t.headers.get('content-disposition')).to.equal('attachment; filename="arch-v1.0.tar.gz"');
  });

  it('builds an archive once for concurrent requests', async () => {
    fs.writeFileSync(path.join(d, 'more.txt'), 'more\n');
    ok(await g(['add', '.'], d));
    ok(await g(['commit', '-qm', 'two'], d));
    const two = ok(await g(['rev-parse', 'HEAD'], d)).stdout.trim();
    ok(await g(['push', '-q', url('arch'), 'main'], d));
    // every build writes a temporary file of its own before the rename; count them
    const builds = new Set<string>();
    const watcher = fs.watch(path.join(w.server.dataDir, 'repo-archive', String(repoId)), (_event, name) => {
      if (name && name.startsWith(two) && name.endsWith('.tmp')) builds.add(name);
    });
    const all = await Promise.all(Array.from({ length: 6 }, () => get(`/repos/alice/arch/archive/${two}.zip`)));
    watcher.close();
    for (const r of all) {
      expect(r.status).to.equal(200);
      expect(r.body.equals(all[0].body)).to.equal(true);
    }
    expect(all[0].body.equals(rawArchive('arch', two, 'zip'))).to.equal(true);
    expect(builds.size).to.equal(1);
    expect(cacheFiles(repoId).filter((f) => f.startsWith(two))).to.have.length(1);
  });

  it('evicts the least recently served archives when the cache passes MAX_SIZE', async () => {
    // each commit carries 600 KB of incompressible data; two archives pass the 1 MB bound
    const ids: string[] = [];
    for (let i = 0; i < 2; i++) {
      fs.writeFileSync(path.join(d, 'blob.bin'), crypto.randomBytes(600 * 1024));
      ok(await g(['add', '.'], d));
      ok(await g(['commit', '-qm', `big ${i}`], d));
      ids.push(ok(await g(['rev-parse', 'HEAD'], d)).stdout.trim());
    }
    ok(await g(['push', '-q', url('arch'), 'main'], d));
    expect((await get(`/repos/alice/arch/archive/${ids[0]}.tar.gz`)).status).to.equal(200);
    await new Promise((r) => setTimeout(r, 5200));
    expect((await get(`/repos/alice/arch/archive/${ids[1]}.tar.gz`)).status).to.equal(200);
    let files: string[] = [];
    for (let i = 0; i < 100; i++) {
      files = cacheFiles(repoId);
      if (!files.some((f) => f.startsWith(ids[0]))) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(files.some((f) => f.startsWith(ids[0]))).to.equal(false);
    expect(files.some((f) => f.startsWith(ids[1]))).to.equal(true);
    // an evicted archive is simply built again
    expect((await get(`/repos/alice/arch/archive/${ids[0]}.tar.gz`)).status).to.equal(200);
  });

  it('refuses missing refs, unknown formats, hostile refs, empty and unreadable repositories', async () => {
    const missing = await get('/repos/alice/arch/archive/nope.zip');
    expect(missing.status).to.equal(404);
    expect((await get('/repos/alice/arch/archive/main.rar')).status).to.equal(404);
    expect((await get('/repos/alice/arch/archive/.zip')).status).to.equal(404);
    // a commit no branch or tag reaches any more (force-pushed away) is not served by id
    const bare = serverRepoDir(w.server, 'alice', 'arch');
    const orphan = execFileSync('git', ['--git-dir', bare, 'commit-tree', '-m', 'orphan', `${head}^{tree}`], { env: { ...process.env, GIT_AUTHOR_NAME: 'x', GIT_AUTHOR_EMAIL: 'x@x', GIT_COMMITTER_NAME: 'x', GIT_COMMITTER_EMAIL: 'x@x' } }).toString().trim();
    expect((await get(`/repos/alice/arch/archive/${orphan}.zip`)).status).to.equal(404);
    const hostile = await get('/repos/alice/arch/archive/--output=x.zip');
    expect(hostile.status).to.equal(400);
    await w.raw('POST', '/user/repos', { name: 'hollow' }, { token: alice.token });
    const empty = await get('/repos/alice/hollow/archive/main.zip');
    expect(empty.status).to.equal(404);
    expect(JSON.parse(empty.body.toString()).message).to.equal('Git Repository is empty.');
    await w.raw('PATCH', '/repos/alice/arch', { private: true }, { token: alice.token });
    expect((await get('/repos/alice/arch/archive/main.zip', bob.token)).status).to.equal(404);
    expect((await get('/repos/alice/arch/archive/main.zip', null)).status).to.equal(404);
    expect((await get('/repos/alice/arch/archive/main.zip')).status).to.equal(200);
  });

  it('serves a commit by id only while a branch or tag reaches it, across pushes', async () => {
    const side = path.join(tmp, 'side');
    ok(await g(['clone', '-q', url('arch'), side]));
    fs.writeFileSync(path.join(side, 'side.txt'), 'side\n');
    ok(await g(['add', '.'], side));
    ok(await g(['commit', '-qm', 'side'], side));
    const commit = ok(await g(['rev-parse', 'HEAD'], side)).stdout.trim();
    // why: the branch table, not the listing (which hides a branch git no longer has at once), says the push was processed
    const live = async () => (await sql(w.server, "SELECT is_deleted FROM branch WHERE repo_id = $1 AND name = 'side'", [repoId])).some((r) => !r.is_deleted);
    const waitBranches = (has: boolean) => waitFor(`branch side ${has ? 'to appear' : 'to go'}`, async () => (await live()) === has);
    // pushed objects without a ref: not served
    ok(await g(['push', '-q', url('arch'), `${commit}:refs/heads/side`], side));
    ok(await g(['push', '-q', url('arch'), ':side'], side));
    await waitBranches(false);
    expect((await get(`/repos/alice/arch/archive/${commit}.zip`)).status).to.equal(404);
    // a branch reaches it: served, and the answer is remembered
    // (in a cluster, the other workers hear of the processed push over the bus a moment later)
    const answers = (status: number) => waitFor(`the archives to answer ${status}`, async () => {
      for (const ext of ['zip', 'tar.gz']) if ((await get(`/repos/alice/arch/archive/${commit}.${ext}`)).status !== status) return false;
      return true;
    });
    ok(await g(['push', '-q', url('arch'), `${commit}:refs/heads/side`], side));
    await waitBranches(true);
    await answers(200);
    // the branch is deleted: no longer served, although the archive is in the cache
    ok(await g(['push', '-q', url('arch'), ':side'], side));
    await waitBranches(false);
    await answers(404);
  });

  it('deleting the repository removes its cached archives', async () => {
    expect(cacheFiles(repoId).length).to.be.greaterThan(0);
    expect((await w.raw('DELETE', '/repos/alice/arch', undefined, { token: alice.token })).status).to.equal(204);
    expect(cacheFiles(repoId)).to.deep.equal([]);
  });
});

describe('archives larger than the copy buffer', () => {
  const commits: string[] = [];

  before(async () => {
    w = await startWorld();
    alice = await w.user('alice');
    home = gitHome();
    await w.raw('POST', '/user/repos', { name: 'big' }, { token: alice.token });
    const d = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'forge-archive-big-')), 'work');
    ok(await g(['init', '-q', '-b', 'main', d]));
    // incompressible content, so each archive is several times the 1 MB copy buffer
    for (const round of [1, 2]) {
      for (const name of ['a.bin', 'b.bin']) fs.writeFileSync(path.join(d, name), crypto.randomBytes(1536 * 1024));
      ok(await g(['add', '.'], d));
      ok(await g(['commit', '-qm', `round ${round}`], d));
      commits.push(ok(await g(['rev-parse', 'HEAD'], d)).stdout.trim());
    }
    ok(await g(['push', '-q', url('big'), 'main'], d));
    await waitProcessed('big');
  });
  after(async () => { await w?.stop(); });

  it('serves concurrent downloads of several archives, while built and then from the cache, each identical to git archive', async () => {
    // why: downloads share copy buffers one after another; a buffer handed on too early would mix archives.
    const archives = commits.flatMap((c) => ['zip', 'tar.gz'].map((f) => ({ c, f, raw: rawArchive('big', c, f) })));
    expect(archives[0].raw.length).to.be.greaterThan(3 << 20);
    for (const phase of ['built', 'cached']) {
      const got = await Promise.all(archives.flatMap((a) => Array.from({ length: 4 }, () => get(`/repos/alice/big/archive/${a.c}.${a.f}`).then((r) => ({ a, r })))));
      for (const { a, r } of got) {
        expect(r.status, phase).to.equal(200);
        expect(r.body.equals(a.raw), `${phase} ${a.c}.${a.f}`).to.equal(true);
      }
    }
  });
});
