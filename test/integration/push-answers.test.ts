/**
 * What a push's answer promises, with the real git CLI over HTTP and SSH: every read made right
 * after `git push` returns sees the push, on whichever worker process answers (branch list and get,
 * commits, the repository's size and empty flag, a pull request's head); the size follows writes of
 * the contents API and the web editor too; and `git push` of a branch prints Gitea's pull request
 * lines (a new one's page, or the open one), unless `[git] PULL_REQUEST_PUSH_MESSAGE` is off or the
 * repository takes no pull requests.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { startWorld, type World, type TestUser } from '../helpers/world';
import { git, gitHome, type GitResult } from '../helpers/repo-fixture';
import { gitSshCommand, sshKeyFile, type SshKeyFile } from '../helpers/ssh';
import { WebClient } from '../helpers/web';

/** GET on a connection of its own, so the cluster's round robin hands consecutive reads to different workers. */
function freshGet(url: string, token: string): Promise<{ status: number; body: any }> { // eslint-disable-line @typescript-eslint/no-explicit-any
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent: false, headers: { Authorization: `token ${token}`, Connection: 'close' } }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (d: Buffer) => parts.push(d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(parts).toString() || 'null') }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

describe('what a push answer promises', () => {
  let w: World;
  let alice: TestUser;
  let bob: TestUser;
  let home: string;
  let tmp: string;
  let key: SshKeyFile;
  let n = 0;

  const ok = (r: GitResult) => { expect(r.code, r.stderr).to.equal(0); return r; };
  const url = (owner: string, repo: string, u: TestUser = alice) => `http://${u.name}:${u.token}@${new URL(w.server.url).host}/${owner}/${repo}.git`;
  const g = (args: string[], cwd?: string) => git(args, { cwd, home, env: { GIT_SSH_COMMAND: gitSshCommand(w.server.sshPort, key) } });
  const clone = async (owner: string, repo: string, u: TestUser = alice) => {
    const d = path.join(tmp, `c${++n}`);
    ok(await g(['clone', '-q', url(owner, repo, u), d]));
    return d;
  };
  const commit = async (cwd: string, file: string, content: string) => {
    fs.writeFileSync(path.join(cwd, file), content);
    ok(await g(['add', file], cwd));
    ok(await g(['commit', '-q', '-m', `change ${file}`], cwd));
    return ok(await g(['rev-parse', 'HEAD'], cwd)).stdout.trim();
  };
  const api = (p: string) => `${w.server.api}${p}`;
  const newRepo = async (u: TestUser, name: string, init = true) => {
    const r = await w.raw('POST', '/user/repos', { name, auto_init: init, readme: init ? 'Default' : undefined }, { token: u.token });
    expect(r.status, r.text).to.equal(201);
  };
  const pullLines = (stderr: string) => stderr.split('\n').map((l) => l.replace(/^remote: ?/, '').trimEnd())
    .filter((l, i, all) => /pull request/.test(l) || /pull request/.test(all[i - 1] ?? ''));

  before(async () => {
    w = await startWorld();
    [alice, bob] = [await w.user('alice'), await w.user('bob')];
    home = gitHome();
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'forge-push-answers-'));
    key = sshKeyFile('ed25519');
    expect((await alice.api.user.userCurrentPostKey({ title: 'laptop', key: key.pub })).status).to.equal(201);
  });
  after(async () => { await w?.stop(); });

  it('50 pushes in a row: each branch, commit, size and empty flag is seen at once by every worker', async () => {
    await newRepo(alice, 'ryw', false);
    const d = path.join(tmp, 'ryw');
    ok(await g(['init', '-q', '-b', 'main', d]));
    ok(await g(['remote', 'add', 'origin', url('alice', 'ryw')], d));
    let size = 0;
    for (let i = 1; i <= 50; i++) {
      const branch = i === 1 ? 'main' : `topic/${i}`;
      if (i > 1) ok(await g(['checkout', '-q', '-b', branch, 'main'], d));
      const sha = await commit(d, `f${i}.txt`, `content ${i}\n`);
      ok(await g(['push', '-q', 'origin', branch], d));
      // why: three reads on connections of their own: under round robin, at least one reaches a worker that did not take the push.
      const [list, one, repo] = await Promise.all([
        freshGet(api(`/repos/alice/ryw/branches?limit=50`), alice.token),
        freshGet(api(`/repos/alice/ryw/branches/${encodeURIComponent(branch)}`), alice.token),
        freshGet(api('/repos/alice/ryw'), alice.token),
      ]);
      const commits = await freshGet(api(`/repos/alice/ryw/commits?sha=${encodeURIComponent(branch)}&limit=1&stat=false`), alice.token);
      expect(list.body.map((b: { name: string }) => b.name), `push ${i}`).to.include(branch).and.have.length(i);
      expect(list.body.find((b: { name: string }) => b.name === branch).commit.id, `push ${i}`).to.equal(sha);
      expect([one.status, one.body.commit.id], `push ${i}`).to.deep.equal([200, sha]);
      expect(commits.body[0].sha, `push ${i}`).to.equal(sha);
      expect(repo.body.empty, `push ${i}`).to.equal(false);
      expect(repo.body.default_branch).to.equal('main');
      expect(repo.body.size, `push ${i}`).to.be.greaterThan(size);
      size = repo.body.size;
      if (i > 1) ok(await g(['checkout', '-q', 'main'], d));
    }
  });

  it('pushes over SSH are seen at once too', async () => {
    await newRepo(alice, 'ryw-ssh');
    const d = path.join(tmp, `c${++n}`);
    ok(await g(['clone', '-q', `ssh://git@127.0.0.1:${w.server.sshPort}/alice/ryw-ssh.git`, d]));
    for (let i = 1; i <= 5; i++) {
      ok(await g(['checkout', '-q', '-b', `ssh/${i}`, 'main'], d));
      const sha = await commit(d, `s${i}.txt`, `ssh ${i}\n`);
      ok(await g(['push', '-q', 'origin', `ssh/${i}`], d));
      const [list, one] = await Promise.all([
        freshGet(api('/repos/alice/ryw-ssh/branches?limit=50'), alice.token),
        freshGet(api(`/repos/alice/ryw-ssh/branches/ssh%2F${i}`), alice.token),
      ]);
      expect(list.body.map((b: { name: string }) => b.name), `push ${i}`).to.include(`ssh/${i}`).and.have.length(i + 1);
      expect(one.body.commit.id, `push ${i}`).to.equal(sha);
    }
  });

  it('a pull request shows its new head at once after a push to its branch', async () => {
    await newRepo(alice, 'prhead');
    const d = await clone('alice', 'prhead');
    ok(await g(['checkout', '-q', '-b', 'feature'], d));
    await commit(d, 'a.txt', 'one\n');
    ok(await g(['push', '-q', 'origin', 'feature'], d));
    const pr = await w.raw('POST', '/repos/alice/prhead/pulls', { base: 'main', head: 'feature', title: 'Feature' }, { token: alice.token });
    expect(pr.status, pr.text).to.equal(201);
    const next = await commit(d, 'a.txt', 'two\n');
    ok(await g(['push', '-q', 'origin', 'feature'], d));
    const [one, list] = await Promise.all([freshGet(api('/repos/alice/prhead/pulls/1'), alice.token), freshGet(api('/repos/alice/prhead/pulls?state=open'), alice.token)]);
    expect(one.body.head.sha).to.equal(next);
    expect(list.body[0].head.sha).to.equal(next);
  });

  it('the size follows files written through the contents API and the web editor', async () => {
    await newRepo(alice, 'sized');
    const size = async () => (await freshGet(api('/repos/alice/sized'), alice.token)).body.size as number;
    const before = await size();
    const blob = Buffer.from(Array.from({ length: 256 * 1024 }, (_, i) => (i * 7919) % 251)).toString('base64');
    const put = await w.raw('POST', '/repos/alice/sized/contents/big.bin', { content: blob, message: 'big' }, { token: alice.token });
    expect(put.status, put.text).to.equal(201);
    const afterApi = await size();
    expect(afterApi).to.be.greaterThan(before);
    const web = await WebClient.signedIn(w, alice);
    expect((await web.get('alice/sized/_new/main/')).status).to.equal(200);
    const done = await web.form('alice/sized/_new/main/', { file_name: 'notes.txt', content: 'x'.repeat(64 * 1024), action: 'commit', commit_message: 'notes' });
    expect(done.status, done.text).to.be.oneOf([302, 303]);
    expect(await size()).to.be.greaterThan(afterApi);
  });

  describe('the pull request lines of git push', () => {
    before(async () => { await newRepo(alice, 'msg'); });

    it('a new branch over HTTP: the page to open its pull request; the default branch: nothing', async () => {
      const d = await clone('alice', 'msg');
      await commit(d, 'm.txt', 'main\n');
      const main = ok(await g(['push', 'origin', 'main'], d));
      expect(pullLines(main.stderr)).to.deep.equal([]);
      ok(await g(['checkout', '-q', '-b', 'feat/one'], d));
      await commit(d, 'f.txt', 'one\n');
      const pushed = ok(await g(['push', 'origin', 'feat/one'], d));
      expect(pullLines(pushed.stderr)).to.deep.equal(["Create a new pull request for 'feat/one':", `  ${w.server.url}alice/msg/pulls/new/feat/one`]);
      const page = await (await WebClient.signedIn(w, alice)).get('alice/msg/pulls/new/feat/one');
      expect(page.status).to.equal(303);
      expect(page.headers.get('location')).to.equal('/alice/msg/compare/main...feat/one');
    });

    it('an open pull request over SSH: the link to it', async () => {
      const pr = await w.raw('POST', '/repos/alice/msg/pulls', { base: 'main', head: 'feat/one', title: 'One' }, { token: alice.token });
      expect(pr.status, pr.text).to.equal(201);
      const d = path.join(tmp, `c${++n}`);
      ok(await g(['clone', '-q', `ssh://git@127.0.0.1:${w.server.sshPort}/alice/msg.git`, d]));
      ok(await g(['checkout', '-q', 'feat/one'], d));
      await commit(d, 'f.txt', 'two\n');
      const pushed = ok(await g(['push', 'origin', 'feat/one'], d));
      expect(pullLines(pushed.stderr)).to.deep.equal(['Visit the existing pull request:', `  ${w.server.url}alice/msg/pulls/${pr.body.number}`]);
    });

    it('a fork\'s branch points at the parent', async () => {
      const fork = await w.raw('POST', '/repos/alice/msg/forks', {}, { token: bob.token });
      expect(fork.status, fork.text).to.equal(202);
      const d = await clone('bob', 'msg', bob);
      ok(await g(['checkout', '-q', '-b', 'fix'], d));
      await commit(d, 'fix.txt', 'fix\n');
      const pushed = ok(await g(['push', 'origin', 'fix'], d));
      expect(pullLines(pushed.stderr)).to.deep.equal(["Create a new pull request for 'fix':", `  ${w.server.url}bob/msg/pulls/new/fix`]);
      const web = await WebClient.signedIn(w, bob);
      const page = await web.get('bob/msg/pulls/new/fix');
      expect(page.headers.get('location')).to.equal('/alice/msg/compare/main...bob:fix');
      // the compare page across the fork shows its commit and file, and offers the pull request
      const cmp = await web.get('alice/msg/compare/main...bob:fix');
      expect(cmp.status, cmp.text).to.equal(200);
      expect(cmp.text).to.include('1 commit<').and.include('fix.txt').and.include('name="head" value="bob:fix"');
    });

    it('nothing when the repository takes no pull requests', async () => {
      expect((await w.raw('PATCH', '/repos/alice/msg', { has_pull_requests: false }, { token: alice.token })).status).to.equal(200);
      const d = await clone('alice', 'msg');
      ok(await g(['checkout', '-q', '-b', 'quiet'], d));
      await commit(d, 'q.txt', 'q\n');
      expect(pullLines(ok(await g(['push', 'origin', 'quiet'], d)).stderr)).to.deep.equal([]);
      expect((await w.raw('PATCH', '/repos/alice/msg', { has_pull_requests: true }, { token: alice.token })).status).to.equal(200);
    });
  });
});

describe('git push with [git] PULL_REQUEST_PUSH_MESSAGE = false', () => {
  let w: World;
  after(async () => { await w?.stop(); });

  it('prints no pull request lines', async () => {
    w = await startWorld({ env: { FORGE__GIT__PULL_REQUEST_PUSH_MESSAGE: 'false' } });
    const alice = await w.user('alice');
    expect((await w.raw('POST', '/user/repos', { name: 'quiet', auto_init: true, readme: 'Default' }, { token: alice.token })).status).to.equal(201);
    const home = gitHome();
    const d = fs.mkdtempSync(path.join(os.tmpdir(), 'forge-quiet-'));
    const g = (args: string[], cwd?: string) => git(args, { cwd, home });
    expect((await g(['clone', '-q', `http://alice:${alice.token}@${new URL(w.server.url).host}/alice/quiet.git`, `${d}/c`])).code).to.equal(0);
    expect((await g(['checkout', '-q', '-b', 'side'], `${d}/c`)).code).to.equal(0);
    fs.writeFileSync(`${d}/c/s.txt`, 's');
    expect((await g(['add', 's.txt'], `${d}/c`)).code).to.equal(0);
    expect((await g(['commit', '-q', '-m', 's'], `${d}/c`)).code).to.equal(0);
    const pushed = await g(['push', 'origin', 'side'], `${d}/c`);
    expect(pushed.code, pushed.stderr).to.equal(0);
    expect(pushed.stderr).to.include('side').and.not.include('pull request');
  });
});
