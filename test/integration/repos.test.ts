/**
 * Repositories: creation (user, organization, admin) with auto_init checked by the real git CLI,
 * name rules, limits, unadopted files, get/edit/delete, units, by id, search and listings, and private
 * repositories probed by anonymous callers, other users and the site admin.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { startWorld, type World, type TestUser, type RawResponse } from '../helpers/world';
import { count, insert, sql } from '../helpers/db';

function expectError(res: RawResponse, status: number, message?: string | RegExp): void {
  expect(res.status, res.text).to.equal(status);
  if (message instanceof RegExp) expect(res.body.message).to.match(message);
  else if (message !== undefined) expect(res.body.message).to.equal(message);
}

function git(args: string[], cwd?: string): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', HOME: os.tmpdir() } });
}

describe('repositories', () => {
  let w: World;
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;
  const dirOf = (owner: string, name: string) => path.join(w.server.dataDir, 'repositories', owner.toLowerCase(), `${name.toLowerCase()}.git`);
  const repoRows = async (owner: string, name: string) => count(w.server, 'SELECT COUNT(*) AS n FROM repository WHERE owner_name = $1 AND lower_name = $2', [owner, name.toLowerCase()]);
  const numRepos = async (name: string) => Number((await sql(w.server, 'SELECT num_repos FROM users WHERE lower_name = $1', [name.toLowerCase()]))[0].num_repos);

  before(async () => {
    w = await startWorld();
    [alice, bob, carol] = [await w.user('alice'), await w.user('bob'), await w.user('carol')];
  });
  after(async () => { await w?.stop(); });

  describe('create', () => {
    it('creates an empty repository: bare, configured, only the server hooks, default units, counter', async () => {
      const res = await alice.api.user.createCurrentUserRepo({ name: 'empty-one', description: 'nothing yet' });
      expect(res.status).to.equal(201);
      const r = res.data as unknown as Record<string, unknown>;
      expect(r).to.include({ name: 'empty-one', full_name: 'alice/empty-one', empty: true, private: false, default_branch: 'main', description: 'nothing yet', object_format_name: 'sha1', internal: false });
      expect(r.permissions).to.deep.equal({ admin: true, push: true, pull: true });
      for (const k of ['has_code', 'has_issues', 'has_pull_requests', 'has_wiki', 'has_releases', 'has_projects', 'has_actions', 'has_packages']) expect(r[k], k).to.equal(true);
      expect(r.clone_url).to.equal(`${w.server.url}alice/empty-one.git`);
      expect(r.ssh_url).to.equal(`ssh://git@127.0.0.1:${w.server.env.FORGE__SERVER__SSH_PORT}/alice/empty-one.git`);
      expect(r.default_merge_style).to.equal('merge');
      const dir = dirOf('alice', 'empty-one');
      expect(git(['--git-dir', dir, 'rev-parse', '--is-bare-repository']).trim()).to.equal('true');
      expect(git(['--git-dir', dir, 'config', 'receive.fsckObjects']).trim()).to.equal('true');
      expect(git(['--git-dir', dir, 'config', 'core.fsync']).trim()).to.equal('objects,derived-metadata,reference');
      expect(git(['--git-dir', dir, 'config', 'core.fsyncMethod']).trim()).to.equal('fsync');
      expect(git(['--git-dir', dir, 'symbolic-ref', 'HEAD']).trim()).to.equal('refs/heads/main');
      expect(fs.readdirSync(path.join(dir, 'hooks')).sort()).to.deep.equal(['post-receive', 'pre-receive', 'proc-receive']);
      expect(fs.readFileSync(path.join(dir, 'hooks', 'pre-receive'), 'utf8')).to.contain('exec "$FORGE_HOOK_NODE" "$FORGE_HOOK_SCRIPT" pre-receive');
      expect(await numRepos('alice')).to.equal(1);
      expect(await count(w.server, 'SELECT COUNT(*) AS n FROM repo_unit WHERE repo_id = $1', [r.id])).to.equal(8);
    });

    it('auto_init makes a valid first commit with README, .gitignore and LICENSE that git clone sees', async () => {
      const res = await alice.api.user.createCurrentUserRepo({ name: 'Inited', description: 'hello world', auto_init: true, gitignores: 'Node', license: 'MIT', readme: 'Default', default_branch: 'trunk', private: true });
      expect(res.status).to.equal(201);
      expect(res.data).to.include({ empty: false, default_branch: 'trunk', private: true });
      const dir = dirOf('alice', 'Inited');
      git(['--git-dir', dir, 'fsck', '--strict']);
      expect(git(['--git-dir', dir, 'log', '--format=%s|%an', 'trunk']).trim()).to.equal('Initial commit|alice');
      expect(git(['--git-dir', dir, 'ls-tree', '--name-only', 'trunk']).trim().split('\n')).to.deep.equal(['.gitignore', 'LICENSE', 'README.md']);
      const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'clone-'));
      git(['clone', '--quiet', `file://${dir}`, path.join(tmp, 'c')]);
      expect(fs.readFileSync(path.join(tmp, 'c', 'README.md'), 'utf8')).to.equal('# Inited\n\nhello world\n');
      expect(fs.readFileSync(path.join(tmp, 'c', 'LICENSE'), 'utf8')).to.match(/MIT License\n\nCopyright \(c\) \d{4} alice/);
      expect(fs.readFileSync(path.join(tmp, 'c', '.gitignore'), 'utf8')).to.contain('node_modules/');
    });

    it('refuses bad names, reserved names, sha256, bad branches and unknown templates with 422 and creates nothing', async () => {
      const before = await numRepos('alice');
      const cases: [Record<string, unknown>, RegExp][] = [
        [{ name: 'bad name' }, /Name/], [{ name: '..' }, /Name|reserved/], [{ name: '-' }, /name is reserved \[name: -\]/],
        [{ name: 'x.git' }, /name pattern is not allowed \[pattern: \*\.git\]/], [{ name: 'x.wiki' }, /pattern/],
        [{ name: 'sha', object_format_name: 'sha256' }, /sha256/], [{ name: 'br', default_branch: '-x' }, /default branch/],
        [{ name: 'br2', default_branch: 'a..b' }, /default branch/], [{ name: 'tpl', auto_init: true, gitignores: 'Nope' }, /Nope/],
        [{ name: 'tpl2', auto_init: true, license: '../MIT' }, /MIT/], [{ name: 'extra', private: 'sometimes', bogus: 1 }, /private/i],
      ];
      for (const [body, msg] of cases) {
        const res = await w.raw('POST', '/user/repos', body, { token: alice.token });
        expectError(res, 422, msg);
        if (typeof body.name === 'string' && /^[\w.-]+$/.test(body.name) && body.name !== '..') {
          expect(await repoRows('alice', body.name)).to.equal(0);
          expect(fs.existsSync(dirOf('alice', body.name)), body.name).to.equal(false);
        }
      }
      expect(await numRepos('alice')).to.equal(before);
    });

    it('answers 409 for a taken name (any case) and leaves the existing repository alone', async () => {
      const before = await numRepos('alice');
      const res = await w.raw('POST', '/user/repos', { name: 'EMPTY-ONE' }, { token: alice.token });
      expectError(res, 409, 'The repository with the same name already exists.');
      expect(await numRepos('alice')).to.equal(before);
      expect(fs.existsSync(dirOf('alice', 'empty-one'))).to.equal(true);
    });

    it('refuses a name whose directory is on disk without a row (an unadopted repository) and keeps its files', async () => {
      const dir = dirOf('bob', 'leftover');
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, 'junk'), 'x');
      const before = await numRepos('bob');
      const res = await w.raw('POST', '/user/repos', { name: 'leftover', auto_init: true }, { token: bob.token });
      expectError(res, 409, 'repository files already exist [uname: bob, name: leftover]');
      expect(fs.readFileSync(path.join(dir, 'junk'), 'utf8')).to.equal('x');
      expect(await repoRows('bob', 'leftover')).to.equal(0);
      expect(await numRepos('bob')).to.equal(before);
      fs.rmSync(dir, { recursive: true, force: true });
      const again = await bob.api.user.createCurrentUserRepo({ name: 'leftover', auto_init: true });
      expect(again.status).to.equal(201);
      git(['--git-dir', dir, 'fsck']);
    });

    it('enforces the per-user limit with 403 (site admins are not limited)', async () => {
      const dave = await w.user('dave');
      const set = await w.raw('PATCH', '/admin/users/dave', { login_name: 'dave', source_id: 0, max_repo_creation: 1 }, { token: w.admin.token });
      expect(set.status, set.text).to.equal(200);
      expect((await w.raw('POST', '/user/repos', { name: 'one' }, { token: dave.token })).status).to.equal(201);
      const res = await w.raw('POST', '/user/repos', { name: 'two' }, { token: dave.token });
      expectError(res, 403, 'user has reached maximum limit of repositories [limit: 1]');
      expect(await repoRows('dave', 'two')).to.equal(0);
      expect(fs.existsSync(dirOf('dave', 'two'))).to.equal(false);
      expect(await numRepos('dave')).to.equal(1);
      const admin = await w.raw('POST', '/admin/users/dave/repos', { name: 'two' }, { token: w.admin.token });
      expect(admin.status, admin.text).to.equal(201);
      expect(admin.body.owner.login).to.equal('dave');
      expect(await numRepos('dave')).to.equal(2);
    });

    it('organization repositories: owners and can_create_org_repo teams may create, plain members get 403', async () => {
      expect((await alice.api.orgs.orgCreate({ username: 'acme' })).status).to.equal(201);
      const makers = await alice.api.orgs.orgCreateTeam('acme', { name: 'makers', permission: 'read', can_create_org_repo: true, units: ['repo.code'] } as Parameters<typeof alice.api.orgs.orgCreateTeam>[1]);
      const readers = await alice.api.orgs.orgCreateTeam('acme', { name: 'readers', permission: 'read', can_create_org_repo: false, units: ['repo.code'] } as Parameters<typeof alice.api.orgs.orgCreateTeam>[1]);
      await alice.api.teams.orgAddTeamMember(makers.data.id!, 'bob');
      await alice.api.teams.orgAddTeamMember(readers.data.id!, 'carol');
      expect((await alice.api.orgs.createOrgRepo('acme', { name: 'by-owner', private: true })).status).to.equal(201);
      const byBob = await bob.api.orgs.createOrgRepo('acme', { name: 'by-bob', private: true });
      expect(byBob.status).to.equal(201);
      expect((await bob.api.repos.repoGet('acme', 'by-bob')).status).to.equal(200);
      const res = await w.raw('POST', '/orgs/acme/repos', { name: 'by-carol' }, { token: carol.token });
      expectError(res, 403, 'Given user is not allowed to create repository in organization.');
      expect(await repoRows('acme', 'by-carol')).to.equal(0);
      expect(fs.existsSync(dirOf('acme', 'by-carol'))).to.equal(false);
      expect(await numRepos('acme')).to.equal(2);
      expectError(await w.raw('POST', '/orgs/nope/repos', { name: 'x' }, { token: alice.token }), 404);
    });
  });

  describe('read and permissions', () => {
    it('a private repository is 404 for anonymous and other users, visible to the owner and the admin', async () => {
      const anon = await w.raw('GET', '/repos/alice/Inited');
      expectError(anon, 404);
      expectError(await w.raw('GET', '/repos/alice/inited', undefined, { token: carol.token }), 404);
      const own = await alice.api.repos.repoGet('alice', 'inited');
      expect(own.data).to.include({ name: 'Inited', private: true });
      const adm = await w.admin.api.repos.repoGet('alice', 'Inited');
      expect((adm.data as { permissions?: unknown }).permissions).to.deep.equal({ admin: true, push: true, pull: true });
      const id = own.data.id!;
      expectError(await w.raw('GET', `/repositories/${id}`), 404);
      expectError(await w.raw('GET', `/repositories/${id}`, undefined, { token: carol.token }), 404);
      expect((await alice.api.repositories.repoGetById(id)).data.full_name).to.equal('alice/Inited');
      expectError(await w.raw('GET', '/repositories/999999'), 404);
    });

    it('a public repository is readable by anyone with pull-only permissions', async () => {
      const res = await w.raw('GET', '/repos/alice/empty-one');
      expect(res.status).to.equal(200);
      expect(res.body.permissions).to.deep.equal({ admin: false, push: false, pull: true });
      const c = await carol.api.repos.repoGet('alice', 'empty-one');
      expect((c.data as { permissions?: unknown }).permissions).to.deep.equal({ admin: false, push: false, pull: true });
    });
  });

  describe('edit', () => {
    it('edits description, website, private, template, archived, mirror settings and units', async () => {
      const res = await alice.api.repos.repoEdit('alice', 'empty-one', {
        description: 'now described', website: 'https://example.com', template: true, archived: true,
        has_wiki: false, has_releases: false, mirror_interval: '8h0m0s', enable_prune: false,
      });
      expect(res.status).to.equal(200);
      expect(res.data).to.include({ description: 'now described', website: 'https://example.com', template: true, archived: true, has_wiki: false, has_releases: false, has_issues: true, mirror_interval: '8h0m0s' });
      expect(res.data.archived_at).to.not.equal('1970-01-01T00:00:00Z');
      const row = (await sql(w.server, 'SELECT enable_prune FROM repository WHERE id = $1', [res.data.id]))[0];
      expect(Boolean(row.enable_prune)).to.equal(false);
      const back = await alice.api.repos.repoEdit('alice', 'empty-one', { archived: false, has_wiki: true });
      expect(back.data).to.include({ archived: false, has_wiki: true, archived_at: '1970-01-01T00:00:00Z' });
    });

    it('making a repository private hides it from anonymous callers and other users', async () => {
      await bob.api.user.createCurrentUserRepo({ name: 'toggle' });
      expect((await w.raw('GET', '/repos/bob/toggle')).status).to.equal(200);
      expect((await bob.api.repos.repoEdit('bob', 'toggle', { private: true })).data.private).to.equal(true);
      expectError(await w.raw('GET', '/repos/bob/toggle'), 404);
      expectError(await w.raw('GET', '/repos/bob/toggle', undefined, { token: carol.token }), 404);
      expectError(await w.raw('PATCH', '/repos/bob/toggle', { private: false }, { token: carol.token }), 404);
      expect((await w.admin.api.repos.repoGet('bob', 'toggle')).data.private).to.equal(true);
    });

    it('can disable code; disabling the last enabled unit is 422 and changes nothing', async () => {
      await alice.api.user.createCurrentUserRepo({ name: 'units' });
      const all = { has_code: false, has_issues: false, has_pull_requests: false, has_wiki: false, has_releases: false, has_projects: false, has_packages: false };
      const r1 = await w.raw('PATCH', '/repos/alice/units', all, { token: alice.token });
      expect(r1.status, r1.text).to.equal(200);
      expect(r1.body).to.include({ has_code: false, has_actions: true });
      const r2 = await w.raw('PATCH', '/repos/alice/units', { has_actions: false, description: 'changed?' }, { token: alice.token });
      expectError(r2, 422, /at least one/);
      const now = await alice.api.repos.repoGet('alice', 'units');
      expect(now.data).to.include({ has_actions: true, description: '' });
    });

    it('refuses non-admins (403), bad values (422) and a missing default branch (404) without changes', async () => {
      const repoId = (await alice.api.repos.repoGet('alice', 'empty-one')).data.id!;
      // why: the collaborator API belongs to another piece; the row is what the permission function reads.
      await insert(w.server, 'collaboration', { repo_id: repoId, user_id: carol.id, mode: 2 });
      expectError(await w.raw('PATCH', '/repos/alice/empty-one', { description: 'x' }, { token: carol.token }), 403);
      expectError(await w.raw('PATCH', '/repos/alice/empty-one', { description: 'x' }), 401);
      expectError(await w.raw('PATCH', '/repos/alice/inited', { description: 'x' }, { token: bob.token }), 404);
      expectError(await w.raw('PATCH', '/repos/alice/empty-one', { mirror_interval: 'often' }, { token: alice.token }), 422, 'Invalid mirror interval');
      expectError(await w.raw('PATCH', '/repos/alice/empty-one', { website: 'not a url' }, { token: alice.token }), 422);
      expectError(await w.raw('PATCH', '/repos/alice/empty-one', { name: 'x.git' }, { token: alice.token }), 422);
      expectError(await w.raw('PATCH', '/repos/alice/empty-one', { name: 'units' }, { token: alice.token }), 422, /already exists/);
      expectError(await w.raw('PATCH', '/repos/alice/inited', { default_branch: 'nope' }, { token: alice.token }), 404, /branch does not exist/);
      const r = await alice.api.repos.repoGet('alice', 'empty-one');
      expect(r.data).to.include({ description: 'now described', name: 'empty-one', mirror_interval: '8h0m0s' });
      expect((await alice.api.repos.repoGet('alice', 'inited')).data.default_branch).to.equal('trunk');
    });

    it('sets the default branch of an empty repository and moves HEAD', async () => {
      const r = await alice.api.repos.repoEdit('alice', 'units', { default_branch: 'develop' });
      expect(r.data.default_branch).to.equal('develop');
      expect(git(['--git-dir', dirOf('alice', 'units'), 'symbolic-ref', 'HEAD']).trim()).to.equal('refs/heads/develop');
    });

    it('renames a repository with its directory, never onto an unadopted repository\'s files', async () => {
      fs.mkdirSync(dirOf('alice', 'Renamed'), { recursive: true });
      fs.writeFileSync(path.join(dirOf('alice', 'Renamed'), 'junk'), 'leftover');
      const refused = await w.raw('PATCH', '/repos/alice/inited', { name: 'Renamed' }, { token: alice.token });
      expectError(refused, 422, 'repository already exists [uname: alice, name: Renamed]');
      expect(fs.readFileSync(path.join(dirOf('alice', 'Renamed'), 'junk'), 'utf8')).to.equal('leftover');
      expect((await alice.api.repos.repoGet('alice', 'inited')).data.name).to.equal('Inited');
      git(['--git-dir', dirOf('alice', 'inited'), 'fsck']);
      fs.rmSync(dirOf('alice', 'Renamed'), { recursive: true, force: true });
      const r = await alice.api.repos.repoEdit('alice', 'inited', { name: 'Renamed' });
      expect(r.data).to.include({ name: 'Renamed', full_name: 'alice/Renamed' });
      expect(fs.existsSync(dirOf('alice', 'inited'))).to.equal(false);
      git(['--git-dir', dirOf('alice', 'Renamed'), 'fsck']);
      expectError(await w.raw('GET', '/repos/alice/inited', undefined, { token: alice.token }), 404);
    });
  });

  describe('lists', () => {
    it('GET /users/{username}/repos shows private ones only to the owner and admins; [] for a user without repositories', async () => {
      const anon = await w.raw('GET', '/users/alice/repos');
      expect(anon.status).to.equal(200);
      expect(anon.body.map((r: { name: string; full_name: string }) => r.name)).to.not.include('Renamed');
      expect(anon.headers.get('x-total-count')).to.equal(String(anon.body.length));
      const mine = await alice.api.users.userListRepos('alice');
      expect(mine.data.map((r) => r.name)).to.include('Renamed');
      const adm = await w.admin.api.users.userListRepos('alice');
      expect(adm.data.map((r) => r.name)).to.include('Renamed');
      expect((await carol.api.users.userListRepos('carol')).data).to.deep.equal([]);
      expectError(await w.raw('GET', '/users/nobody-here/repos'), 404);
    });

    it('GET /user/repos lists owned repositories and collaborations', async () => {
      const res = await carol.api.user.userCurrentListRepos();
      expect(res.data.map((r) => r.full_name)).to.deep.equal(['alice/empty-one']);
      expectError(await w.raw('GET', '/user/repos'), 401);
    });

    it('GET /orgs/{org}/repos hides private repositories from outsiders', async () => {
      expect((await w.raw('GET', '/orgs/acme/repos')).body).to.deep.equal([]);
      const own = await alice.api.orgs.orgListRepos('acme');
      expect(own.data.map((r) => r.name).sort()).to.deep.equal(['by-bob', 'by-owner']);
    });

    it('GET /repos/search: {ok, data}, X-Total-Count, keyword, uid, private filter, sort and paging', async () => {
      const anon = await w.raw('GET', '/repos/search?q=one&limit=50');
      expect(anon.status).to.equal(200);
      expect(anon.body.ok).to.equal(true);
      expect(anon.body.data.map((r: { name: string; full_name: string }) => r.full_name)).to.deep.equal(['alice/empty-one', 'dave/one']);
      expect(anon.headers.get('x-total-count')).to.equal('2');
      const priv = await alice.api.repos.repoSearch({ uid: alice.id, is_private: true });
      expect(priv.data.data!.map((r) => r.name)).to.deep.equal(['Renamed']);
      expect((await w.raw('GET', `/repos/search?uid=${alice.id}&is_private=true`, undefined, { token: carol.token })).body.data).to.deep.equal([]);
      const page = await w.raw('GET', `/repos/search?uid=${alice.id}&sort=alpha&order=desc&limit=1&page=1`, undefined, { token: alice.token });
      expect(page.body.data.map((r: { name: string; full_name: string }) => r.name)).to.deep.equal(['units']);
      expect(Number(page.headers.get('x-total-count'))).to.equal(3);
      const noTpl = await w.raw('GET', `/repos/search?uid=${alice.id}&template=false`, undefined, { token: alice.token });
      expect(noTpl.body.data.map((r: { name: string; full_name: string }) => r.name)).to.not.include('empty-one');
    });
  });

  describe('delete', () => {
    it('refuses non-admins and anonymous, then deletes rows, counter and directory', async () => {
      const id = (await alice.api.repos.repoGet('alice', 'empty-one')).data.id!;
      expectError(await w.raw('DELETE', '/repos/alice/empty-one', undefined, { token: carol.token }), 403);
      expectError(await w.raw('DELETE', '/repos/alice/empty-one'), 401);
      expect(await repoRows('alice', 'empty-one')).to.equal(1);
      const before = await numRepos('alice');
      const res = await alice.api.repos.repoDelete('alice', 'empty-one');
      expect(res.status).to.equal(204);
      expect(await repoRows('alice', 'empty-one')).to.equal(0);
      expect(await count(w.server, 'SELECT COUNT(*) AS n FROM repo_unit WHERE repo_id = $1', [id])).to.equal(0);
      expect(await count(w.server, 'SELECT COUNT(*) AS n FROM collaboration WHERE repo_id = $1', [id])).to.equal(0);
      expect(fs.existsSync(dirOf('alice', 'empty-one'))).to.equal(false);
      expect(await numRepos('alice')).to.equal(before - 1);
      const again = await alice.api.user.createCurrentUserRepo({ name: 'empty-one' });
      expect(again.status).to.equal(201);
    });

    it('deleting an organization repository removes its team links', async () => {
      const id = (await alice.api.repos.repoGet('acme', 'by-bob')).data.id!;
      expect(await count(w.server, 'SELECT COUNT(*) AS n FROM team_repo WHERE repo_id = $1', [id])).to.equal(1);
      expect((await alice.api.repos.repoDelete('acme', 'by-bob')).status).to.equal(204);
      expect(await count(w.server, 'SELECT COUNT(*) AS n FROM team_repo WHERE repo_id = $1', [id])).to.equal(0);
      expect(await numRepos('acme')).to.equal(1);
    });
  });

  describe('[repository] MAX_CREATION_LIMIT', () => {
    let w2: World;
    before(async () => { w2 = await startWorld({ env: { FORGE__REPOSITORY__MAX_CREATION_LIMIT: '1' } }); });
    after(async () => { await w2?.stop(); });

    it('refuses beyond the global limit with 403; a user limit of its own overrides it', async () => {
      const eve = await w2.user('eve');
      expect((await eve.api.user.createCurrentUserRepo({ name: 'first' })).status).to.equal(201);
      const res = await w2.raw('POST', '/user/repos', { name: 'second' }, { token: eve.token });
      expectError(res, 403, 'user has reached maximum limit of repositories [limit: 1]');
      expect(await count(w2.server, 'SELECT COUNT(*) AS n FROM repository WHERE lower_name = $1', ['second'])).to.equal(0);
      expect(fs.existsSync(path.join(w2.server.dataDir, 'repositories', 'eve', 'second.git'))).to.equal(false);
      await w2.raw('PATCH', '/admin/users/eve', { login_name: 'eve', source_id: 0, max_repo_creation: 3 }, { token: w2.admin.token });
      expect((await eve.api.user.createCurrentUserRepo({ name: 'second' })).status).to.equal(201);
    });
  });
});
