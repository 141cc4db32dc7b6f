/**
 * Push processing with the real git CLI over HTTP: the server-owned hooks, the durable outbox, the
 * branch table, tag rows, push events, the default branch on the first push, the reconciler, and a
 * server killed with SIGKILL in the middle of a push.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import { spawn } from 'node:child_process';
import { expect } from 'chai';
import { startWorld, type World, type TestUser } from '../helpers/world';
import { git, gitHome, serverRepoDir, type GitResult } from '../helpers/repo-fixture';
import { sql, count } from '../helpers/db';

const ZERO = '0000000000000000000000000000000000000000';

describe('push processing', () => {
  let w: World;
  let alice: TestUser;
  let home: string;
  let tmp: string;
  let n = 0;

  const g = (args: string[], cwd?: string) => git(args, { cwd, home });
  const ok = (r: GitResult) => { expect(r.code, r.stderr).to.equal(0); return r; };
  const url = (repo: string) => `http://alice:${alice.token}@${new URL(w.server.url).host}/alice/${repo}.git`;
  const bare = (repo: string) => serverRepoDir(w.server, 'alice', repo);
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const waitFor = async (what: string, fn: () => Promise<boolean>) => {
    const deadline = Date.now() + 30_000;
    while (!(await fn())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await sleep(50);
    }
  };
  const createRepo = async (name: string) => {
    const r = await w.raw('POST', '/user/repos', { name }, { token: alice.token });
    expect(r.status, r.text).to.equal(201);
    return r.body.id as number;
  };
  const getRepo = async (name: string) => (await w.raw('GET', `/repos/alice/${name}`, undefined, { token: alice.token })).body;
  const work = async (repo: string) => {
    const d = path.join(tmp, `w${++n}`);
    ok(await g(['init', '-q', '-b', 'main', d]));
    ok(await g(['remote', 'add', 'origin', url(repo)], d));
    return d;
  };
  const commit = async (cwd: string, file: string, content: string | Buffer) => {
    fs.writeFileSync(path.join(cwd, file), content);
    ok(await g(['add', file], cwd));
    ok(await g(['commit', '-q', '-m', `change ${file}`], cwd));
    return ok(await g(['rev-parse', 'HEAD'], cwd)).stdout.trim();
  };
  const branchRows = (repoId: number) => sql(w.server, 'SELECT name, commit_id, commit_message, pusher_id, is_deleted, deleted_by_id FROM branch WHERE repo_id = $1 ORDER BY name', [repoId]);
  const events = (repoId: number) => sql(w.server, 'SELECT ref_name, old_commit_id, new_commit_id, pusher_id, transport FROM push_event WHERE repo_id = $1 ORDER BY id', [repoId]);
  const eventCount = (repoId: number) => count(w.server, 'SELECT COUNT(*) AS n FROM push_event WHERE repo_id = $1', [repoId]);
  const serverRef = async (repo: string, ref: string) => {
    const r = await g(['--git-dir', bare(repo), 'rev-parse', '--verify', '--quiet', ref]);
    return r.code === 0 ? r.stdout.trim() : null;
  };
  const internalToken = () => (JSON.parse(fs.readFileSync(path.join(w.server.dataDir, 'secrets.json'), 'utf8')) as { internalToken: string }).internalToken;

  before(async () => {
    w = await startWorld();
    alice = await w.user('alice');
    home = gitHome();
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'forge-push-'));
  });
  after(async () => { await w?.stop(); });

  describe('first push and bookkeeping', () => {
    let repoId: number;
    let d: string;
    let c1: string;

    before(async () => {
      repoId = await createRepo('first');
      d = await work('first');
    });

    it('the first push sets the default branch to the first pushed branch, clears the empty flag and records the size', async () => {
      expect((await getRepo('first')).empty).to.equal(true);
      ok(await g(['checkout', '-q', '-b', 'dev'], d));
      c1 = await commit(d, 'a.txt', 'one');
      ok(await g(['push', '-q', 'origin', 'dev'], d));
      await waitFor('the push to be processed', async () => (await getRepo('first')).empty === false);
      const repo = await getRepo('first');
      expect(repo.default_branch).to.equal('dev');
      // Gitea's size: the repository's objects in KiB, loose and packed, as git counts them
      const counted = ok(await g(['--git-dir', bare('first'), 'count-objects', '-v'])).stdout;
      const kib = (key: string) => Number(new RegExp(`^${key}: (\\d+)$`, 'm').exec(counted)![1]);
      expect(repo.size).to.equal(kib('size') + kib('size-pack'));
      expect(repo.size).to.be.greaterThan(0);
      expect(await branchRows(repoId)).to.deep.equal([{ name: 'dev', commit_id: c1, commit_message: 'change a.txt', pusher_id: alice.id, is_deleted: rowFalse(), deleted_by_id: 0 }]);
      expect(await events(repoId)).to.deep.equal([{ ref_name: 'refs/heads/dev', old_commit_id: ZERO, new_commit_id: c1, pusher_id: alice.id, transport: 'http' }]);
      const clone = path.join(tmp, 'clone-first');
      ok(await g(['clone', '-q', url('first'), clone]));
      expect(ok(await g(['rev-parse', '--abbrev-ref', 'HEAD'], clone)).stdout.trim()).to.equal('dev');
    });

    it('records updates, new and deleted branches, and tags once each', async () => {
      const c2 = await commit(d, 'a.txt', 'two');
      ok(await g(['push', '-q', 'origin', 'dev'], d));
      ok(await g(['tag', '-a', 'v1', '-m', 'release one'], d));
      ok(await g(['tag', 'light'], d));
      ok(await g(['push', '-q', 'origin', 'v1', 'light', 'dev:topic'], d));
      ok(await g(['push', '-q', 'origin', ':topic', ':light'], d));
      await waitFor('six more events', async () => (await eventCount(repoId)) === 7);
      const ev = (await events(repoId)).slice(1).map((e) => [e.ref_name, e.old_commit_id, e.new_commit_id]);
      expect(ev).to.have.deep.members([
        ['refs/heads/dev', c1, c2], ['refs/tags/v1', ZERO, c2], ['refs/tags/light', ZERO, c2],
        ['refs/heads/topic', ZERO, c2], ['refs/heads/topic', c2, ZERO], ['refs/tags/light', c2, ZERO],
      ]);
      const rows = await branchRows(repoId);
      expect(rows.map((r) => [r.name, r.commit_id, !!r.is_deleted, r.deleted_by_id])).to.deep.equal([['dev', c2, false, 0], ['topic', c2, true, alice.id]]);
      const tags = await sql(w.server, 'SELECT tag_name, sha1, is_tag FROM release WHERE repo_id = $1', [repoId]);
      expect(tags.map((t) => [t.tag_name, t.sha1, !!t.is_tag])).to.deep.equal([['v1', c2, true]]);
    });

    it('refuses to delete the default branch with a clear message, and nothing changes', async () => {
      const before = await eventCount(repoId);
      const r = await g(['push', 'origin', ':dev'], d);
      expect(r.code).to.not.equal(0);
      expect(r.stderr).to.contain('branch dev is the default branch and cannot be deleted');
      expect(await serverRef('first', 'refs/heads/dev')).to.not.equal(null);
      expect(await eventCount(repoId)).to.equal(before);
    });

    it('refuses pushes to refs/pull/*, and nothing changes', async () => {
      const r = await g(['push', 'origin', 'dev:refs/pull/1/head'], d);
      expect(r.code).to.not.equal(0);
      expect(r.stderr).to.contain('refs/pull/* is maintained by the server');
      expect(await serverRef('first', 'refs/pull/1/head')).to.equal(null);
    });

    it('a push that does not come through the server is refused by the hooks', async () => {
      await commit(d, 'b.txt', 'local');
      const r = await g(['push', bare('first'), 'HEAD:refs/heads/sneaky'], d);
      expect(r.code).to.not.equal(0);
      expect(r.stderr).to.contain('pushes must go through the forge server');
      expect(await serverRef('first', 'refs/heads/sneaky')).to.equal(null);
    });

    it('the internal hook API needs the internal token', async () => {
      const body = { repo_id: repoId, pusher_id: alice.id, deploy_key_id: 0, transport: 'http', updates: [] };
      const jobs = () => count(w.server, 'SELECT COUNT(*) AS n FROM outbox');
      const before = await jobs();
      const attempts: Record<string, string>[] = [{}, { Authorization: 'Bearer wrong' }, { Authorization: `token ${alice.token}` }];
      for (const headers of attempts) {
        const r = await w.raw('POST', '//api/internal/hook/pre-receive', body, { headers });
        expect(r.status).to.equal(401);
        expect(r.body.message).to.equal('invalid internal token');
      }
      expect(await jobs()).to.equal(before);
    });

    it('a push job run twice records nothing twice', async () => {
      const before = await eventCount(repoId);
      // why: a worker killed after its job's transaction, before marking the job done, leaves it to run again.
      await sql(w.server, `INSERT INTO outbox (topic, payload, status, attempts, available_at, created_at, updated_at)
        SELECT topic, payload, 'pending', 0, 0, created_at, updated_at FROM outbox WHERE id = (SELECT MAX(id) FROM outbox WHERE topic = 'repo.push')`);
      await waitFor('the replay to be processed', async () => (await count(w.server, "SELECT COUNT(*) AS n FROM outbox WHERE status <> 'done'")) === 0);
      expect(await eventCount(repoId)).to.equal(before);
    });

    it('refuses a malformed hook request with 422', async () => {
      const r = await w.raw('POST', '//api/internal/hook/pre-receive', { repo_id: repoId, pusher_id: 0, deploy_key_id: 0, transport: '', updates: [{ old: 'x', new: ZERO, ref: 'refs/heads/dev' }] },
        { headers: { Authorization: `Bearer ${internalToken()}` } });
      expect(r.status).to.equal(422);
      expect(r.body.message).to.equal('malformed hook request');
    });
  });

  it('keeps the configured default branch when it is among the first pushed branches', async () => {
    await createRepo('second');
    const d = await work('second');
    await commit(d, 'x.txt', 'x');
    ok(await g(['branch', 'aaa'], d));
    ok(await g(['push', '-q', 'origin', 'aaa', 'main'], d));
    await waitFor('the push to be processed', async () => (await getRepo('second')).empty === false);
    expect((await getRepo('second')).default_branch).to.equal('main');
  });

  it('an auto-initialized repository has its branch recorded', async () => {
    const r = await w.raw('POST', '/user/repos', { name: 'inited', auto_init: true, default_branch: 'trunk' }, { token: alice.token });
    expect(r.status).to.equal(201);
    expect(r.body.empty).to.equal(false);
    const rows = await branchRows(r.body.id);
    expect(rows.map((b) => [b.name, b.commit_id])).to.deep.equal([['trunk', await serverRef('inited', 'refs/heads/trunk')]]);
  });

  it('records just the reported branches when the database holds their old values, and compares every ref when it does not', async () => {
    const repoId = await createRepo('drift');
    const d = await work('drift');
    const c1 = await commit(d, 'a.txt', 'one');
    ok(await g(['push', '-q', 'origin', 'main'], d));
    await waitFor('the first push', async () => (await eventCount(repoId)) === 1);
    // why: git itself moves refs here, as a change made outside the server would.
    ok(await g(['--git-dir', bare('drift'), 'update-ref', 'refs/heads/side', c1]));
    ok(await g(['push', '-q', 'origin', 'main:topic'], d));
    await waitFor('the topic push', async () => (await eventCount(repoId)) === 2);
    expect((await branchRows(repoId)).map((b) => b.name)).to.deep.equal(['main', 'topic']);
    // main moved outside the server: the next push reports an old value the database never saw
    const outside = ok(await g(['--git-dir', bare('drift'), 'commit-tree', '-p', 'main', '-m', 'made outside', 'main^{tree}'])).stdout.trim();
    ok(await g(['--git-dir', bare('drift'), 'update-ref', 'refs/heads/main', outside]));
    ok(await g(['pull', '-q', '--ff-only', 'origin', 'main'], d));
    const c3 = await commit(d, 'a.txt', 'three');
    ok(await g(['push', '-q', 'origin', 'main'], d));
    await waitFor('the main push', async () => (await eventCount(repoId)) === 4);
    expect((await events(repoId)).slice(2).map((e) => [e.ref_name, e.old_commit_id, e.new_commit_id, e.pusher_id])).to.deep.equal([
      ['refs/heads/main', c1, c3, alice.id], ['refs/heads/side', ZERO, c1, 0],
    ]);
    expect((await branchRows(repoId)).map((b) => [b.name, b.commit_id])).to.deep.equal([['main', c3], ['side', c1], ['topic', c1]]);
  });

  it('reconciles ref changes made while the server was down, exactly once, and rewrites outdated hooks', async () => {
    const repoId = await createRepo('offline');
    const d = await work('offline');
    const c = await commit(d, 'o.txt', 'o');
    ok(await g(['push', '-q', 'origin', 'main'], d));
    await waitFor('the push', async () => (await eventCount(repoId)) === 1);
    await w.server.stop();
    // why: git itself moves refs here, as when a crash lands between receive-pack's ref update and the push's recording.
    ok(await g(['--git-dir', bare('offline'), 'update-ref', 'refs/heads/found', c]));
    ok(await g(['--git-dir', bare('offline'), 'update-ref', 'refs/tags/t-found', c]));
    // an earlier version's post-receive, as an upgrade finds it
    const postReceive = path.join(bare('offline'), 'hooks', 'post-receive');
    fs.writeFileSync(postReceive, '#!/bin/sh\nexec "$FORGE_HOOK_NODE" "$FORGE_HOOK_SCRIPT" post-receive\n');
    await w.server.start();
    await waitFor('the reconciler', async () => (await eventCount(repoId)) === 3);
    expect(fs.readFileSync(postReceive, 'utf8')).to.contain('FORGE_PUSH_FILE');
    const ev = (await events(repoId)).slice(1);
    expect(ev.map((e) => [e.ref_name, e.new_commit_id, e.pusher_id])).to.have.deep.members([['refs/heads/found', c, 0], ['refs/tags/t-found', c, 0]]);
    await w.server.stop();
    ok(await g(['--git-dir', bare('offline'), 'update-ref', 'refs/heads/marker', c]));
    await w.server.start();
    await waitFor('the second reconcile', async () => (await eventCount(repoId)) === 4);
    expect((await events(repoId))[3].ref_name).to.equal('refs/heads/marker');
  });

  it('a push cut by kill -9 of the server leaves refs old or new, never broken, and is processed exactly once after restart', async () => {
    const repoId = await createRepo('crash');
    const d = await work('crash');
    const base = await commit(d, 'base.txt', 'base');
    ok(await g(['push', '-q', 'origin', 'main'], d));
    await waitFor('the first push', async () => (await eventCount(repoId)) === 1);
    const big = await commit(d, 'big.bin', crypto.randomBytes(24 * 1024 * 1024));
    const pushing = new Promise<number>((resolve) => {
      const p = spawn('git', ['push', '-q', 'origin', 'main'], { cwd: d, env: { PATH: process.env.PATH!, HOME: home, GIT_TERMINAL_PROMPT: '0' }, stdio: 'ignore' });
      p.once('exit', (code) => resolve(code ?? 1));
    });
    const receiving = () => fs.readdirSync('/proc').some((pid) => {
      try { return /^\d+$/.test(pid) && fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').some((a) => a === 'receive-pack'); } catch { return false; }
    });
    await waitFor('receive-pack to start', async () => receiving());
    await w.server.kill9();
    const pushCode = await pushing;
    await waitFor('the orphaned receive-pack to finish', async () => !receiving());
    await w.server.start();
    const head = await serverRef('crash', 'refs/heads/main');
    expect([base, big]).to.include(head);
    if (pushCode === 0) expect(head).to.equal(big);
    ok(await g(['--git-dir', bare('crash'), 'fsck', '--strict', '--no-progress']));
    await waitFor('the branch table to match git', async () => (await branchRows(repoId))[0]?.commit_id === head);
    // a marker made while the server is down shows when the next start's reconciler has passed this repository
    await w.server.stop();
    ok(await g(['--git-dir', bare('crash'), 'update-ref', 'refs/heads/marker', base]));
    await w.server.start();
    await waitFor('the reconciler', async () => (await branchRows(repoId)).some((b) => b.name === 'marker'));
    const toBig = (await events(repoId)).filter((e) => e.new_commit_id === big);
    expect(toBig).to.have.length(head === big ? 1 : 0);
  });
});

/** SQLite answers booleans as 0/1, PostgreSQL as true/false. */
function rowFalse(): unknown {
  return process.env.FORGE_TEST_DB === 'postgres' ? false : 0;
}
