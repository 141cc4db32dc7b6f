/**
 * Repository transfers: direct moves (admins, the new owner itself, members who may create in the
 * receiving organization) with the git directory moved and checked by the git CLI over HTTP;
 * pending transfers (201, repo_transfer in the JSON, the recipient's read access) with accept and
 * reject; team_ids; every refusal with its body and proof that nothing moved; the repository limit.
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

describe('repository transfers', () => {
  let w: World;
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;
  let dave: TestUser;
  let erin: TestUser;
  let makersId: number;
  let alphaDevsId: number;
  let home: string;
  let tmp: string;
  let n = 0;
  const g = (args: string[], cwd?: string) => git(args, { cwd, home });
  const ok = (r: GitResult) => { expect(r.code, r.stderr).to.equal(0); return r; };
  const url = (u: TestUser, full: string) => `http://${u.name}:${u.token}@${new URL(w.server.url).host}/${full}.git`;
  const numRepos = async (name: string) => Number((await sql(w.server, 'SELECT num_repos FROM users WHERE lower_name = $1', [name]))[0].num_repos);
  const ownerOf = async (id: number) => (await sql(w.server, 'SELECT owner_name FROM repository WHERE id = $1', [id]))[0]?.owner_name as string;
  const transfers = (id: number) => count(w.server, 'SELECT COUNT(*) AS n FROM repo_transfer WHERE repo_id = $1', [id]);
  const make = async (u: TestUser, name: string, isPrivate = false) => {
    const res = await u.api.user.createCurrentUserRepo({ name, private: isPrivate, auto_init: true });
    expect(res.status).to.equal(201);
    return res.data.id!;
  };
  const transfer = (u: TestUser | null, full: string, body: unknown) => w.raw('POST', `/repos/${full}/transfer`, body, u ? { token: u.token } : {});

  before(async () => {
    w = await startWorld();
    [alice, bob, carol, dave, erin] = [await w.user('alice'), await w.user('bob'), await w.user('carol'), await w.user('dave'), await w.user('erin')];
    home = gitHome();
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'forge-transfer-'));
    expect((await bob.api.orgs.orgCreate({ username: 'acme' })).status).to.equal(201);
    const readers = await bob.api.orgs.orgCreateTeam('acme', { name: 'readers', permission: 'read', units: ['repo.code'] } as Parameters<typeof bob.api.orgs.orgCreateTeam>[1]);
    const makers = await bob.api.orgs.orgCreateTeam('acme', { name: 'makers', permission: 'write', can_create_org_repo: true, units: ['repo.code'] } as Parameters<typeof bob.api.orgs.orgCreateTeam>[1]);
    makersId = makers.data.id!;
    await bob.api.teams.orgAddTeamMember(readers.data.id!, 'carol');
    await bob.api.teams.orgAddTeamMember(makersId, 'dave');
    expect((await alice.api.orgs.orgCreate({ username: 'alpha' })).status).to.equal(201);
    const devs = await alice.api.orgs.orgCreateTeam('alpha', { name: 'devs', permission: 'write', units: ['repo.code', 'repo.issues'] } as Parameters<typeof alice.api.orgs.orgCreateTeam>[1]);
    alphaDevsId = devs.data.id!;
    await alice.api.teams.orgAddTeamMember(alphaDevsId, 'erin');
    expect((await carol.api.orgs.orgCreate({ username: 'vault', visibility: 'private' })).status).to.equal(201);
  });
  after(async () => { await w?.stop(); });

  describe('direct transfers', () => {
    it('moves at once into an organization the doer may create in: 202, directory moved, counters, teams, old path gone', async () => {
      const id = await make(alice, 'moved');
      await alice.api.repos.repoAddCollaborator('alice', 'moved', 'erin', { permission: 'write' });
      await alice.api.repos.repoAddCollaborator('alice', 'moved', 'carol', { permission: 'read' });
      const oldDir = serverRepoDir(w.server, 'alice', 'moved');
      const res = await alice.api.repos.repoTransfer('alice', 'moved', { new_owner: 'alpha', team_ids: [alphaDevsId] });
      expect(res.status).to.equal(202);
      expect(res.data).to.include({ full_name: 'alpha/moved' });
      expect(res.data.repo_transfer).to.equal(null);
      expect(await ownerOf(id)).to.equal('alpha');
      expect(fs.existsSync(oldDir)).to.equal(false);
      ok(await g(['--git-dir', serverRepoDir(w.server, 'alpha', 'moved'), 'fsck']));
      expect([await numRepos('alice'), await numRepos('alpha')]).to.deep.equal([0, 1]);
      // why: erin is a member of alpha now covered by the team; carol is not a member and stays a collaborator.
      const collabs = await sql(w.server, 'SELECT u.lower_name FROM collaboration c JOIN users u ON u.id = c.user_id WHERE c.repo_id = $1', [id]);
      expect(collabs.map((r) => r.lower_name)).to.deep.equal(['carol']);
      expect(await count(w.server, 'SELECT COUNT(*) AS n FROM team_repo WHERE repo_id = $1 AND team_id = $2', [id, alphaDevsId])).to.equal(1);
      const teamRepos = await erin.api.teams.orgListTeamRepos(alphaDevsId);
      const r = teamRepos.data.find((x) => x.name === 'moved') as unknown as Record<string, unknown>;
      expect([r.has_code, r.has_issues, r.has_pull_requests]).to.deep.equal([true, true, true]);
      expect(r.permissions).to.deep.equal({ admin: false, push: true, pull: true });
      const c = path.join(tmp, `c${++n}`);
      ok(await g(['clone', '-q', url(erin, 'alpha/moved'), c]));
      expect(fs.existsSync(path.join(c, 'README.md'))).to.equal(true);
      expectError(await w.raw('GET', '/repos/alice/moved', undefined, { token: alice.token }), 404);
      expect((await w.raw('GET', '/repos/alpha/moved/subscription', undefined, { token: alice.token })).status).to.equal(200);
    });

    it('site admins transfer directly to anyone; so does a user taking a repository to itself', async () => {
      const id = await make(alice, 'by-admin');
      const res = await transfer(w.admin, 'alice/by-admin', { new_owner: 'bob' });
      expect(res.status, res.text).to.equal(202);
      expect(await ownerOf(id)).to.equal('bob');
      const org = await alice.api.orgs.createOrgRepo('alpha', { name: 'org-owned', auto_init: true });
      const mine = await transfer(alice, 'alpha/org-owned', { new_owner: 'alice' });
      expect(mine.status, mine.text).to.equal(202);
      expect(await ownerOf(org.data.id!)).to.equal('alice');
      expect(await transfers(org.data.id!)).to.equal(0);
      expect(await transfers(id)).to.equal(0);
    });
  });

  describe('pending transfers', () => {
    let id: number;
    it('waits for a user recipient: 201 with repo_transfer, the recipient gets read access, 409 for a second start', async () => {
      id = await make(alice, 'gift', true);
      expectError(await w.raw('GET', '/repos/alice/gift', undefined, { token: bob.token }), 404);
      const res = await alice.api.repos.repoTransfer('alice', 'gift', { new_owner: 'bob' });
      expect(res.status).to.equal(201);
      expect(res.data.full_name).to.equal('alice/gift');
      expect(res.data.repo_transfer?.doer?.login).to.equal('alice');
      expect(res.data.repo_transfer?.recipient?.login).to.equal('bob');
      expect(res.data.repo_transfer?.teams).to.deep.equal([]);
      expect((await bob.api.repos.repoGet('alice', 'gift')).data.repo_transfer?.recipient?.login).to.equal('bob');
      expect((await bob.api.repos.repoGet('alice', 'gift')).data.permissions).to.deep.equal({ admin: false, push: false, pull: true });
      expectError(await transfer(alice, 'alice/gift', { new_owner: 'carol' }), 409, 'repository is already being transferred [uname: alice, name: gift]');
      expect(await transfers(id)).to.equal(1);
    });

    it('only the recipient decides: others get 403 permission denied and nothing changes', async () => {
      expectError(await w.raw('POST', '/repos/alice/gift/transfer/accept', undefined, { token: alice.token }), 403, 'permission denied');
      expectError(await w.raw('POST', '/repos/alice/gift/transfer/reject', undefined, { token: alice.token }), 403, 'permission denied');
      expectError(await w.raw('POST', '/repos/alice/gift/transfer/accept', undefined, { token: carol.token }), 404);
      expectError(await w.raw('POST', '/repos/alice/gift/transfer/accept'), 401);
      expect(await transfers(id)).to.equal(1);
      expect(await ownerOf(id)).to.equal('alice');
    });

    it('reject keeps the repository where it is; a second reject is 404', async () => {
      const res = await bob.api.repos.rejectRepoTransfer('alice', 'gift');
      expect(res.status).to.equal(200);
      expect(res.data.repo_transfer).to.equal(null);
      expect(await ownerOf(id)).to.equal('alice');
      expect(await transfers(id)).to.equal(0);
      expectError(await w.raw('POST', '/repos/alice/gift/transfer/reject', undefined, { token: bob.token }), 404, `repository doesn't have a pending transfer [repo_id: ${id}]`);
      expectError(await w.raw('POST', '/repos/alice/gift/transfer/accept', undefined, { token: bob.token }), 404, `repository doesn't have a pending transfer [repo_id: ${id}]`);
    });

    it('accept moves the repository (202), drops the recipient’s collaboration, and git follows', async () => {
      expect((await alice.api.repos.repoTransfer('alice', 'gift', { new_owner: 'bob' })).status).to.equal(201);
      const before = [await numRepos('alice'), await numRepos('bob')];
      const res = await bob.api.repos.acceptRepoTransfer('alice', 'gift');
      expect(res.status).to.equal(202);
      expect(res.data).to.include({ full_name: 'bob/gift', private: true });
      expect(res.data.permissions).to.deep.equal({ admin: true, push: true, pull: true });
      expect([await numRepos('alice'), await numRepos('bob')]).to.deep.equal([before[0] - 1, before[1] + 1]);
      expect(await count(w.server, 'SELECT COUNT(*) AS n FROM collaboration WHERE repo_id = $1', [id])).to.equal(0);
      expect(await transfers(id)).to.equal(0);
      const c = path.join(tmp, `c${++n}`);
      ok(await g(['clone', '-q', url(bob, 'bob/gift'), c]));
      expect(fs.readFileSync(path.join(c, 'README.md'), 'utf8')).to.contain('gift');
      expect(fs.existsSync(serverRepoDir(w.server, 'alice', 'gift'))).to.equal(false);
    });

    it('an organization recipient: members who may create there decide, even before they can read it', async () => {
      const rid = await make(alice, 'to-acme', true);
      const res = await alice.api.repos.repoTransfer('alice', 'to-acme', { new_owner: 'acme', team_ids: [makersId] });
      expect(res.status).to.equal(201);
      expect(res.data.repo_transfer?.teams?.map((t) => t.name)).to.deep.equal(['makers']);
      expectError(await w.raw('POST', '/repos/alice/to-acme/transfer/accept', undefined, { token: carol.token }), 404);
      expect(await transfers(rid)).to.equal(1);
      const ok202 = await dave.api.repos.acceptRepoTransfer('alice', 'to-acme');
      expect(ok202.status).to.equal(202);
      expect(ok202.data.full_name).to.equal('acme/to-acme');
      expect(await count(w.server, 'SELECT COUNT(*) AS n FROM team_repo WHERE repo_id = $1 AND team_id = $2', [rid, makersId])).to.equal(1);
      expect((await dave.api.repos.repoGet('acme', 'to-acme')).data.permissions).to.deep.equal({ admin: false, push: true, pull: true });
    });

    it('two racing starts: one 201, one 409, one pending transfer', async () => {
      const rid = await make(alice, 'raced');
      const [a, b] = await Promise.all([transfer(alice, 'alice/raced', { new_owner: 'carol' }), transfer(alice, 'alice/raced', { new_owner: 'erin' })]);
      expect([a.status, b.status].sort()).to.deep.equal([201, 409]);
      expect((a.status === 409 ? a : b).body.message).to.equal('repository is already being transferred [uname: alice, name: raced]');
      expect(await transfers(rid)).to.equal(1);
    });

    it('blocking cancels pending transfers between the two, both ways', async () => {
      const rid = await make(alice, 'to-block');
      expect((await transfer(alice, 'alice/to-block', { new_owner: 'erin' })).status).to.equal(201);
      expect((await w.raw('PUT', '/user/blocks/alice', undefined, { token: erin.token })).status).to.equal(204);
      expect(await transfers(rid)).to.equal(0);
      expect((await alice.api.repos.repoGet('alice', 'to-block')).data.repo_transfer).to.equal(null);
      expect((await w.raw('DELETE', '/user/blocks/alice', undefined, { token: erin.token })).status).to.equal(204);
    });

    it('deleting a repository drops its pending transfer', async () => {
      const rid = await make(alice, 'doomed');
      expect((await transfer(alice, 'alice/doomed', { new_owner: 'carol' })).status).to.equal(201);
      expect((await alice.api.repos.repoDelete('alice', 'doomed')).status).to.equal(204);
      expect(await transfers(rid)).to.equal(0);
    });
  });

  describe('refusals', () => {
    let id: number;
    before(async () => { id = await make(alice, 'stay'); });
    afterEach(async () => {
      expect(await ownerOf(id)).to.equal('alice');
      expect(await transfers(id)).to.equal(0);
      expect(fs.existsSync(serverRepoDir(w.server, 'alice', 'stay'))).to.equal(true);
    });

    it('only the owner or a site admin may transfer (403); anonymous 401; unreadable 404', async () => {
      await alice.api.repos.repoAddCollaborator('alice', 'stay', 'bob', { permission: 'admin' });
      expectError(await transfer(bob, 'alice/stay', { new_owner: 'bob' }), 403, 'user should be the owner of the repo');
      expectError(await transfer(null, 'alice/stay', { new_owner: 'bob' }), 401);
      await make(alice, 'hidden-one', true);
      expectError(await transfer(carol, 'alice/hidden-one', { new_owner: 'carol' }), 404);
    });

    it('unknown or hidden new owners are 404 with Gitea’s message; a bad body is 422', async () => {
      expectError(await transfer(alice, 'alice/stay', { new_owner: 'nobody' }), 404, 'The new owner does not exist or cannot be found');
      expectError(await transfer(alice, 'alice/stay', { new_owner: 'vault' }), 404, 'The new owner does not exist or cannot be found');
      expectError(await transfer(alice, 'alice/stay', {}), 422);
      expectError(await transfer(alice, 'alice/stay', { new_owner: 'bob', team_ids: 'all', extra: 1 }), 422);
    });

    it('team_ids: only for organizations (422), unknown (422), of another organization (403)', async () => {
      expectError(await transfer(alice, 'alice/stay', { new_owner: 'bob', team_ids: [] }), 422, 'Teams can only be added to organization-owned repositories');
      expectError(await transfer(alice, 'alice/stay', { new_owner: 'alpha', team_ids: [999999] }), 422, 'team 999999 not found');
      const acme = (await bob.api.orgs.orgGet('acme')).data.id;
      expectError(await transfer(alice, 'alice/stay', { new_owner: 'acme', team_ids: [alphaDevsId] }), 403, `team ${alphaDevsId} belongs not to org ${acme}`);
    });

    it('a name the new owner already has is 422, pending or direct; a leftover directory blocks a direct move', async () => {
      await make(bob, 'stay');
      expectError(await transfer(alice, 'alice/stay', { new_owner: 'bob' }), 422, 'repository already exists [uname: bob, name: stay]');
      expectError(await transfer(w.admin, 'alice/stay', { new_owner: 'bob' }), 422, 'repository already exists [uname: bob, name: stay]');
      expectError(await transfer(alice, 'alice/stay', { new_owner: 'alice' }), 422, 'repository already exists [uname: alice, name: stay]');
      const leftover = serverRepoDir(w.server, 'carol', 'stay');
      fs.mkdirSync(leftover, { recursive: true });
      fs.writeFileSync(path.join(leftover, 'junk'), 'x');
      expectError(await transfer(w.admin, 'alice/stay', { new_owner: 'carol' }), 422, 'repository already exists [uname: carol, name: stay]');
      expect(fs.readFileSync(path.join(leftover, 'junk'), 'utf8')).to.equal('x');
      expect(await numRepos('carol')).to.equal(0);
    });

    it('a recipient that blocked the doer refuses with 403', async () => {
      expect((await w.raw('PUT', '/user/blocks/alice', undefined, { token: erin.token })).status).to.equal(204);
      expectError(await transfer(alice, 'alice/stay', { new_owner: 'erin' }), 403, 'user is blocked');
      expect((await w.raw('DELETE', '/user/blocks/alice', undefined, { token: erin.token })).status).to.equal(204);
    });

    it('the repository limit of the new owner refuses with 403 (admins are not limited)', async () => {
      const set = await w.raw('PATCH', '/admin/users/erin', { login_name: 'erin', source_id: 0, max_repo_creation: 0 }, { token: w.admin.token });
      expect(set.status, set.text).to.equal(200);
      expectError(await transfer(alice, 'alice/stay', { new_owner: 'erin' }), 403, 'Repository limit has been reached');
      const other = await make(alice, 'for-erin');
      expect((await transfer(w.admin, 'alice/for-erin', { new_owner: 'erin' })).status).to.equal(202);
      expect(await ownerOf(other)).to.equal('erin');
    });

    it('accepting beyond the limit is 403 and the transfer stays pending', async () => {
      await w.raw('PATCH', '/admin/users/erin', { login_name: 'erin', source_id: 0, max_repo_creation: -1 }, { token: w.admin.token });
      const pid = await make(alice, 'later');
      expect((await transfer(alice, 'alice/later', { new_owner: 'erin' })).status).to.equal(201);
      await w.raw('PATCH', '/admin/users/erin', { login_name: 'erin', source_id: 0, max_repo_creation: 1 }, { token: w.admin.token });
      expectError(await w.raw('POST', '/repos/alice/later/transfer/accept', undefined, { token: erin.token }), 403, 'Repository limit has been reached');
      expect(await ownerOf(pid)).to.equal('alice');
      expect(await transfers(pid)).to.equal(1);
      expect((await erin.api.repos.rejectRepoTransfer('alice', 'later')).status).to.equal(200);
    });
  });
});
