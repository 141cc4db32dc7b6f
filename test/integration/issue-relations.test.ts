/**
 * What hangs off issues, through gitea-js and raw HTTP against the real server: dependencies
 * (cycles, cross-repository, closing while blocked), pins, locks, stopwatches and tracked time,
 * subscriptions, and the repository's tracker settings (time tracker, dependencies, an external
 * tracker). Each refusal is shown to change nothing.
 */
import { expect } from 'chai';
import { startWorld, type World, type TestUser } from '../helpers/world';
import { count } from '../helpers/db';

describe('issue relations', () => {
  let w: World;
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;

  const ok = async (method: string, p: string, body: unknown, token: string, want = [200, 201, 204]) => {
    const r = await w.raw(method, p, body, { token });
    expect(want, `${method} ${p}: ${r.status} ${r.text}`).to.include(r.status);
    return r.body;
  };
  const issue = async (title: string, token = bob.token, repo = 'alice/proj') => (await ok('POST', `/repos/${repo}/issues`, { title }, token)).number as number;
  const types = async (n: number, repo = 'alice/proj') =>
    ((await ok('GET', `/repos/${repo}/issues/${n}/timeline`, undefined, alice.token)) ?? []).map((c: { type: string }) => c.type);

  before(async () => {
    w = await startWorld();
    [alice, bob, carol] = [await w.user('alice'), await w.user('bob'), await w.user('carol')];
    await ok('POST', '/user/repos', { name: 'proj' }, alice.token);
    await ok('POST', '/user/repos', { name: 'other' }, alice.token);
    await ok('POST', '/user/repos', { name: 'hidden', private: true }, alice.token);
    for (const r of ['proj', 'other']) await ok('PUT', `/repos/alice/${r}/collaborators/bob`, { permission: 'write' }, alice.token);
  });
  after(async () => { await w?.stop(); });

  describe('dependencies', () => {
    it('adds, lists and removes a dependency, with history on both issues', async () => {
      const [a, b] = [await issue('needs b'), await issue('b')];
      const r = await bob.api.repos.issueCreateIssueDependencies('alice', 'proj', String(a), { owner: 'alice', repo: 'proj', index: b });
      expect(r.status).to.equal(201);
      expect(r.data.number).to.equal(a);
      expect((await ok('GET', `/repos/alice/proj/issues/${a}/dependencies`, undefined, carol.token)).map((i: { number: number }) => i.number)).to.deep.equal([b]);
      expect((await ok('GET', `/repos/alice/proj/issues/${b}/blocks`, undefined, carol.token)).map((i: { number: number }) => i.number)).to.deep.equal([a]);
      const tl = await ok('GET', `/repos/alice/proj/issues/${a}/timeline`, undefined, carol.token);
      expect(tl[0].type).to.equal('add_dependency');
      expect(tl[0].dependent_issue.number).to.equal(b);
      expect(await types(b)).to.deep.equal(['add_dependency']);
      const closing = await w.raw('PATCH', `/repos/alice/proj/issues/${a}`, { state: 'closed' }, { token: bob.token });
      expect(closing.status).to.equal(412);
      expect(closing.body.message).to.equal('cannot close this issue or pull request because it still has open dependencies');
      expect((await ok('GET', `/repos/alice/proj/issues/${a}`, undefined, carol.token)).state).to.equal('open');
      const removed = await w.raw('DELETE', `/repos/alice/proj/issues/${a}/dependencies`, { owner: 'alice', repo: 'proj', index: b }, { token: bob.token });
      expect(removed.status).to.equal(201);
      expect(await ok('GET', `/repos/alice/proj/issues/${a}/dependencies`, undefined, carol.token)).to.deep.equal([]);
      expect(await types(b)).to.deep.equal(['add_dependency', 'remove_dependency']);
      await ok('PATCH', `/repos/alice/proj/issues/${a}`, { state: 'closed' }, bob.token);
    });

    it('refuses self-dependencies, cycles of any length and duplicates with 422, changing nothing', async () => {
      const [a, b, c] = [await issue('a'), await issue('b'), await issue('c')];
      const dep = (from: number, to: number, token = bob.token) => w.raw('POST', `/repos/alice/proj/issues/${from}/dependencies`, { owner: 'alice', repo: 'proj', index: to }, { token });
      expect((await dep(a, b)).status).to.equal(201);
      expect((await dep(b, c)).status).to.equal(201);
      const rows = await count(w.server, 'SELECT COUNT(*) AS n FROM issue_dependency');
      for (const [from, to] of [[a, a], [c, a], [b, a], [a, b]]) {
        const r = await dep(from, to);
        expect(r.status, `${from} -> ${to}: ${r.text}`).to.equal(422);
        expect(r.body.message).to.be.a('string');
      }
      expect(await count(w.server, 'SELECT COUNT(*) AS n FROM issue_dependency')).to.equal(rows);
      expect((await dep(c, a, carol.token)).status).to.equal(404);
      const blocks = await w.raw('POST', `/repos/alice/proj/issues/${a}/blocks`, { owner: 'alice', repo: 'proj', index: c }, { token: bob.token });
      expect(blocks.status).to.equal(422);
    });

    it('links issues across repositories, and never shows one the caller cannot read', async () => {
      const a = await issue('cross');
      const o = await issue('in other', bob.token, 'alice/other');
      const h = await issue('secret blocker', alice.token, 'alice/hidden');
      await ok('POST', `/repos/alice/proj/issues/${a}/dependencies`, { owner: 'alice', repo: 'other', index: o }, bob.token);
      await ok('POST', `/repos/alice/proj/issues/${a}/dependencies`, { owner: 'alice', repo: 'hidden', index: h }, alice.token);
      const seenByAlice = await ok('GET', `/repos/alice/proj/issues/${a}/dependencies`, undefined, alice.token);
      expect(seenByAlice.map((i: { repository: { name: string } }) => i.repository.name)).to.have.members(['other', 'hidden']);
      const seenByCarol = await ok('GET', `/repos/alice/proj/issues/${a}/dependencies`, undefined, carol.token);
      expect(seenByCarol.map((i: { repository: { name: string } }) => i.repository.name)).to.deep.equal(['other']);
      const tl = await ok('GET', `/repos/alice/proj/issues/${a}/timeline`, undefined, carol.token);
      expect(tl.filter((c: { dependent_issue: unknown }) => c.dependent_issue).map((c: { dependent_issue: { title: string } }) => c.dependent_issue.title)).to.deep.equal(['in other']);
      const missing = await w.raw('POST', `/repos/alice/proj/issues/${a}/dependencies`, { owner: 'alice', repo: 'hidden', index: h }, { token: bob.token });
      expect(missing.status).to.equal(404);
    });

    it('answers 404 when the repository turns dependencies off', async () => {
      const [a, b] = [await issue('x'), await issue('y')];
      await ok('PATCH', '/repos/alice/proj', { has_issues: true, internal_tracker: { enable_time_tracker: true, allow_only_contributors_to_track_time: true, enable_issue_dependencies: false } }, alice.token);
      const repo = await ok('GET', '/repos/alice/proj', undefined, alice.token);
      expect(repo.internal_tracker).to.deep.equal({ enable_time_tracker: true, allow_only_contributors_to_track_time: true, enable_issue_dependencies: false });
      expect((await w.raw('POST', `/repos/alice/proj/issues/${a}/dependencies`, { owner: 'alice', repo: 'proj', index: b }, { token: bob.token })).status).to.equal(404);
      expect((await w.raw('GET', `/repos/alice/proj/issues/${a}/dependencies`, undefined, { token: bob.token })).status).to.equal(404);
      await ok('PATCH', '/repos/alice/proj', { has_issues: true, internal_tracker: { enable_time_tracker: true, allow_only_contributors_to_track_time: true, enable_issue_dependencies: true } }, alice.token);
    });
  });

  describe('pins and locks', () => {
    it('pins up to MAX_PINNED issues, moves and unpins them, with history', async () => {
      const ns = [await issue('p1'), await issue('p2'), await issue('p3'), await issue('p4')];
      for (const n of ns.slice(0, 3)) expect((await w.raw('POST', `/repos/alice/proj/issues/${n}/pin`, undefined, { token: alice.token })).status).to.equal(204);
      expect(await ok('GET', '/repos/alice/proj/new_pin_allowed', undefined, carol.token)).to.deep.equal({ issues: false, pull_requests: true });
      const over = await w.raw('POST', `/repos/alice/proj/issues/${ns[3]}/pin`, undefined, { token: alice.token });
      expect(over.status).to.equal(422);
      expect(over.body.message).to.match(/max number of pinned issues/);
      expect((await w.raw('POST', `/repos/alice/proj/issues/${ns[3]}/pin`, undefined, { token: bob.token })).status).to.equal(403);
      const pinned = async () => (await ok('GET', '/repos/alice/proj/issues/pinned', undefined, carol.token)).map((i: { number: number; pin_order: number }) => [i.number, i.pin_order]);
      expect(await pinned()).to.deep.equal([[ns[0], 1], [ns[1], 2], [ns[2], 3]]);
      await ok('PATCH', `/repos/alice/proj/issues/${ns[2]}/pin/1`, undefined, alice.token);
      expect(await pinned()).to.deep.equal([[ns[2], 1], [ns[0], 2], [ns[1], 3]]);
      await ok('DELETE', `/repos/alice/proj/issues/${ns[0]}/pin`, undefined, alice.token);
      expect((await pinned()).map((p: number[]) => p[0])).to.deep.equal([ns[2], ns[1]]);
      expect((await ok('GET', `/repos/alice/proj/issues/${ns[0]}`, undefined, carol.token)).pin_order).to.equal(0);
      expect(await types(ns[0])).to.deep.equal(['pin', 'unpin']);
    });

    it('locks and unlocks an issue (admins), keeping non-writers from commenting and reacting', async () => {
      const n = await issue('heated');
      expect((await w.raw('PUT', `/repos/alice/proj/issues/${n}/lock`, { lock_reason: 'Too heated' }, { token: bob.token })).status).to.equal(403);
      await ok('PUT', `/repos/alice/proj/issues/${n}/lock`, { lock_reason: 'Too heated' }, alice.token);
      const got = await ok('GET', `/repos/alice/proj/issues/${n}`, undefined, carol.token);
      expect(got.is_locked).to.equal(true);
      expect((await w.raw('POST', `/repos/alice/proj/issues/${n}/comments`, { body: 'but' }, { token: carol.token })).status).to.equal(403);
      expect((await w.raw('POST', `/repos/alice/proj/issues/${n}/reactions`, { content: 'eyes' }, { token: carol.token })).status).to.equal(403);
      await ok('DELETE', `/repos/alice/proj/issues/${n}/lock`, undefined, alice.token);
      const tl = await ok('GET', `/repos/alice/proj/issues/${n}/timeline`, undefined, carol.token);
      expect(tl.map((c: { type: string; body: string }) => [c.type, c.body])).to.deep.equal([['lock', 'Too heated'], ['unlock', '']]);
    });
  });

  describe('time tracking', () => {
    it('starts, refuses a second start, stops and cancels stopwatches', async () => {
      const [n, m] = [await issue('timed'), await issue('timed too')];
      expect((await w.raw('POST', `/repos/alice/proj/issues/${n}/stopwatch/start`, undefined, { token: bob.token })).status).to.equal(201);
      const again = await w.raw('POST', `/repos/alice/proj/issues/${n}/stopwatch/start`, undefined, { token: bob.token });
      expect(again.status).to.equal(409);
      const mine = await bob.api.user.userGetStopWatches();
      expect(mine.data.map((s) => [s.issue_index, s.repo_owner_name, s.repo_name])).to.deep.equal([[n, 'alice', 'proj']]);
      // starting on another issue stops the first one, keeping its time
      await ok('POST', `/repos/alice/proj/issues/${m}/stopwatch/start`, undefined, bob.token);
      expect((await ok('GET', `/repos/alice/proj/issues/${n}/times`, undefined, bob.token)).length).to.equal(1);
      expect((await w.raw('POST', `/repos/alice/proj/issues/${n}/stopwatch/stop`, undefined, { token: bob.token })).status).to.equal(409);
      expect((await w.raw('DELETE', `/repos/alice/proj/issues/${m}/stopwatch/delete`, undefined, { token: bob.token })).status).to.equal(204);
      expect((await w.raw('DELETE', `/repos/alice/proj/issues/${m}/stopwatch/delete`, undefined, { token: bob.token })).status).to.equal(409);
      expect((await w.raw('POST', `/repos/alice/proj/issues/${n}/stopwatch/start`, undefined, { token: carol.token })).status).to.equal(403);
      expect(await types(n)).to.deep.equal(['start_tracking', 'stop_tracking']);
      expect(await types(m)).to.deep.equal(['start_tracking', 'cancel_tracking']);
    });

    it('adds, lists, resets and deletes tracked time, with the timeline in hours', async () => {
      const n = await issue('spent');
      const t = await ok('POST', `/repos/alice/proj/issues/${n}/times`, { time: 3720 }, bob.token);
      expect(t).to.include({ time: 3720, user_name: 'bob', issue_id: t.issue.id });
      expect(t.issue.number).to.equal(n);
      const other = await ok('POST', `/repos/alice/proj/issues/${n}/times`, { time: 60, user_name: 'bob' }, alice.token);
      expect(other.user_name).to.equal('bob');
      expect((await w.raw('POST', `/repos/alice/proj/issues/${n}/times`, { time: 0 }, { token: bob.token })).status).to.equal(422);
      expect((await w.raw('POST', `/repos/alice/proj/issues/${n}/times`, { time: 5 }, { token: carol.token })).status).to.equal(403);
      const tl = await ok('GET', `/repos/alice/proj/issues/${n}/timeline`, undefined, carol.token);
      expect(tl[0]).to.include({ type: 'add_time_manual', body: '1 hour 2 minutes' });
      expect(tl[0].tracked_time.time).to.equal(3720);
      expect((await w.raw('GET', `/repos/alice/proj/issues/${n}/times?user=bob`, undefined, { token: carol.token })).status).to.equal(403);
      const repoTimes = await ok('GET', '/repos/alice/proj/times?user=bob', undefined, alice.token);
      expect(repoTimes.map((x: { time: number }) => x.time)).to.include.members([3720, 60]);
      const byUser = await ok('GET', '/repos/alice/proj/times/bob', undefined, bob.token);
      expect(byUser.length).to.equal(repoTimes.length);
      expect((await w.raw('GET', '/repos/alice/proj/times/bob', undefined, { token: carol.token })).status).to.equal(403);
      expect((await w.raw('DELETE', `/repos/alice/proj/issues/${n}/times/${t.id}`, undefined, { token: carol.token })).status).to.equal(403);
      expect((await w.raw('DELETE', `/repos/alice/proj/issues/${n}/times/${t.id}`, undefined, { token: bob.token })).status).to.equal(204);
      expect((await w.raw('DELETE', `/repos/alice/proj/issues/${n}/times/${t.id}`, undefined, { token: bob.token })).status).to.equal(404);
      expect((await w.raw('DELETE', `/repos/alice/proj/issues/${n}/times`, undefined, { token: bob.token })).status).to.equal(204);
      expect((await w.raw('DELETE', `/repos/alice/proj/issues/${n}/times`, undefined, { token: bob.token })).status).to.equal(404);
      expect(await ok('GET', `/repos/alice/proj/issues/${n}/times`, undefined, bob.token)).to.deep.equal([]);
      const mine = await ok('GET', '/user/times', undefined, bob.token);
      expect(mine.every((x: { user_name: string }) => x.user_name === 'bob')).to.equal(true);
    });

    it('answers as disabled when the repository turns the time tracker off', async () => {
      const n = await issue('untimed');
      await ok('PATCH', '/repos/alice/proj', { has_issues: true, internal_tracker: { enable_time_tracker: false, allow_only_contributors_to_track_time: true, enable_issue_dependencies: true } }, alice.token);
      const add = await w.raw('POST', `/repos/alice/proj/issues/${n}/times`, { time: 5 }, { token: bob.token });
      expect(add.status).to.equal(400);
      expect(add.body.message).to.equal('time tracking disabled');
      expect((await w.raw('GET', `/repos/alice/proj/issues/${n}/times`, undefined, { token: bob.token })).status).to.equal(404);
      expect((await w.raw('POST', `/repos/alice/proj/issues/${n}/stopwatch/start`, undefined, { token: bob.token })).status).to.equal(403);
      await ok('PATCH', '/repos/alice/proj', { has_issues: true, internal_tracker: { enable_time_tracker: true, allow_only_contributors_to_track_time: false, enable_issue_dependencies: true } }, alice.token);
      // with contributors-only off, a reader may track time
      expect((await w.raw('POST', `/repos/alice/proj/issues/${n}/times`, { time: 5 }, { token: carol.token })).status).to.equal(200);
    });
  });

  describe('subscriptions', () => {
    it('follows posters and commenters, and takes explicit choices', async () => {
      const n = await issue('follow me', bob.token);
      const check = async (u: TestUser) => (await ok('GET', `/repos/alice/proj/issues/${n}/subscriptions/check`, undefined, u.token)).subscribed;
      expect(await check(bob)).to.equal(true);
      expect(await check(carol)).to.equal(false);
      await ok('POST', `/repos/alice/proj/issues/${n}/comments`, { body: 'me too' }, carol.token);
      expect(await check(carol)).to.equal(true);
      expect((await w.raw('PUT', `/repos/alice/proj/issues/${n}/subscriptions/bob`, undefined, { token: bob.token })).status).to.equal(200);
      expect((await w.raw('DELETE', `/repos/alice/proj/issues/${n}/subscriptions/bob`, undefined, { token: bob.token })).status).to.equal(201);
      expect(await check(bob)).to.equal(false);
      expect((await w.raw('PUT', `/repos/alice/proj/issues/${n}/subscriptions/bob`, undefined, { token: carol.token })).status).to.equal(403);
      expect((await w.raw('PUT', `/repos/alice/proj/issues/${n}/subscriptions/bob`, undefined, { token: w.admin.token })).status).to.equal(201);
      const info = await ok('GET', `/repos/alice/proj/issues/${n}/subscriptions/check`, undefined, bob.token);
      expect(info).to.include({ subscribed: true, ignored: false, reason: null, url: `${w.server.url}api/v1/repos/alice/proj/issues/${n}/subscriptions` });
      const subs = await bob.api.repos.issueSubscriptions('alice', 'proj', n);
      expect(subs.data.map((u) => u.login)).to.deep.equal(['bob']);
    });
  });

  describe('external tracker', () => {
    it('replaces the built-in tracker, whose API then answers 404', async () => {
      const n = await issue('before', alice.token, 'alice/other');
      const bad = await w.raw('PATCH', '/repos/alice/other', { has_issues: true, external_tracker: { external_tracker_url: 'not a url' } }, { token: alice.token });
      expect(bad.status).to.equal(422);
      const repo = await ok('PATCH', '/repos/alice/other', {
        has_issues: true, external_tracker: { external_tracker_url: 'https://tracker.example.com', external_tracker_format: 'https://tracker.example.com/{user}/{repo}/{index}' },
      }, alice.token);
      expect(repo.has_issues).to.equal(true);
      expect(repo.internal_tracker).to.equal(undefined);
      expect(repo.external_tracker).to.include({ external_tracker_url: 'https://tracker.example.com', external_tracker_style: 'numeric' });
      await ok('PATCH', '/repos/alice/other', { has_pull_requests: false }, alice.token);
      expect((await w.raw('GET', `/repos/alice/other/issues/${n}`, undefined, { token: alice.token })).status).to.equal(404);
      expect((await w.raw('GET', '/repos/alice/other/issues', undefined, { token: alice.token })).status).to.equal(404);
      await ok('PATCH', '/repos/alice/other', { has_issues: true, has_pull_requests: true }, alice.token);
      expect((await ok('GET', `/repos/alice/other/issues/${n}`, undefined, alice.token)).title).to.equal('before');
    });
  });
});
