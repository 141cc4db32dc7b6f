/**
 * Hostile repositories cost bounded work: a "git bomb" (a commit of 10^10 paths in a few
 * kilobytes) is listed up to [git] MAX_TREE_ENTRIES; what git cannot compute without holding all
 * of it (the commit's diff and stats, its archive) ends at [git] PROCESS_MEMORY_LIMIT with a 413;
 * git started for a read dies with its client; an archive stops at [repo-archive]
 * MAX_ARCHIVE_SIZE; refused archives are refused at once from then on.
 */
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { startWorld, type World, type TestUser } from '../helpers/world';
import { git, gitHome, serverRepoDir } from '../helpers/repo-fixture';
import { waitFor } from '../helpers/refs';
import { makeBomb } from '../helpers/bomb';

const MAX_TREE_ENTRIES = 5000;
const MEMORY_MB = 256;
/** How long the slowest test here may take: git reaching PROCESS_MEMORY_LIMIT beside a busy suite. */
const TEST_SECONDS = 600;

/** Command lines of the running git processes working in `gitDir`. */
function gitProcessesIn(gitDir: string): string[] {
  const out = execFileSync('ps', ['-eo', 'args='], { maxBuffer: 16 << 20 }).toString();
  return out.split('\n').filter((l) => /^(\S*\/)?git\b/.test(l.trim()) && l.includes(gitDir));
}

/** The pids of running git processes in `gitDir` whose command line includes `word`. */
function gitPidsIn(gitDir: string, word: string): number[] {
  const out = execFileSync('ps', ['-eo', 'pid=,args='], { maxBuffer: 16 << 20 }).toString();
  return out.split('\n').map((l) => l.trim()).filter((l) => l.includes(gitDir) && l.includes(word) && / git\b|\/git /.test(` ${l}`))
    .map((l) => Number(l.split(/\s+/)[0]));
}

describe('git bombs', () => {
  /**
   * GET as a patient client would: no header or body timeout (fetch gives up after 300 s, and a
   * nice-10 git beside a busy suite can take that long to reach its memory limit). Answers the
   * status, the body's text, the bytes received, and whether the answer broke off.
   */
  const patient = (p: string) => new Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string; received: number; broke: boolean }>((resolve, reject) => {
    const req = http.get(`${w.server.api}${p}`, { headers: { Authorization: `token ${alice.token}` } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', () => undefined);
      res.on('close', () => {
        const body = Buffer.concat(chunks);
        resolve({ status: res.statusCode!, headers: res.headers, text: body.toString(), received: body.length, broke: !res.complete });
      });
    });
    req.on('error', reject);
  });
  let w: World;
  let alice: TestUser;
  let bombDir: string;
  let commit: string;

  before(async () => {
    w = await startWorld({ env: {
      'FORGE__REPO-ARCHIVE__MAX_ARCHIVE_SIZE': '1', FORGE__GIT__MAX_TREE_ENTRIES: String(MAX_TREE_ENTRIES), FORGE__GIT__PROCESS_MEMORY_LIMIT: String(MEMORY_MB),
      // why: at niceness 19 beside a busy suite on two cores, the bomb's archive took over 15 minutes to reach its memory bound.
      FORGE__GIT__BACKGROUND_NICENESS: '0',
    } });
    alice = await w.user('alice');
    expect((await w.raw('POST', '/user/repos', { name: 'bomb' }, { token: alice.token })).status).to.equal(201);
    const made = makeBomb(10);
    commit = made.commit;
    const url = `http://alice:${alice.token}@${new URL(w.server.url).host}/alice/bomb.git`;
    const r = await git(['--git-dir', made.dir, 'push', '-q', url, 'main'], { home: gitHome() });
    expect(r.code, r.stderr).to.equal(0);
    bombDir = serverRepoDir(w.server, 'alice', 'bomb');
    await waitFor('the push to be processed', async () => (await w.raw('GET', '/repos/alice/bomb', undefined, { token: alice.token })).body.empty === false);
  });
  after(() => w.stop());

  it('lists a recursive tree page by page, counting at most MAX_TREE_ENTRIES and saying it is truncated', async () => {
    const first = await w.raw('GET', '/repos/alice/bomb/git/trees/main?recursive=true&per_page=100', undefined, { token: alice.token });
    expect(first.status, first.text).to.equal(200);
    expect(first.body).to.include({ truncated: true, total_count: MAX_TREE_ENTRIES, page: 1 });
    expect(first.body.tree).to.have.length(100);
    expect(first.body.tree[0]).to.include({ path: 'd0', type: 'tree' });
    // the last page inside the bound is served; past it there is nothing
    const last = await w.raw('GET', `/repos/alice/bomb/git/trees/main?recursive=true&per_page=100&page=${MAX_TREE_ENTRIES / 100}`, undefined, { token: alice.token });
    expect(last.body.tree).to.have.length(100);
    const past = await w.raw('GET', `/repos/alice/bomb/git/trees/main?recursive=true&per_page=100&page=${MAX_TREE_ENTRIES / 100 + 1}`, undefined, { token: alice.token });
    expect(past.status).to.equal(200);
    expect(past.body.tree).to.equal(null);
    expect(past.body.truncated).to.equal(true);
    // the walk is over: no ls-tree keeps running
    await waitFor('ls-tree to end', async () => gitPidsIn(bombDir, 'ls-tree').length === 0);
  });

  it('answers the languages and the root listing with a bounded walk', async () => {
    const langs = await w.raw('GET', '/repos/alice/bomb/languages', undefined, { token: alice.token });
    expect(langs.status, langs.text).to.equal(200);
    expect(langs.body).to.deep.equal({});
    const root = await w.raw('GET', '/repos/alice/bomb/contents', undefined, { token: alice.token });
    expect(root.status, root.text).to.equal(200);
    expect(root.body.map((e: { name: string }) => e.name)).to.deep.equal(['d0', 'd1', 'd2', 'd3', 'd4', 'd5', 'd6', 'd7', 'd8', 'd9']);
    await waitFor('log to end', async () => gitPidsIn(bombDir, ' log ').length === 0);
  });

  it('refuses what git cannot compute within PROCESS_MEMORY_LIMIT (413) and lists the commit without it', async function () {
    // why: git must reach PROCESS_MEMORY_LIMIT first; beside a busy suite on two cores that can
    // take minutes (about 10 s on a quiet machine).
    this.timeout(TEST_SECONDS * 1000);
    const full = await patient('/repos/alice/bomb/commits?limit=1');
    expect(full.status, full.text).to.equal(413);
    expect(JSON.parse(full.text).message).to.equal(`the answer of git diff-tree needs more memory than [git] PROCESS_MEMORY_LIMIT (${MEMORY_MB} MB) allows`);
    const bare = await w.raw('GET', '/repos/alice/bomb/commits?limit=1&stat=false&files=false', undefined, { token: alice.token });
    expect(bare.status, bare.text).to.equal(200);
    expect(bare.body.map((c: { sha: string }) => c.sha)).to.deep.equal([commit]);
  });

  it('kills the git of a read when its client goes away', async () => {
    // git show of the bomb collects every path before it writes a byte; the client leaves while it does
    const req = http.get(`${w.server.api}/repos/alice/bomb/git/commits/${commit}.diff`, { headers: { Authorization: `token ${alice.token}` } });
    req.on('error', () => undefined);
    let pid = 0;
    await waitFor('git show to start', async () => { [pid] = gitPidsIn(bombDir, 'show'); return !!pid; });
    req.destroy();
    // sampled until it is gone: killed at once, it never comes near the limit it would die of unattended
    let peakKb = 0;
    await waitFor('git show to be killed', async () => {
      try {
        const m = /VmData:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
        peakKb = Math.max(peakKb, Number(m?.[1] ?? 0));
        return false;
      } catch {
        return true;
      }
    });
    expect(peakKb).to.be.below(MEMORY_MB * 1024 / 2);
  });

  it('refuses the archive of the bomb with 413, at once from then on', async function () {
    // why: git must reach PROCESS_MEMORY_LIMIT first, once for each format; beside a busy suite on
    // two cores that took 226 s (16 s on a quiet machine).
    this.timeout(TEST_SECONDS * 1000);
    const refused = async (p: string) => {
      const r = await patient(`/repos/alice/bomb/archive/${p}`);
      expect(r.status, r.text).to.equal(413);
      expect(JSON.parse(r.text).message).to.equal(`the archive of alice/bomb at ${p.replace(/\.(tar\.gz|zip)$/, '')} needs more memory than [git] PROCESS_MEMORY_LIMIT (${MEMORY_MB} MB) allows`);
      expect(r.headers['content-disposition']).to.equal(undefined);
    };
    // tar.gz: git fails before its first byte, so even the first client gets the 413
    await refused('main.tar.gz');
    await refused('main.tar.gz');
    // zip: git writes the first entry before it runs out, so the first answer breaks off; then 413
    const first = await patient(`/repos/alice/bomb/archive/${commit}.zip`);
    expect(first).to.include({ status: 200, broke: true });
    await refused(`${commit}.zip`);
    expect(gitProcessesIn(bombDir).filter((l) => l.includes('archive'))).to.deep.equal([]);
  });

  it('stops an archive at MAX_ARCHIVE_SIZE, keeps nothing of it, and refuses it from then on with 413', async () => {
    const big = (await w.raw('POST', '/user/repos', { name: 'big' }, { token: alice.token })).body.id as number;
    const work = fs.mkdtempSync(path.join(os.tmpdir(), 'forge-big-'));
    const home = gitHome();
    const ok = async (args: string[]) => { const r = await git(args, { cwd: work, home }); expect(r.code, r.stderr).to.equal(0); };
    await ok(['init', '-q', '-b', 'main', '.']);
    fs.writeFileSync(path.join(work, 'noise.bin'), crypto.randomBytes(3 * 1024 * 1024));
    await ok(['add', '.']);
    await ok(['commit', '-qm', 'three megabytes of noise']);
    await ok(['push', '-q', `http://alice:${alice.token}@${new URL(w.server.url).host}/alice/big.git`, 'main']);
    await waitFor('the push to be processed', async () => (await w.raw('GET', '/repos/alice/big', undefined, { token: alice.token })).body.empty === false);
    // the first client is streamed the archive while it is built, and its answer breaks off at the bound
    const first = await patient('/repos/alice/big/archive/main.zip');
    expect(first).to.include({ status: 200, broke: true });
    expect(first.received).to.be.at.most(1024 * 1024);
    const again = await w.raw('GET', '/repos/alice/big/archive/main.zip', undefined, { token: alice.token });
    expect(again.status, again.text).to.equal(413);
    expect(again.body.message).to.equal('the archive of alice/big at main is larger than [repo-archive] MAX_ARCHIVE_SIZE (1 MB)');
    const cache = path.join(w.server.dataDir, 'repo-archive', String(big));
    expect(fs.readdirSync(cache).filter((f) => !f.endsWith('.toolarge'))).to.deep.equal([]);
    // a small archive of the same repository's other branch is still served under the same bound
    expect((await w.raw('POST', '/user/repos', { name: 'small', auto_init: true }, { token: alice.token })).status).to.equal(201);
    const small = await fetch(`${w.server.api}/repos/alice/small/archive/main.zip`, { headers: { Authorization: `token ${alice.token}` } });
    expect(small.status).to.equal(200);
    expect((await small.arrayBuffer()).byteLength).to.be.greaterThan(100);
  });

  it('runs git children under [git] PROCESS_MEMORY_LIMIT', async () => {
    // reading a file leaves the repository's cat-file process running for later reads
    expect((await w.raw('GET', '/repos/alice/small/contents/README.md', undefined, { token: alice.token })).status).to.equal(200);
    const pids = gitPidsIn(serverRepoDir(w.server, 'alice', 'small'), 'cat-file');
    expect(pids, 'a running cat-file').to.not.be.empty;
    for (const pid of pids) {
      const line = fs.readFileSync(`/proc/${pid}/limits`, 'utf8').split('\n').find((l) => l.startsWith('Max data size'))!;
      expect(line.split(/\s{2,}/).slice(1, 3)).to.deep.equal([String(MEMORY_MB * 1024 * 1024), String(MEMORY_MB * 1024 * 1024)]);
    }
  });
});
