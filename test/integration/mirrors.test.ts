/**
 * Migrations and mirrors between two running forges and a plain `git http-backend`: POST
 * /repos/migrate (code, private sources with credentials), pull mirrors (syncs after new commits,
 * force-pushes, deleted branches with and without prune; the interval; the schedule; backoff),
 * push mirrors (add, list, get, push now, on commit, delete), and the refusals: Gitea's validation
 * and permission answers, and the server-side request forgery matrix, each with proof that nothing
 * was made. Credentials are looked for where they must never be.
 *
 * `src` runs with the default network rules (loopback refused); `dst` may reach local networks,
 * refuses the name `localhost`, and looks at the mirror schedule every second.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { startWorld, expectError, type World, type TestUser } from '../helpers/world';
import { GitTool, apiRepo, outboxSettled, waitFor } from '../helpers/refs';
import { count, sql } from '../helpers/db';
import { git, gitHome, serverRepoDir } from '../helpers/repo-fixture';
import { startGitHttpBackend, type GitHttpServer } from '../helpers/git-http-backend';

/** Every file under `dir` whose bytes contain `needle`. */
function filesContaining(dir: string, needle: string): string[] {
  const hits: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile() && fs.readFileSync(p).includes(needle)) hits.push(p);
    }
  };
  if (fs.existsSync(dir)) walk(dir);
  return hits;
}

describe('mirrors and migrations', () => {
  let src: World;
  let dst: World;
  let alice: TestUser; // on src: owns the sources
  let bob: TestUser; // on dst: migrates and mirrors
  let carol: TestUser; // on dst: no rights on bob's repositories
  let gs: GitTool;
  let gd: GitTool;
  let plain: GitHttpServer;
  let plainRoot: string;

  const srcUrl = (repo: string) => `${src.server.url}alice/${repo}.git`;
  const repoCount = (w: World) => count(w.server, 'SELECT COUNT(*) AS n FROM repository');
  const refsOf = async (w: World, g: GitTool, owner: string, repo: string) => (await g.serverRefs(owner, repo)).split('\n')
    .filter((l) => / refs\/(heads|tags)\//.test(l)).sort().join('\n');
  const migrate = (body: Record<string, unknown>, u: TestUser = bob, w: World = dst) => w.raw('POST', '/repos/migrate', body, { token: u.token });

  /** Make a refusal's proof: the answer, and no new repository row or directory (counted before the request starts). */
  async function refused(send: () => Promise<import('../helpers/world').RawResponse>, status: number, message: string | RegExp, w: World = dst, name?: string): Promise<void> {
    const before = await repoCount(w);
    expectError(await send(), status, message);
    expect(await repoCount(w)).to.equal(before);
    if (name) expect(fs.existsSync(serverRepoDir(w.server, 'bob', name))).to.equal(false);
  }

  before(async () => {
    [src, dst] = await Promise.all([
      startWorld(),
      startWorld({ env: {
        FORGE__MIGRATIONS__ALLOW_LOCALNETWORKS: 'true', FORGE__MIGRATIONS__BLOCKED_DOMAINS: 'localhost',
        FORGE__CRON_0X2E_UPDATE_MIRRORS__SCHEDULE: '1',
      } }),
    ]);
    [alice, bob, carol] = await Promise.all([src.user('alice'), dst.user('bob'), dst.user('carol')]);
    gs = new GitTool(src);
    gd = new GitTool(dst);
    await apiRepo(src, alice, 'proj');
    await apiRepo(src, alice, 'secret', { auto_init: true, private: true });
    const wc = await gs.clone(alice, 'alice', 'proj');
    await gs.commit(wc, 'a.txt', 'one');
    await gs.ok(['branch', 'feature'], wc);
    await gs.ok(['branch', 'gone'], wc);
    await gs.ok(['branch', 'keep'], wc);
    await gs.ok(['tag', '-a', 'v1', '-m', 'v1'], wc);
    await gs.ok(['push', '-q', 'origin', 'main', 'feature', 'gone', 'keep', 'v1'], wc);
    plainRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'forge-plain-'));
    const home = gitHome();
    await git(['clone', '-q', '--bare', serverRepoDir(src.server, 'alice', 'proj'), path.join(plainRoot, 'plain.git')], { home });
    plain = await startGitHttpBackend(plainRoot);
  });
  after(async () => {
    await plain?.close();
    await Promise.all([src?.stop(), dst?.stop()]);
  });

  describe('migrate', () => {
    it('copies the branches and tags of another forge and remembers where they came from', async () => {
      const r = await migrate({ clone_addr: srcUrl('proj'), repo_name: 'proj-copy', description: 'copied' });
      expect(r.status, r.text).to.equal(201);
      expect(r.body).to.include({ name: 'proj-copy', mirror: false, empty: false, default_branch: 'main', original_url: srcUrl('proj'), description: 'copied' });
      expect(r.body.permissions).to.deep.equal({ admin: true, push: true, pull: true });
      expect(await refsOf(dst, gd, 'bob', 'proj-copy')).to.equal(await refsOf(src, gs, 'alice', 'proj'));
      const branches = await dst.raw('GET', '/repos/bob/proj-copy/branches', undefined, { token: bob.token });
      expect(branches.body.map((b: { name: string }) => b.name).sort()).to.deep.equal(['feature', 'gone', 'keep', 'main']);
      const tags = await dst.raw('GET', '/repos/bob/proj-copy/tags', undefined, { token: bob.token });
      expect(tags.body.map((t: { name: string }) => t.name)).to.deep.equal(['v1']);
      // why: the server owns the repository's configuration; the source's address lives in the database only.
      const config = fs.readFileSync(path.join(serverRepoDir(dst.server, 'bob', 'proj-copy'), 'config'), 'utf8');
      expect(config).to.not.include('[remote');
      expect(config).to.include('fsckObjects = true');
    });

    it('migrates from a plain git server (git http-backend)', async () => {
      const r = await migrate({ clone_addr: `${plain.url}plain.git`, repo_name: 'from-plain', service: 'git' });
      expect(r.status, r.text).to.equal(201);
      expect(await refsOf(dst, gd, 'bob', 'from-plain')).to.equal(await refsOf(src, gs, 'alice', 'proj'));
    });

    it('shows a migration that is running on the repository page, and the repository once it is done', async () => {
      const release = plain.hold();
      const running = migrate({ clone_addr: `${plain.url}plain.git`, repo_name: 'slow-copy', service: 'git' });
      try {
        await waitFor('the row of the running migration', async () => (await count(dst.server, "SELECT COUNT(*) AS n FROM repository WHERE lower_name = 'slow-copy' AND status = 1")) === 1);
        const page = await fetch(`${dst.server.url}bob/slow-copy`);
        const html = await page.text();
        expect(page.status).to.equal(200);
        expect(page.headers.get('refresh')).to.equal('3');
        expect(html).to.include(`Migrating from <a href="${plain.url}plain.git"`);
      } finally {
        release();
      }
      const r = await running;
      expect(r.status, r.text).to.equal(201);
      const done = await (await fetch(`${dst.server.url}bob/slow-copy`)).text();
      expect(done).to.not.include('Migrating from');
      expect(done).to.include('a.txt');
    });

    it('signs in to a private source with the credentials given, and keeps them nowhere', async () => {
      const r = await migrate({ clone_addr: srcUrl('secret'), repo_name: 'secret-copy', auth_username: 'alice', auth_password: alice.password, private: true });
      expect(r.status, r.text).to.equal(201);
      expect(r.body).to.include({ private: true, original_url: srcUrl('secret') });
      await refused(() => migrate({ clone_addr: srcUrl('secret'), repo_name: 'secret-bad', auth_username: 'alice', auth_password: 'wrong-password-1' }), 422, /^Authentication failed: /, dst, 'secret-bad');
      // why: userinfo typed into the address is taken as the credentials and never shown.
      const inUrl = srcUrl('secret').replace('http://', `http://alice:${alice.password}@`);
      const r2 = await migrate({ clone_addr: inUrl, repo_name: 'secret-userinfo' });
      expect(r2.status, r2.text).to.equal(201);
      expect(r2.body.original_url).to.equal(srcUrl('secret'));
      const shown = await dst.raw('GET', '/repos/bob/secret-userinfo', undefined, { token: bob.token });
      expect(shown.text).to.not.include(alice.password);
      expect(filesContaining(serverRepoDir(dst.server, 'bob', 'secret-copy'), alice.password)).to.deep.equal([]);
      expect(filesContaining(serverRepoDir(dst.server, 'bob', 'secret-userinfo'), alice.password)).to.deep.equal([]);
      expect(dst.server.output).to.not.include(alice.password);
      const rows = await sql(dst.server, "SELECT original_url FROM repository WHERE lower_name IN ('secret-copy', 'secret-userinfo')");
      expect(rows.map((x) => x.original_url)).to.deep.equal([srcUrl('secret'), srcUrl('secret')]);
    });

    it('refuses bad input and other owners with Gitea\'s answers, making nothing', async () => {
      await refused(() => migrate({ repo_name: 'x1' }), 422, /clone_addr/);
      await refused(() => migrate({ clone_addr: srcUrl('proj') }), 422, /repo_name/);
      await refused(() => migrate({ clone_addr: '  ', repo_name: 'x1' }), 422, '[CloneAddr]: Required');
      await refused(() => migrate({ clone_addr: srcUrl('proj'), repo_name: 'bad name' }), 422, '[RepoName]: AlphaDashDot');
      await refused(() => migrate({ clone_addr: srcUrl('proj'), repo_name: 'proj-copy' }), 409, 'The repository with the same name already exists.');
      await refused(() => migrate({ clone_addr: srcUrl('proj'), repo_name: 'x2', repo_owner: 'carol' }), 403, 'Given user is not an organization.');
      await refused(() => migrate({ clone_addr: srcUrl('proj'), repo_name: 'x3', repo_owner: 'nobody-here' }), 422, 'user does not exist [uid: 0, name: nobody-here]');
      await refused(() => migrate({ clone_addr: srcUrl('proj'), repo_name: 'x4', service: 'github' }), 422, /github/);
      await refused(() => migrate({ clone_addr: srcUrl('proj'), repo_name: 'x5', mirror: true, mirror_interval: 'often' }), 422, /invalid mirror interval/);
      await refused(() => migrate({ clone_addr: srcUrl('proj'), repo_name: 'x6', mirror: true, mirror_interval: '5m' }), 422, 'invalid mirror interval: 5m0s is below minimum interval: 10m0s');
      await refused(() => migrate({ clone_addr: `${plain.url}missing.git`, repo_name: 'x7' }), 422, /^Migration failed: /, dst, 'x7');
      const org = await dst.raw('POST', '/orgs', { username: 'carols-org' }, { token: carol.token });
      expect(org.status, org.text).to.equal(201);
      await refused(() => migrate({ clone_addr: srcUrl('proj'), repo_name: 'x8', repo_owner: 'carols-org' }), 403, 'Given user is not owner of organization.');
    });

    it('refuses every address into the server\'s own network (default rules), making nothing', async () => {
      const marker = path.join(os.tmpdir(), `forge-ssrf-${process.pid}`);
      const cases: [string, string | RegExp][] = [
        ['file:///etc', 'You are not allowed to import local repositories.'],
        [serverRepoDir(src.server, 'alice', 'secret'), 'You are not allowed to import local repositories.'],
        [`ext::sh -c touch% ${marker}`, /the provided url protocol is not allowed$/],
        [`--upload-pack=touch ${marker}`, /the provided url is invalid$/],
        ['ssh://git@127.0.0.1/alice/proj.git', /the provided url protocol is not allowed$/],
        ['git://127.0.0.1/alice/proj.git', /the provided url protocol is not allowed$/],
        [`${src.server.url}alice/proj.git`, 'You can not import from disallowed hosts.'],
        ['http://127.0.0.1:22/', 'You can not import from disallowed hosts.'],
        ['http://[::1]/x.git', 'You can not import from disallowed hosts.'],
        ['http://[::ffff:127.0.0.1]/x.git', 'You can not import from disallowed hosts.'],
        ['http://0/x.git', 'You can not import from disallowed hosts.'],
        ['http://2130706433/x.git', 'You can not import from disallowed hosts.'],
        ['http://169.254.169.254/latest/meta-data/', 'You can not import from disallowed hosts.'],
        ['http://10.1.2.3/x.git', 'You can not import from disallowed hosts.'],
        ['http://no-such-host.invalid/x.git', 'You can not import from disallowed hosts.'],
        ['http://user%0d%0aX:pw@example.com/x.git', /the provided url is invalid$/],
        ['http://example.com/x.git%0d%0aHost: evil', /the provided url is invalid$/],
      ];
      for (const [addr, message] of cases) {
        await refused(() => migrate({ clone_addr: addr, repo_name: 'ssrf' }, alice, src), 422, message, src);
      }
      expect(fs.existsSync(marker)).to.equal(false);
    });

    it('never follows a redirect, and refuses a host name the administrator blocked', async () => {
      const before = plain.requests.length;
      await refused(() => migrate({ clone_addr: `${plain.url}redirect/plain.git`, repo_name: 'redirected' }), 422, /^Migration failed: /, dst, 'redirected');
      const seen = plain.requests.slice(before);
      expect(seen.length).to.be.greaterThan(0);
      expect(seen.every((r) => r.includes('/redirect/')), seen.join(', ')).to.equal(true);
      const port = new URL(src.server.url).port;
      await refused(() => migrate({ clone_addr: `http://localhost:${port}/alice/proj.git`, repo_name: 'by-name' }), 422, 'You can not import from disallowed hosts.');
    });
  });

  describe('migrate from a Gitea-compatible API', () => {
    let tracker: string; // alice/tracker on src, with issues, comments, labels, a milestone and a pull request
    const get = async (p: string) => (await dst.raw('GET', p, undefined, { token: bob.token })).body;

    before(async () => {
      const ok = async (u: TestUser, method: string, p: string, body?: unknown) => {
        const r = await src.raw(method, p, body, { token: u.token });
        if (r.status >= 300) throw new Error(`${method} ${p}: ${r.status} ${r.text}`);
        return r.body;
      };
      const [erin, frank] = await Promise.all([src.user('erin'), src.user('frank')]);
      await dst.user('erin');
      await apiRepo(src, alice, 'tracker');
      tracker = srcUrl('tracker');
      const bug = await ok(alice, 'POST', '/repos/alice/tracker/labels', { name: 'bug', color: '#ee0701' });
      await ok(alice, 'POST', '/repos/alice/tracker/labels', { name: 'docs', color: '0075ca' });
      const ms = await ok(alice, 'POST', '/repos/alice/tracker/milestones', { title: 'v1.0' });
      await ok(alice, 'POST', '/repos/alice/tracker/issues', { title: 'The parser loses umlauts', body: 'Steps: feed it zürich', labels: [bug.id], milestone: ms.id });
      await ok(alice, 'POST', '/repos/alice/tracker/issues/1/reactions', { content: 'heart' });
      await ok(frank, 'POST', '/repos/alice/tracker/issues/1/reactions', { content: 'heart' });
      await ok(erin, 'POST', '/repos/alice/tracker/issues/1/comments', { body: 'Seen it too.' });
      await ok(frank, 'POST', '/repos/alice/tracker/issues/1/comments', { body: 'Here is a fix idea.' });
      await ok(alice, 'POST', '/repos/alice/tracker/issues', { title: 'Old question' });
      await ok(alice, 'PATCH', '/repos/alice/tracker/issues/2', { state: 'closed' });
      await ok(alice, 'POST', '/repos/alice/tracker/contents/fix.txt', { content: Buffer.from('fix\n').toString('base64'), new_branch: 'fix', message: 'Fix it' });
      await ok(alice, 'POST', '/repos/alice/tracker/pulls', { head: 'fix', base: 'main', title: 'Fix the parser', body: 'Fixes #1' });
      await ok(erin, 'POST', '/repos/alice/tracker/pulls/3/reviews', { event: 'APPROVED', body: 'Looks good', comments: [{ path: 'fix.txt', new_position: 1, body: 'Nice line.' }] });
      const rel = await ok(alice, 'POST', '/repos/alice/tracker/releases', { tag_name: 'v1', name: 'One', body: 'First notes' });
      const form = new FormData();
      form.append('attachment', new Blob([Buffer.from('release bytes\n')]), 'notes.txt');
      const up = await fetch(`${src.server.api}/repos/alice/tracker/releases/${rel.id}/assets?name=notes.txt`, { method: 'POST', headers: { Authorization: `token ${alice.token}` }, body: form });
      expect(up.status, await up.text()).to.equal(201);
    });

    it('brings labels, milestones, issues with their comments and reactions, and pull requests, keeping numbers and authors', async () => {
      const r = await migrate({
        clone_addr: tracker, repo_name: 'tracker', service: 'gitea', auth_username: 'alice', auth_password: alice.password,
        issues: true, labels: true, milestones: true, pull_requests: true, releases: true,
      });
      expect(r.status, r.text).to.equal(201);
      expect(r.body).to.include({ open_issues_count: 1, open_pr_counter: 1 });
      const issues = (await get('/repos/bob/tracker/issues?state=all&type=issues')).sort((a: { number: number }, b: { number: number }) => a.number - b.number);
      expect(issues.map((i: { number: number; title: string; state: string }) => [i.number, i.title, i.state])).to.deep.equal([[1, 'The parser loses umlauts', 'open'], [2, 'Old question', 'closed']]);
      const one = issues[0];
      expect(one.labels.map((l: { name: string }) => l.name)).to.deep.equal(['bug']);
      expect(one.milestone.title).to.equal('v1.0');
      // why: alice has no account here, so the issue is the migrating user's, with her name and id kept.
      expect([one.user.login, one.original_author, one.original_author_id]).to.deep.equal(['bob', 'alice', alice.id]);
      const comments = await get('/repos/bob/tracker/issues/1/comments');
      expect(comments.map((c: { user: { login: string }; original_author: string; body: string }) => [c.user.login, c.original_author, c.body])).to.deep.equal([
        ['erin', '', 'Seen it too.'], ['bob', 'frank', 'Here is a fix idea.'],
      ]);
      // why: two people of the source with the same reaction are both kept, by name, though both rows are bob's on behalf.
      const reactions = async () => (await get('/repos/bob/tracker/issues/1/reactions')).map((x: { content: string; user: { login: string } }) => [x.user.login, x.content]);
      expect(await reactions()).to.deep.equal([['alice(Gitea)', 'heart'], ['frank(Gitea)', 'heart']]);
      const mine = await dst.raw('POST', '/repos/bob/tracker/issues/1/reactions', { content: 'heart' }, { token: bob.token });
      expect(mine.status, mine.text).to.equal(201);
      expect(await reactions()).to.deep.equal([['alice(Gitea)', 'heart'], ['frank(Gitea)', 'heart'], ['bob', 'heart']]);
      expect((await dst.raw('DELETE', '/repos/bob/tracker/issues/1/reactions', { content: 'heart' }, { token: bob.token })).status).to.equal(200);
      expect(await reactions()).to.deep.equal([['alice(Gitea)', 'heart'], ['frank(Gitea)', 'heart']]);
      const pull = await get('/repos/bob/tracker/pulls/3');
      expect(pull).to.include({ number: 3, title: 'Fix the parser', state: 'open' });
      expect(pull.head.ref).to.equal('fix');
      expect(await gd.serverRef('bob', 'tracker', 'refs/pull/3/head')).to.equal(await gs.serverRef('alice', 'tracker', 'refs/heads/fix'));
      expect((await get('/repos/bob/tracker/issues?q=umlauts')).map((i: { number: number }) => i.number)).to.deep.equal([1]);
      const next = await dst.raw('POST', '/repos/bob/tracker/issues', { title: 'A new one' }, { token: bob.token });
      expect(next.body.number).to.equal(4);
      const reviews = await get('/repos/bob/tracker/pulls/3/reviews');
      expect(reviews.map((r: { user: { login: string }; state: string; body: string }) => [r.user.login, r.state, r.body])).to.deep.equal([['erin', 'APPROVED', 'Looks good']]);
      const lineComments = await get(`/repos/bob/tracker/pulls/3/reviews/${reviews[0].id}/comments`);
      expect(lineComments.map((c: { path: string; body: string }) => [c.path, c.body])).to.deep.equal([['fix.txt', 'Nice line.']]);
      const releases = await get('/repos/bob/tracker/releases');
      expect(releases.map((x: { tag_name: string; name: string; body: string }) => [x.tag_name, x.name, x.body])).to.deep.equal([['v1', 'One', 'First notes']]);
      expect(releases[0].assets.map((a: { name: string }) => a.name)).to.deep.equal(['notes.txt']);
      const bytes = await (await fetch(releases[0].assets[0].browser_download_url)).text();
      expect(bytes).to.equal('release bytes\n');
      const page = await (await fetch(`${dst.server.url}bob/tracker/issues/1`)).text();
      const host = new URL(src.server.url).host;
      expect(page).to.include(`<strong>alice</strong> <span class="muted">(migrated from ${host})</span> opened this issue`);
      expect(page).to.include(`<strong>frank</strong> <span class="muted">(migrated from ${host})</span> commented`);
    });

    it('migrates from itself: a copy of the migrated repository with its issues, comments and pull request', async () => {
      const r = await migrate({ clone_addr: `${dst.server.url}bob/tracker.git`, repo_name: 'tracker-again', service: 'gitea', auth_token: bob.token, issues: true, pull_requests: true, labels: true });
      expect(r.status, r.text).to.equal(201);
      const titles = async (repo: string) => (await get(`/repos/bob/${repo}/issues?state=all`)).map((i: { number: number; title: string }) => `${i.number} ${i.title}`).sort();
      expect(await titles('tracker-again')).to.deep.equal(await titles('tracker'));
      const bodies = async (repo: string) => (await get(`/repos/bob/${repo}/issues/1/comments`)).map((c: { body: string }) => c.body);
      expect(await bodies('tracker-again')).to.deep.equal(await bodies('tracker'));
    });

    it('imports nothing but the code without the switches, and fails whole when the source refuses', async () => {
      const r = await migrate({ clone_addr: tracker, repo_name: 'tracker-code', service: 'gitea', auth_username: 'alice', auth_password: alice.password });
      expect(r.status, r.text).to.equal(201);
      expect(await get('/repos/bob/tracker-code/issues?state=all')).to.deep.equal([]);
      const before = await count(dst.server, 'SELECT COUNT(*) AS n FROM issue');
      await refused(() => migrate({ clone_addr: srcUrl('secret'), repo_name: 'no-access', service: 'gitea', auth_token: 'not-a-token', issues: true }), 422, /^Authentication failed/, dst, 'no-access');
      expect(await count(dst.server, 'SELECT COUNT(*) AS n FROM issue')).to.equal(before);
    });
  });

  describe('pull mirrors', () => {
    let upstream: string; // alice's working copy of proj

    before(async () => {
      upstream = await gs.clone(alice, 'alice', 'proj');
    });

    const mirrorRow = async (name: string) => (await sql(dst.server, 'SELECT m.* FROM mirror m JOIN repository r ON r.id = m.repo_id WHERE r.lower_name = $1', [name]))[0];
    const repoJson = async (name: string) => (await dst.raw('GET', `/repos/bob/${name}`, undefined, { token: bob.token })).body;
    const sync = async (name: string, u: TestUser = bob) => dst.raw('POST', `/repos/bob/${name}/mirror-sync`, undefined, { token: u.token });
    const nowS = () => Math.floor(Date.now() / 1000);

    it('is made by a migration with `mirror`, shows Gitea\'s fields, and refuses pushes', async () => {
      const r = await migrate({ clone_addr: srcUrl('proj'), repo_name: 'mirror', mirror: true, mirror_interval: '10m' });
      expect(r.status, r.text).to.equal(201);
      expect(r.body).to.include({ mirror: true, mirror_interval: '10m0s', empty: false });
      expect(r.body.mirror_updated).to.not.equal('0001-01-01T00:00:00Z');
      expect(Number((await mirrorRow('mirror')).next_update_unix)).to.be.within(nowS() + 590, nowS() + 610);
      const wc = await gd.clone(bob, 'bob', 'mirror');
      await gd.commit(wc, 'b.txt', 'mine');
      const push = await gd.run(['push', 'origin', 'main'], wc);
      expect(push.code).to.not.equal(0);
      expect(push.stderr).to.include('mirror repository is read-only');
      const head = await gd.serverRef('bob', 'mirror', 'refs/heads/main');
      expectError(await dst.raw('POST', '/repos/bob/mirror/contents/x.txt', { content: 'eA==' }, { token: bob.token }), 403, 'Git Repository is a mirror.');
      expectError(await dst.raw('POST', '/repos/bob/mirror/branches', { new_branch_name: 'x' }, { token: bob.token }), 403, 'Git Repository is a mirror.');
      expect(await gd.serverRef('bob', 'mirror', 'refs/heads/main')).to.equal(head);
    });

    it('follows new commits, force-pushes, new tags and deleted branches (prune on)', async () => {
      const pushesBefore = await count(dst.server, "SELECT COUNT(*) AS n FROM push_event p JOIN repository r ON r.id = p.repo_id WHERE r.lower_name = 'mirror'");
      await gs.commit(upstream, 'c.txt', 'two');
      await gs.ok(['push', '-q', 'origin', 'main'], upstream);
      await gs.ok(['checkout', '-q', '--orphan', 'rewritten'], upstream);
      await gs.commit(upstream, 'd.txt', 'unrelated');
      await gs.ok(['push', '-q', '--force', 'origin', 'rewritten:feature'], upstream);
      await gs.ok(['checkout', '-q', 'main'], upstream);
      await gs.ok(['tag', 'v2'], upstream);
      await gs.ok(['push', '-q', 'origin', 'v2', ':gone'], upstream);
      const r = await sync('mirror');
      expect(r.status, r.text).to.equal(200);
      expect(r.text).to.equal('');
      const want = await refsOf(src, gs, 'alice', 'proj');
      await waitFor('the mirror to follow', async () => (await refsOf(dst, gd, 'bob', 'mirror')) === want);
      await outboxSettled(dst);
      const branches = await dst.raw('GET', '/repos/bob/mirror/branches', undefined, { token: bob.token });
      expect(branches.body.map((b: { name: string }) => b.name).sort()).to.deep.equal(['feature', 'keep', 'main']);
      const tags = await dst.raw('GET', '/repos/bob/mirror/tags', undefined, { token: bob.token });
      expect(tags.body.map((t: { name: string }) => t.name).sort()).to.deep.equal(['v1', 'v2']);
      expect(await count(dst.server, "SELECT COUNT(*) AS n FROM push_event p JOIN repository r ON r.id = p.repo_id WHERE r.lower_name = 'mirror'")).to.be.greaterThan(pushesBefore);
      expect((await repoJson('mirror')).mirror_updated).to.not.equal('0001-01-01T00:00:00Z');
    });

    it('keeps a branch deleted upstream when prune is off', async () => {
      const p = await dst.raw('PATCH', '/repos/bob/mirror', { enable_prune: false }, { token: bob.token });
      expect(p.status, p.text).to.equal(200);
      const head = await gs.commit(upstream, 'e.txt', 'three');
      await gs.ok(['push', '-q', 'origin', 'main', ':keep'], upstream);
      expect((await sync('mirror')).status).to.equal(200);
      await waitFor('the new commit', async () => (await gd.serverRef('bob', 'mirror', 'refs/heads/main')) === head);
      await outboxSettled(dst);
      expect(await gd.serverRef('bob', 'mirror', 'refs/heads/keep')).to.not.equal(null);
    });

    it('takes an interval in Gitea\'s form, holds it to the minimum, and stops the schedule at 0', async () => {
      expectError(await dst.raw('PATCH', '/repos/bob/mirror', { mirror_interval: '5m' }, { token: bob.token }), 422, 'invalid mirror interval: 5m0s is below minimum interval: 10m0s');
      expect((await repoJson('mirror')).mirror_interval).to.equal('10m0s');
      const p = await dst.raw('PATCH', '/repos/bob/mirror', { mirror_interval: '1h30m' }, { token: bob.token });
      expect(p.status, p.text).to.equal(200);
      expect(p.body.mirror_interval).to.equal('1h30m0s');
      expect(Number((await mirrorRow('mirror')).next_update_unix)).to.be.within(nowS() + 5390, nowS() + 5410);
      const z = await dst.raw('PATCH', '/repos/bob/mirror', { mirror_interval: '0' }, { token: bob.token });
      expect(z.body.mirror_interval).to.equal('0s');
      expect(Number((await mirrorRow('mirror')).next_update_unix)).to.equal(0);
      expect((await dst.raw('PATCH', '/repos/bob/mirror', { mirror_interval: '10m' }, { token: bob.token })).status).to.equal(200);
    });

    it('syncs a due mirror from the schedule, once', async () => {
      const head = await gs.commit(upstream, 'f.txt', 'four');
      await gs.ok(['push', '-q', 'origin', 'main'], upstream);
      const jobs = () => count(dst.server, "SELECT COUNT(*) AS n FROM outbox WHERE topic = 'mirror.pull-sync'");
      const before = await jobs();
      await sql(dst.server, "UPDATE mirror SET next_update_unix = 1 WHERE repo_id = (SELECT id FROM repository WHERE lower_name = 'mirror')");
      await waitFor('the scheduled sync', async () => (await gd.serverRef('bob', 'mirror', 'refs/heads/main')) === head);
      await outboxSettled(dst);
      expect(Number((await mirrorRow('mirror')).next_update_unix)).to.be.within(nowS() + 590, nowS() + 610);
      expect(await jobs()).to.equal(before + 1);
    });

    it('backs off a failing mirror, and keeps its password out of logs, answers and files', async () => {
      await apiRepo(src, alice, 'doomed', { auto_init: true, private: true });
      const r = await migrate({ clone_addr: srcUrl('doomed'), repo_name: 'doomed-mirror', mirror: true, auth_username: 'alice', auth_password: alice.password });
      expect(r.status, r.text).to.equal(201);
      expect(r.body.mirror_interval).to.equal('8h0m0s');
      expect((await src.raw('DELETE', '/repos/alice/doomed', undefined, { token: alice.token })).status).to.equal(204);
      for (const failures of [1, 2]) {
        expect((await sync('doomed-mirror')).status).to.equal(200);
        await waitFor(`failure ${failures}`, async () => Number((await mirrorRow('doomed-mirror')).failures) === failures);
        const row = await mirrorRow('doomed-mirror');
        expect(Number(row.next_update_unix)).to.be.within(nowS() + 600 * 2 ** (failures - 1) - 10, nowS() + 600 * 2 ** (failures - 1) + 10);
        expect(row.last_error).to.not.equal('');
        expect(row.last_error).to.not.include(alice.password);
        expect(row.credentials).to.not.include(alice.password);
      }
      expect(JSON.stringify(await repoJson('doomed-mirror'))).to.not.include(alice.password);
      expect(filesContaining(serverRepoDir(dst.server, 'bob', 'doomed-mirror'), alice.password)).to.deep.equal([]);
      expect(dst.server.output).to.not.include(alice.password);
    });

    it('queues a sync only for writers of a mirror, with Gitea\'s answers, queuing nothing otherwise', async () => {
      const jobs = () => count(dst.server, "SELECT COUNT(*) AS n FROM outbox WHERE topic = 'mirror.pull-sync'");
      const before = await jobs();
      expectError(await sync('secret-copy', carol), 404);
      const collab = await dst.raw('PUT', '/repos/bob/mirror/collaborators/carol', { permission: 'read' }, { token: bob.token });
      expect(collab.status, collab.text).to.equal(204);
      expectError(await sync('mirror', carol), 403, 'user should have a permission to write to a repo');
      expectError(await sync('proj-copy'), 400, 'Repository is not a mirror');
      expect(await jobs()).to.equal(before);
    });
  });

  describe('LFS objects', () => {
    const putFile = async (repo: string, file: string, content: string) => {
      const r = await src.raw('POST', `/repos/alice/${repo}/contents/${file}`, { content: Buffer.from(content).toString('base64'), message: `add ${file}` }, { token: alice.token });
      if (r.status !== 201) throw new Error(`${file}: ${r.status} ${r.text}`);
    };
    const media = async (repo: string, file: string) => {
      const r = await fetch(`${dst.server.api}/repos/bob/${repo}/media/${file}`, { headers: { Authorization: `token ${bob.token}` } });
      return { status: r.status, text: await r.text() };
    };

    before(async () => {
      await apiRepo(src, alice, 'assets', { auto_init: true, private: true });
      await putFile('assets', '.gitattributes', '*.bin filter=lfs diff=lfs merge=lfs -text\n');
      await putFile('assets', 'big.bin', 'large bytes, one\n');
    });

    it('brings the LFS objects of a private source with `lfs`, and leaves them behind without it', async () => {
      const auth = { auth_username: 'alice', auth_password: alice.password };
      const r = await migrate({ clone_addr: srcUrl('assets'), repo_name: 'assets-copy', lfs: true, ...auth });
      expect(r.status, r.text).to.equal(201);
      expect(await media('assets-copy', 'big.bin')).to.deep.equal({ status: 200, text: 'large bytes, one\n' });
      const plainCopy = await migrate({ clone_addr: srcUrl('assets'), repo_name: 'assets-code', ...auth });
      expect(plainCopy.status, plainCopy.text).to.equal(201);
      // why: without the object, the media route gives the pointer file itself, as Gitea does.
      expect((await media('assets-code', 'big.bin')).text).to.match(/^version https:\/\/git-lfs\.github\.com\/spec\/v1\noid sha256:/);
    });

    it('a mirror with `lfs` brings the objects of later commits on each sync', async () => {
      const r = await migrate({ clone_addr: srcUrl('assets'), repo_name: 'assets-mirror', mirror: true, lfs: true, auth_username: 'alice', auth_password: alice.password });
      expect(r.status, r.text).to.equal(201);
      await putFile('assets', 'second.bin', 'large bytes, two\n');
      expect((await dst.raw('POST', '/repos/bob/assets-mirror/mirror-sync', undefined, { token: bob.token })).status).to.equal(200);
      await waitFor('the mirror to bring second.bin', async () => (await media('assets-mirror', 'second.bin')).text === 'large bytes, two\n');
      expect(await media('assets-mirror', 'second.bin')).to.deep.equal({ status: 200, text: 'large bytes, two\n' });
    });

    it('refuses an LFS endpoint outside the migration rules, making nothing', async () => {
      await refused(() => migrate({ clone_addr: srcUrl('assets'), repo_name: 'assets-bad', lfs: true, lfs_endpoint: 'file:///etc', auth_username: 'alice', auth_password: alice.password }),
        422, 'You are not allowed to import local repositories.', dst, 'assets-bad');
      await refused(() => migrate({ clone_addr: srcUrl('assets'), repo_name: 'assets-bad', lfs: true, lfs_endpoint: 'http://localhost:1/lfs', auth_username: 'alice', auth_password: alice.password }),
        422, 'You can not import from disallowed hosts.', dst, 'assets-bad');
    });
  });

  describe('wikis', () => {
    const page = async (w: World, owner: string, repo: string, name: string, token: string) => w.raw('GET', `/repos/${owner}/${repo}/wiki/page/${name}`, undefined, { token });
    const addPage = async (title: string, text: string) => {
      const r = await src.raw('POST', '/repos/alice/docs/wiki/new', { title, content_base64: Buffer.from(text).toString('base64') }, { token: alice.token });
      if (r.status !== 201) throw new Error(`${title}: ${r.status} ${r.text}`);
    };

    before(async () => {
      await apiRepo(src, alice, 'docs', { auto_init: true });
      await addPage('Home', 'Welcome');
    });

    it('a migration with `wiki` copies the wiki, and a mirror keeps following it', async () => {
      const copy = await migrate({ clone_addr: srcUrl('docs'), repo_name: 'docs-copy', wiki: true });
      expect(copy.status, copy.text).to.equal(201);
      expect((await page(dst, 'bob', 'docs-copy', 'Home', bob.token)).status).to.equal(200);
      const mirror = await migrate({ clone_addr: srcUrl('docs'), repo_name: 'docs-mirror', wiki: true, mirror: true });
      expect(mirror.status, mirror.text).to.equal(201);
      await addPage('Install', 'Run it');
      expect((await page(dst, 'bob', 'docs-mirror', 'Install', bob.token)).status).to.equal(404);
      expect((await dst.raw('POST', '/repos/bob/docs-mirror/mirror-sync', undefined, { token: bob.token })).status).to.equal(200);
      await waitFor('the mirror to bring the new wiki page', async () => (await page(dst, 'bob', 'docs-mirror', 'Install', bob.token)).status === 200);
      expect(Buffer.from((await page(dst, 'bob', 'docs-mirror', 'Install', bob.token)).body.content_base64, 'base64').toString()).to.equal('Run it');
    });
  });

  describe('push mirrors', () => {
    let name = '';
    const pm = (p: string, method = 'GET', body?: unknown, u: TestUser = bob) => dst.raw(method, `/repos/bob/proj-copy/push_mirrors${p}`, body, { token: u.token });
    const total = async () => Number((await pm('')).headers.get('x-total-count'));

    before(async () => {
      await apiRepo(src, alice, 'target', { auto_init: false });
    });

    it('is added with Gitea\'s fields and pushes every branch and tag on demand', async () => {
      const r = await pm('', 'POST', { remote_address: srcUrl('target'), remote_username: 'alice', remote_password: alice.password, interval: '8h', sync_on_commit: true });
      expect(r.status, r.text).to.equal(200);
      expect(r.body.remote_name).to.match(/^remote_mirror_[A-Za-z0-9]{10}$/);
      expect(r.body).to.include({ repo_name: 'proj-copy', remote_address: srcUrl('target'), interval: '8h0m0s', sync_on_commit: true, last_update: '1970-01-01T00:00:00Z', last_error: '' });
      name = r.body.remote_name;
      expect(await total()).to.equal(1);
      expect((await pm(`/${name}`)).body.remote_name).to.equal(name);
      const s = await dst.raw('POST', '/repos/bob/proj-copy/push_mirrors-sync', undefined, { token: bob.token });
      expect(s.status, s.text).to.equal(200);
      expect(await refsOf(src, gs, 'alice', 'target')).to.equal(await refsOf(dst, gd, 'bob', 'proj-copy'));
      const after = (await pm(`/${name}`)).body;
      expect(after.last_update).to.not.equal('1970-01-01T00:00:00Z');
      expect(after.last_error).to.equal('');
    });

    it('pushes after each push when sync_on_commit is set, deletions included', async () => {
      const wc = await gd.clone(bob, 'bob', 'proj-copy');
      const head = await gd.commit(wc, 'g.txt', 'five');
      await gd.ok(['push', '-q', 'origin', 'main', ':gone'], wc);
      await waitFor('the push mirror', async () => (await gs.serverRef('alice', 'target', 'refs/heads/main')) === head);
      await waitFor('the deleted branch', async () => (await gs.serverRef('alice', 'target', 'refs/heads/gone')) === null);
    });

    it('refuses non-administrators, bad intervals and bad addresses, adding nothing', async () => {
      const n = await total();
      expectError(await pm('', 'GET', undefined, carol), 403, 'user should be an owner or a collaborator with admin write of a repository');
      const collab = await dst.raw('PUT', '/repos/bob/proj-copy/collaborators/carol', { permission: 'write' }, { token: bob.token });
      expect(collab.status).to.equal(204);
      expectError(await pm('', 'GET', undefined, carol), 403, 'user should be an owner or a collaborator with admin write of a repository');
      expectError(await pm('', 'POST', { remote_address: srcUrl('target'), interval: '8h' }, carol), 403);
      expectError(await pm('', 'POST', { remote_address: srcUrl('target'), interval: 'often' }), 400, 'time: invalid duration "often"');
      expectError(await pm('', 'POST', { remote_address: srcUrl('target'), interval: '1m' }), 400, /below minimum interval/);
      expectError(await pm('', 'POST', { remote_address: 'ext::sh -c id', interval: '8h' }), 400, 'Invalid mirror protocol');
      expectError(await pm('', 'POST', { remote_address: '--upload-pack=id', interval: '8h' }), 400, 'Invalid Url ');
      expectError(await pm('', 'POST', { remote_address: 'http://localhost/x.git', interval: '8h' }), 401, 'Permission denied');
      expect(await total()).to.equal(n);
      // why: on default rules, a push mirror into the server's own network is refused too.
      expectError(await src.raw('POST', '/repos/alice/proj/push_mirrors', { remote_address: `${dst.server.url}bob/proj-copy.git`, interval: '8h' }, { token: alice.token }), 401, 'Permission denied');
    });

    it('records a failed push without the password, and is deleted by name', async () => {
      const r = await pm('', 'POST', { remote_address: srcUrl('target'), remote_username: 'alice', remote_password: 'not-her-password-9', interval: '0' });
      expect(r.status, r.text).to.equal(200);
      expect(r.body.interval).to.equal('0s');
      expect((await dst.raw('POST', '/repos/bob/proj-copy/push_mirrors-sync', undefined, { token: bob.token })).status).to.equal(200);
      const failed = (await pm(`/${r.body.remote_name}`)).body;
      expect(failed.last_error).to.not.equal('');
      expect(failed.last_error).to.not.include('not-her-password-9');
      expect(dst.server.output).to.not.include('not-her-password-9');
      expect(filesContaining(serverRepoDir(dst.server, 'bob', 'proj-copy'), alice.password)).to.deep.equal([]);
      expect((await pm(`/${r.body.remote_name}`, 'DELETE')).status).to.equal(204);
      expectError(await pm(`/${r.body.remote_name}`, 'DELETE'), 404);
      expectError(await pm(`/${r.body.remote_name}`), 404);
      expect(await total()).to.equal(1);
    });
  });
});
