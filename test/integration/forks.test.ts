/**
 * Forks: POST/GET /repos/{owner}/{repo}/forks with gitea-js and raw HTTP. The fork is checked with
 * the git CLI over HTTP (clone, refs) and on disk (server config, hooks); every refusal shows its
 * body and that nothing changed; counters follow creation and deletion; visibility of private
 * parents and private owners; Gitea's limit and DISABLE_FORKS settings.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startWorld, type World, type TestUser, type RawResponse } from '../helpers/world';
import { count, sql } from '../helpers/db';
import { git, gitHome, serverRepoDir, type GitResult } from '../helpers/repo-fixture';

function expectError(res: RawResponse, status: number, message?: string | RegExp): void {
  expect(res.status, res.text).to.equal(status);
  if (message instanceof RegExp) expect(res.body.message).to.match(message);
  else if (message !== undefined) expect(res.body.message).to.equal(message);
}

describe('forks', () => {
  let w: World;
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;
  let dave: TestUser;
  let eve: TestUser;
  let home: string;
  let tmp: string;
  let n = 0;
  const g = (args: string[], cwd?: string) => git(args, { cwd, home });
  const ok = (r: GitResult) => { expect(r.code, r.stderr).to.equal(0); return r; };
  const url = (u: TestUser | null, full: string) => `http://${u ? `${u.name}:${u.token}@` : ''}${new URL(w.server.url).host}/${full}.git`;
  const dir = () => path.join(tmp, `c${++n}`);
  const numRepos = async (name: string) => Number((await sql(w.server, 'SELECT num_repos FROM users WHERE lower_name = $1', [name]))[0].num_repos);
  const forksCount = async (full: string) => (await w.raw('GET', `/repos/${full}`, undefined, { token: w.admin.token })).body.forks_count as number;
  const rows = (owner: string, name: string) => count(w.server, 'SELECT COUNT(*) AS n FROM repository WHERE owner_name = $1 AND lower_name = $2', [owner, name.toLowerCase()]);
  const refs = async (u: string) => ok(await g(['ls-remote', u])).stdout.trim().split('\n').filter((l) => !l.endsWith('HEAD')).sort();

  before(async () => {
    w = await startWorld();
    [alice, bob, carol, dave, eve] = [await w.user('alice'), await w.user('bob'), await w.user('carol'), await w.user('dave'), await w.user('eve')];
    home = gitHome();
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'forge-forks-'));
    expect((await alice.api.user.createCurrentUserRepo({ name: 'proj', description: 'the project', auto_init: true })).status).to.equal(201);
    const c = dir();
    ok(await g(['clone', '-q', url(alice, 'alice/proj'), c]));
    fs.writeFileSync(path.join(c, 'main.c'), 'int main() { return 0; }\n');
    ok(await g(['add', '.'], c));
    ok(await g(['commit', '-q', '-m', 'code'], c));
    ok(await g(['tag', 'v1'], c));
    ok(await g(['push', '-q', 'origin', 'main', 'v1', 'main:refs/heads/dev'], c));
    expect((await bob.api.orgs.orgCreate({ username: 'acme' })).status).to.equal(201);
    const readers = await bob.api.orgs.orgCreateTeam('acme', { name: 'readers', permission: 'read', units: ['repo.code'] } as Parameters<typeof bob.api.orgs.orgCreateTeam>[1]);
    const makers = await bob.api.orgs.orgCreateTeam('acme', { name: 'makers', permission: 'read', can_create_org_repo: true, units: ['repo.code'] } as Parameters<typeof bob.api.orgs.orgCreateTeam>[1]);
    await bob.api.teams.orgAddTeamMember(readers.data.id!, 'carol');
    await bob.api.teams.orgAddTeamMember(makers.data.id!, 'dave');
    expect((await bob.api.orgs.orgCreate({ username: 'hush', visibility: 'private' })).status).to.equal(201);
  });
  after(async () => { await w?.stop(); });

  describe('POST /repos/{owner}/{repo}/forks', () => {
    it('forks for the caller: 202, fork/parent in the JSON, fork units, counters, same refs and content over git', async () => {
      const res = await bob.api.repos.createFork('alice', 'proj', {});
      expect(res.status).to.equal(202);
      const r = res.data as unknown as Record<string, unknown> & { parent: Record<string, unknown>; owner: { login: string } };
      expect(r).to.include({ name: 'proj', full_name: 'bob/proj', fork: true, private: false, empty: false, description: 'the project', default_branch: 'main', template: false });
      expect(r.owner.login).to.equal('bob');
      expect(r.permissions).to.deep.equal({ admin: true, push: true, pull: true });
      expect(r.parent).to.include({ full_name: 'alice/proj', fork: false, forks_count: 1 });
      expect(r.parent.parent).to.equal(undefined);
      expect([r.has_code, r.has_pull_requests, r.has_issues, r.has_wiki, r.has_releases]).to.deep.equal([true, true, false, false, false]);
      expect(await forksCount('alice/proj')).to.equal(1);
      expect(await numRepos('bob')).to.equal(1);
      const row = (await sql(w.server, 'SELECT is_fork, fork_id FROM repository WHERE owner_name = $1 AND lower_name = $2', ['bob', 'proj']))[0];
      expect([Boolean(row.is_fork), Number(row.fork_id)]).to.deep.equal([true, (await alice.api.repos.repoGet('alice', 'proj')).data.id]);

      expect(await refs(url(bob, 'bob/proj'))).to.deep.equal(await refs(url(alice, 'alice/proj')));
      const c = dir();
      ok(await g(['clone', '-q', url(bob, 'bob/proj'), c]));
      expect(fs.readFileSync(path.join(c, 'main.c'), 'utf8')).to.equal('int main() { return 0; }\n');
      expect(ok(await g(['log', '--format=%s', 'origin/dev'], c)).stdout.trim().split('\n')).to.deep.equal(['code', 'Initial commit']);

      const d = serverRepoDir(w.server, 'bob', 'proj');
      ok(await g(['--git-dir', d, 'fsck', '--strict']));
      expect(ok(await g(['--git-dir', d, 'config', 'receive.fsckObjects'])).stdout.trim()).to.equal('true');
      expect(ok(await g(['--git-dir', d, 'config', 'core.fsyncMethod'])).stdout.trim()).to.equal('fsync');
      expect((await g(['--git-dir', d, 'config', '--get-regexp', '^remote\\.'])).stdout).to.equal('');
      expect(ok(await g(['--git-dir', d, 'symbolic-ref', 'HEAD'])).stdout.trim()).to.equal('refs/heads/main');
      expect(fs.readdirSync(path.join(d, 'hooks')).sort()).to.deep.equal(['post-receive', 'pre-receive', 'proc-receive']);
    });

    it('the fork is independent: a push to it leaves the parent alone', async () => {
      const c = dir();
      ok(await g(['clone', '-q', url(bob, 'bob/proj'), c]));
      fs.writeFileSync(path.join(c, 'fork.txt'), 'only in the fork\n');
      ok(await g(['add', '.'], c));
      ok(await g(['commit', '-q', '-m', 'fork change'], c));
      ok(await g(['push', '-q', 'origin', 'main'], c));
      const parent = await refs(url(alice, 'alice/proj'));
      expect((await refs(url(bob, 'bob/proj')))).to.not.deep.equal(parent);
      expect(ok(await g(['--git-dir', serverRepoDir(w.server, 'alice', 'proj'), 'log', '--format=%s', 'main'])).stdout).to.not.contain('fork change');
    });

    it('refuses a second fork into the same owner with 409, whatever the name, and changes nothing', async () => {
      for (const body of [{}, { name: 'other-name' }]) {
        const res = await w.raw('POST', '/repos/alice/proj/forks', body, { token: bob.token });
        expectError(res, 409, 'repository is already forked by user [uname: bob, repo path: alice/proj, fork path: bob/proj]');
      }
      expect(await rows('bob', 'other-name')).to.equal(0);
      expect(await numRepos('bob')).to.equal(1);
      expect(await forksCount('alice/proj')).to.equal(1);
    });

    it('forks into an organization for members who may create there; others get 403/422 and nothing changes', async () => {
      expectError(await w.raw('POST', '/repos/alice/proj/forks', { organization: 'acme' }, { token: carol.token }), 403, 'Given user is not allowed to create repository in organization.');
      expectError(await w.raw('POST', '/repos/alice/proj/forks', { organization: 'acme' }, { token: eve.token }), 403, "User is no Member of Organisation 'acme'");
      expectError(await w.raw('POST', '/repos/alice/proj/forks', { organization: 'nope' }, { token: eve.token }), 422, 'org does not exist [id: 0, name: nope]');
      expectError(await w.raw('POST', '/repos/alice/proj/forks', { organization: 'carol' }, { token: carol.token }), 422, 'org does not exist [id: 0, name: carol]');
      expectError(await w.raw('POST', '/repos/alice/proj/forks', { organization: 'hush' }, { token: eve.token }), 422, 'org does not exist [id: 0, name: hush]');
      expect(await count(w.server, "SELECT COUNT(*) AS n FROM repository WHERE owner_name = 'acme'")).to.equal(0);
      expect(await forksCount('alice/proj')).to.equal(1);

      const res = await dave.api.repos.createFork('alice', 'proj', { organization: 'acme', name: 'proj-acme' });
      expect(res.status).to.equal(202);
      expect(res.data).to.include({ full_name: 'acme/proj-acme', fork: true });
      expect((await dave.api.repos.repoGet('acme', 'proj-acme')).status).to.equal(200);
      expect(await numRepos('acme')).to.equal(1);
      expect(await forksCount('alice/proj')).to.equal(2);
    });

    it('a fork of a public repository into a private organization is public but hidden with its owner', async () => {
      const res = await bob.api.repos.createFork('alice', 'proj', { organization: 'hush', name: 'proj-hush' });
      expect(res.status).to.equal(202);
      expect(res.data.private).to.equal(false);
      expectError(await w.raw('GET', '/repos/hush/proj-hush'), 404);
      expectError(await w.raw('GET', '/repos/hush/proj-hush', undefined, { token: carol.token }), 404);
    });

    it('answers 409 for a taken name and for leftover files, 422 for a bad name; nothing changes', async () => {
      expect((await eve.api.user.createCurrentUserRepo({ name: 'proj' })).status).to.equal(201);
      expectError(await w.raw('POST', '/repos/alice/proj/forks', {}, { token: eve.token }), 409, 'repository already exists [uname: eve, name: proj]');
      expect(await numRepos('eve')).to.equal(1);

      const leftover = serverRepoDir(w.server, 'eve', 'left');
      fs.mkdirSync(leftover, { recursive: true });
      fs.writeFileSync(path.join(leftover, 'junk'), 'x');
      expectError(await w.raw('POST', '/repos/alice/proj/forks', { name: 'left' }, { token: eve.token }), 409, 'repository files already exist [uname: eve, name: left]');
      expect(fs.readFileSync(path.join(leftover, 'junk'), 'utf8')).to.equal('x');
      expect(await rows('eve', 'left')).to.equal(0);

      for (const name of ['bad name', 'x.git', '..']) {
        expectError(await w.raw('POST', '/repos/alice/proj/forks', { name }, { token: eve.token }), 422);
      }
      expectError(await w.raw('POST', '/repos/alice/proj/forks', { name: 7, bogus: true }, { token: eve.token }), 422);
      expect(await numRepos('eve')).to.equal(1);
      expect(await forksCount('alice/proj')).to.equal(3);
    });

    it('a fork of a private repository is private; 404 for who cannot read it, 401 anonymous', async () => {
      expect((await alice.api.user.createCurrentUserRepo({ name: 'secret', private: true, auto_init: true })).status).to.equal(201);
      expectError(await w.raw('POST', '/repos/alice/secret/forks', {}, { token: carol.token }), 404);
      expectError(await w.raw('POST', '/repos/alice/secret/forks', {}), 401, 'token is required');
      expect(await rows('carol', 'secret')).to.equal(0);
      await alice.api.repos.repoAddCollaborator('alice', 'secret', 'carol', { permission: 'read' });
      const res = await carol.api.repos.createFork('alice', 'secret', {});
      expect(res.status).to.equal(202);
      expect(res.data.private).to.equal(true);
      expect(res.data.parent?.full_name).to.equal('alice/secret');
      expectError(await w.raw('GET', '/repos/carol/secret', undefined, { token: eve.token }), 404);
      const c = dir();
      ok(await g(['clone', '-q', url(carol, 'carol/secret'), c]));
      expect(fs.readFileSync(path.join(c, 'README.md'), 'utf8')).to.contain('secret');
    });

    it('hides the parent from who cannot read it', async () => {
      await alice.api.repos.repoDeleteCollaborator('alice', 'secret', 'carol');
      const fork = await carol.api.repos.repoGet('carol', 'secret');
      expect(fork.data.fork).to.equal(true);
      expect(fork.data.parent).to.equal(undefined);
      expect((await w.admin.api.repos.repoGet('carol', 'secret')).data.parent?.full_name).to.equal('alice/secret');
    });

    it('a fork of any repository of a private owner is private', async () => {
      expect((await bob.api.orgs.createOrgRepo('hush', { name: 'inner', auto_init: true })).status).to.equal(201);
      const res = await bob.api.repos.createFork('hush', 'inner', {});
      expect(res.status).to.equal(202);
      expect(res.data.private).to.equal(true);
    });

    it('needs read access to the code (403) and is refused to users the owner blocked (403)', async () => {
      expect((await alice.api.user.createCurrentUserRepo({ name: 'nocode', auto_init: true })).status).to.equal(201);
      expect((await w.raw('PATCH', '/repos/alice/nocode', { has_code: false }, { token: alice.token })).status).to.equal(200);
      expectError(await w.raw('POST', '/repos/alice/nocode/forks', {}, { token: eve.token }), 403, 'user should have specific read permission or be a repo admin or a site admin');
      expect(await rows('eve', 'nocode')).to.equal(0);

      expect((await w.raw('PUT', '/user/blocks/eve', undefined, { token: alice.token })).status).to.equal(204);
      expectError(await w.raw('POST', '/repos/alice/proj/forks', { name: 'blocked' }, { token: eve.token }), 403, 'user is blocked');
      expect(await rows('eve', 'blocked')).to.equal(0);
      expect((await w.raw('DELETE', '/user/blocks/eve', undefined, { token: alice.token })).status).to.equal(204);
    });

    it('two racing forks into one owner: one 202, one 409, counted once', async () => {
      const before = await forksCount('alice/proj');
      const [a, b] = await Promise.all([
        w.raw('POST', '/repos/alice/proj/forks', { name: 'race-a' }, { token: carol.token }),
        w.raw('POST', '/repos/alice/proj/forks', { name: 'race-b' }, { token: carol.token }),
      ]);
      expect([a.status, b.status].sort()).to.deep.equal([202, 409]);
      expect((a.status === 409 ? a : b).body.message).to.match(/^repository is already forked by user \[uname: carol, repo path: alice\/proj, fork path: carol\/race-[ab]\]$/);
      expect(await count(w.server, "SELECT COUNT(*) AS n FROM repository WHERE owner_name = 'carol' AND lower_name LIKE 'race-%'")).to.equal(1);
      expect(await forksCount('alice/proj')).to.equal(before + 1);
      expect((await carol.api.repos.repoDelete('carol', (a.status === 202 ? a : b).body.name)).status).to.equal(204);
      expect(await forksCount('alice/proj')).to.equal(before);
    });

    it('the fork serves the parent’s LFS objects (checked with git-lfs)', async () => {
      expect((await alice.api.user.createCurrentUserRepo({ name: 'media' })).status).to.equal(201);
      const a = dir();
      const content = Buffer.alloc(3000, 7);
      ok(await g(['init', '-q', a]));
      ok(await g(['lfs', 'install', '--local'], a));
      ok(await g(['lfs', 'track', '*.bin'], a));
      fs.writeFileSync(path.join(a, 'big.bin'), content);
      ok(await g(['add', '.gitattributes', 'big.bin'], a));
      ok(await g(['commit', '-q', '-m', 'lfs'], a));
      ok(await g(['push', '-q', url(alice, 'alice/media'), 'main'], a));
      expect((await carol.api.repos.createFork('alice', 'media', {})).status).to.equal(202);
      const forkId = (await carol.api.repos.repoGet('carol', 'media')).data.id;
      expect(await count(w.server, 'SELECT COUNT(*) AS n FROM lfs_meta_object WHERE repository_id = $1', [forkId])).to.equal(1);
      const b = dir();
      ok(await g(['clone', '-q', '--no-checkout', url(carol, 'carol/media'), b]));
      ok(await g(['lfs', 'install', '--local'], b));
      ok(await g(['checkout', '-q', 'main'], b));
      expect(fs.readFileSync(path.join(b, 'big.bin')).equals(content)).to.equal(true);
    });

    it('forks an empty repository into an empty fork', async () => {
      expect((await alice.api.user.createCurrentUserRepo({ name: 'blank', default_branch: 'trunk' })).status).to.equal(201);
      const res = await dave.api.repos.createFork('alice', 'blank', {});
      expect(res.status).to.equal(202);
      expect(res.data).to.include({ empty: true, fork: true, default_branch: 'trunk' });
      const d = serverRepoDir(w.server, 'dave', 'blank');
      expect(ok(await g(['--git-dir', d, 'symbolic-ref', 'HEAD'])).stdout.trim()).to.equal('refs/heads/trunk');
      expect(ok(await g(['clone', url(dave, 'dave/blank'), dir()])).stderr).to.contain('empty repository');
    });
  });

  describe('GET /repos/{owner}/{repo}/forks', () => {
    it('lists the forks the caller may see, paged, with X-Total-Count and Link', async () => {
      const anon = await w.raw('GET', '/repos/alice/proj/forks');
      expect(anon.status).to.equal(200);
      expect(anon.body.map((r: { full_name: string }) => r.full_name)).to.deep.equal(['bob/proj', 'acme/proj-acme']);
      expect(anon.headers.get('x-total-count')).to.equal('2');
      expect(anon.body[0].parent.full_name).to.equal('alice/proj');
      const own = await bob.api.repos.listForks('alice', 'proj');
      expect(own.data.map((r) => r.full_name)).to.deep.equal(['bob/proj', 'acme/proj-acme', 'hush/proj-hush']);
      const page = await w.raw('GET', '/repos/alice/proj/forks?page=2&limit=1', undefined, { token: bob.token });
      expect(page.body.map((r: { full_name: string }) => r.full_name)).to.deep.equal(['acme/proj-acme']);
      expect(page.headers.get('x-total-count')).to.equal('3');
      expect(page.headers.get('link')).to.contain('rel="next"');
      expect((await w.raw('GET', '/repos/bob/proj/forks')).body).to.deep.equal([]);
      expectError(await w.raw('GET', '/repos/alice/secret/forks'), 404);
    });
  });

  describe('deletion', () => {
    it('deleting a fork lowers the parent’s forks_count; deleting a parent makes its forks ordinary', async () => {
      expect(await forksCount('alice/proj')).to.equal(3);
      expect((await bob.api.repos.repoDelete('hush', 'proj-hush')).status).to.equal(204);
      expect(await forksCount('alice/proj')).to.equal(2);
      expect((await alice.api.repos.repoDelete('alice', 'secret')).status).to.equal(204);
      const orphan = await carol.api.repos.repoGet('carol', 'secret');
      expect(orphan.data.fork).to.equal(false);
      expect(orphan.data.parent).to.equal(undefined);
      expect(Number((await sql(w.server, "SELECT fork_id FROM repository WHERE owner_name = 'carol' AND lower_name = 'secret'"))[0].fork_id)).to.equal(0);
    });
  });

  describe('[repository] settings', () => {
    it('ALLOW_FORK_WITHOUT_MAXIMUM_LIMIT (default true) lets a user at its limit fork', async () => {
      const set = await w.raw('PATCH', '/admin/users/eve', { login_name: 'eve', source_id: 0, max_repo_creation: 1 }, { token: w.admin.token });
      expect(set.status, set.text).to.equal(200);
      expect(await numRepos('eve')).to.equal(1);
      expect((await eve.api.repos.createFork('alice', 'proj', { name: 'over-limit' })).status).to.equal(202);
      expect(await numRepos('eve')).to.equal(2);
    });

    describe('ALLOW_FORK_WITHOUT_MAXIMUM_LIMIT=false', () => {
      let w2: World;
      before(async () => { w2 = await startWorld({ env: { FORGE__REPOSITORY__ALLOW_FORK_WITHOUT_MAXIMUM_LIMIT: 'false', FORGE__REPOSITORY__MAX_CREATION_LIMIT: '0' } }); });
      after(async () => { await w2?.stop(); });

      it('refuses a fork beyond the limit with 409 (as Gitea); site admins fork anyway', async () => {
        const u = await w2.user('limited');
        expect((await w2.raw('POST', '/admin/users/root/repos', { name: 'base', auto_init: true }, { token: w2.admin.token })).status).to.equal(201);
        const res = await w2.raw('POST', '/repos/root/base/forks', {}, { token: u.token });
        expectError(res, 409, 'user has reached maximum limit of repositories [limit: 0]');
        expect(await count(w2.server, "SELECT COUNT(*) AS n FROM repository WHERE owner_name = 'limited'")).to.equal(0);
        expect((await w2.raw('GET', '/repos/root/base', undefined, { token: u.token })).body.forks_count).to.equal(0);
        expect((await w2.raw('POST', '/orgs', { username: 'lim-org' }, { token: w2.admin.token })).status).to.equal(201);
        expect((await w2.raw('POST', '/repos/root/base/forks', { organization: 'lim-org' }, { token: w2.admin.token })).status).to.equal(202);
      });
    });

    describe('DISABLE_FORKS=true', () => {
      let w3: World;
      before(async () => { w3 = await startWorld({ env: { FORGE__REPOSITORY__DISABLE_FORKS: 'true' } }); });
      after(async () => { await w3?.stop(); });

      it('answers 404 on both fork routes', async () => {
        const u = await w3.user('someone');
        expect((await w3.raw('POST', '/admin/users/root/repos', { name: 'base', auto_init: true }, { token: w3.admin.token })).status).to.equal(201);
        expectError(await w3.raw('GET', '/repos/root/base/forks'), 404);
        expectError(await w3.raw('POST', '/repos/root/base/forks', {}, { token: u.token }), 404);
        expect(await count(w3.server, "SELECT COUNT(*) AS n FROM repository WHERE owner_name = 'someone'")).to.equal(0);
      });
    });
  });
});
