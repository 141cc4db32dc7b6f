/**
 * Organizations and members: creation with the Owners team, name rules, visibility, editing,
 * deletion, listings, permissions, members and public members.
 */
import { expect } from 'chai';
import { startWorld, type World, type TestUser, type RawResponse } from '../helpers/world';
import { insertRepo, sql } from '../helpers/db';

const ORG_KEYS = ['id', 'name', 'full_name', 'email', 'avatar_url', 'description', 'website', 'location', 'visibility', 'repo_admin_change_team_access', 'username'];

function expectError(res: RawResponse, status: number, message?: string | RegExp): void {
  expect(res.status, res.text).to.equal(status);
  if (message instanceof RegExp) expect(res.body.message).to.match(message);
  else if (message !== undefined) expect(res.body.message).to.equal(message);
}

describe('organizations', () => {
  let w: World;
  let alice: TestUser; // owner of "acme"
  let bob: TestUser; // member of "acme" (not owner)
  let carol: TestUser; // outsider
  before(async () => {
    w = await startWorld();
    [alice, bob, carol] = [await w.user('alice'), await w.user('bob'), await w.user('carol')];
  });
  after(async () => { await w?.stop(); });

  const orgExists = async (name: string) => (await w.raw('GET', `/orgs/${name}`, undefined, { token: w.admin.token })).status === 200;

  describe('create', () => {
    it('creates an organization whose creator is the only member of an Owners team', async () => {
      const res = await alice.api.orgs.orgCreate({ username: 'acme', full_name: 'Acme Inc', description: 'we make things', website: 'https://acme.example', location: 'Earth', email: 'info@acme.example' });
      expect(res.status).to.equal(201);
      expect(res.data).to.have.all.keys(ORG_KEYS);
      expect(res.data).to.include({ name: 'acme', username: 'acme', full_name: 'Acme Inc', visibility: 'public', website: 'https://acme.example', email: 'info@acme.example' });
      const teams = await alice.api.orgs.orgListTeams('acme');
      expect(teams.data).to.have.length(1);
      const owners = teams.data[0];
      expect(owners).to.include({ name: 'Owners', permission: 'owner', includes_all_repositories: true, can_create_org_repo: true });
      expect(owners.organization).to.equal(null);
      expect(owners.units).to.include.members(['repo.code', 'repo.issues', 'repo.pulls', 'repo.wiki']);
      expect(Object.values(owners.units_map!)).to.satisfy((v: string[]) => v.every((m) => m === 'owner'));
      const members = await alice.api.teams.orgListTeamMembers(owners.id!);
      expect(members.data.map((u) => u.login)).to.deep.equal(['alice']);
      const perms = await alice.api.users.orgGetUserPermissions('alice', 'acme');
      expect(perms.data).to.deep.equal({ is_owner: true, is_admin: true, can_write: true, can_read: true, can_create_repository: true });
    });

    it('refuses bad, reserved, too long and taken names with 422, creating nothing', async () => {
      const cases: [string, RegExp][] = [
        ['-bad', /\[UserName\]/], ['bad..name', /\[UserName\]/], ['api', /reserved/], ['x'.repeat(41), /username|40|UserName/i],
        ['Alice', /user already exists \[name: Alice\]/], ['ACME', /user already exists/],
      ];
      for (const [name, msg] of cases) {
        const res = await w.raw('POST', '/orgs', { username: name }, { token: carol.token });
        expectError(res, 422, msg);
      }
      expect(await orgExists('-bad')).to.equal(false);
      const all = await w.admin.api.admin.adminGetAllOrgs();
      expect(all.data.map((o) => o.name)).to.deep.equal(['acme']);
    });

    it('refuses a mistyped field, a bad visibility and a bad website with 422', async () => {
      expectError(await w.raw('POST', '/orgs', { username: 'x1', repo_admin_change_team_access: 'sometimes', nope: 1 }, { token: carol.token }), 422);
      expectError(await w.raw('POST', '/orgs', { username: 'x2', visibility: 'secret' }, { token: carol.token }), 422);
      expectError(await w.raw('POST', '/orgs', { username: 'x3', website: 'ftp://x' }, { token: carol.token }), 422, '[Website]: Url');
      expectError(await w.raw('POST', '/orgs', { full_name: 'no name' }, { token: carol.token }), 422);
      for (const n of ['x1', 'x2', 'x3']) expect(await orgExists(n)).to.equal(false);
    });

    it('needs a token (401) and the organization write scope (403)', async () => {
      expectError(await w.raw('POST', '/orgs', { username: 'anon-org' }), 401, 'token is required');
      const tok = await w.raw('POST', '/users/carol/tokens', { name: 'ro', scopes: ['read:organization'] }, { basic: ['carol', carol.password] });
      expectError(await w.raw('POST', '/orgs', { username: 'ro-org' }, { token: tok.body.sha1 }), 403, /required=\[write:organization\]/);
      expect(await orgExists('anon-org')).to.equal(false);
      expect(await orgExists('ro-org')).to.equal(false);
    });
  });

  describe('visibility and listing', () => {
    before(async () => {
      await alice.api.orgs.orgCreate({ username: 'limited-org', visibility: 'limited' });
      await alice.api.orgs.orgCreate({ username: 'secret-org', visibility: 'private' });
    });

    it('shows a private organization only to members and site admins', async () => {
      expect((await alice.api.orgs.orgGet('secret-org')).data.visibility).to.equal('private');
      expect((await w.admin.api.orgs.orgGet('secret-org')).status).to.equal(200);
      expectError(await w.raw('GET', '/orgs/secret-org', undefined, { token: carol.token }), 404);
      expectError(await w.raw('GET', '/orgs/secret-org'), 404);
    });

    it('shows a limited organization to signed-in users only', async () => {
      expect((await carol.api.orgs.orgGet('limited-org')).status).to.equal(200);
      expectError(await w.raw('GET', '/orgs/limited-org'), 404);
    });

    it('hides the email from anonymous callers', async () => {
      expect((await w.raw('GET', '/orgs/acme')).body.email).to.equal('');
      expect((await carol.api.orgs.orgGet('acme')).data.email).to.equal('info@acme.example');
    });

    it('lists visible organizations by name with paging headers', async () => {
      const anon = await w.raw('GET', '/orgs');
      expect(anon.body.map((o: { name: string }) => o.name)).to.deep.equal(['acme']);
      const signed = await carol.api.orgs.orgGetAll();
      expect(signed.data.map((o) => o.name)).to.deep.equal(['acme', 'limited-org']);
      const page = await w.raw('GET', '/orgs?limit=1&page=1', undefined, { token: carol.token });
      expect(page.headers.get('x-total-count')).to.equal('2');
      expect(page.headers.get('link')).to.contain('rel="next"');
      const admin = await w.admin.api.admin.adminGetAllOrgs();
      expect(admin.data.map((o) => o.name)).to.deep.equal(['acme', 'limited-org', 'secret-org']);
      expectError(await w.raw('GET', '/admin/orgs', undefined, { token: carol.token }), 403, 'user should be the site admin');
    });

    it('lists a user\'s organizations: all for the user, public memberships of visible orgs for others', async () => {
      const mine = await alice.api.user.orgListCurrentUserOrgs();
      expect(mine.data.map((o) => o.name)).to.deep.equal(['acme', 'limited-org', 'secret-org']);
      const others = await carol.api.users.orgListUserOrgs('alice');
      expect(others.data).to.deep.equal([]);
      await alice.api.orgs.orgPublicizeMember('secret-org', 'alice');
      await alice.api.orgs.orgPublicizeMember('acme', 'alice');
      const after = await carol.api.users.orgListUserOrgs('alice');
      expect(after.data.map((o) => o.name)).to.deep.equal(['acme']);
      const admin = await w.admin.api.users.orgListUserOrgs('alice');
      expect(admin.data.map((o) => o.name)).to.deep.equal(['acme', 'limited-org', 'secret-org']);
      expect(admin.headers.get('x-total-count')).to.equal('3');
    });

    it('needs both the user and organization scopes on /user/orgs', async () => {
      const tok = await w.raw('POST', '/users/alice/tokens', { name: 'user-only', scopes: ['read:user'] }, { basic: ['alice', alice.password] });
      expectError(await w.raw('GET', '/user/orgs', undefined, { token: tok.body.sha1 }), 403,
        'token does not have at least one of required scope(s), required=[read:user read:organization], token scope=read:user');
      expectError(await w.raw('GET', '/user/orgs'), 401, 'token is required');
    });

    it('answers 403 to a public-only token for a non-public organization', async () => {
      const tok = await w.raw('POST', '/users/alice/tokens', { name: 'pub', scopes: ['public-only', 'read:organization'] }, { basic: ['alice', alice.password] });
      expectError(await w.raw('GET', '/orgs/secret-org', undefined, { token: tok.body.sha1 }), 403, 'token scope is limited to public orgs');
      expect((await w.raw('GET', '/orgs/acme', undefined, { token: tok.body.sha1 })).status).to.equal(200);
      const list = await w.raw('GET', '/orgs', undefined, { token: tok.body.sha1 });
      expect(list.body.map((o: { name: string }) => o.name)).to.deep.equal(['acme']);
    });
  });

  describe('members', () => {
    let writers: number;
    before(async () => {
      const t = await alice.api.orgs.orgCreateTeam('acme', { name: 'writers', permission: 'write', units: ['repo.code', 'repo.issues'], can_create_org_repo: true });
      writers = t.data.id!;
      await alice.api.teams.orgAddTeamMember(writers, 'bob');
    });

    it('lists all members to members and only public members to others', async () => {
      const all = await bob.api.orgs.orgListMembers('acme');
      expect(all.data.map((u) => u.login)).to.deep.equal(['alice', 'bob']);
      expect(all.headers.get('x-total-count')).to.equal('2');
      const outside = await carol.api.orgs.orgListMembers('acme');
      expect(outside.data.map((u) => u.login)).to.deep.equal(['alice']);
      const pub = await w.client().orgs.orgListPublicMembers('acme');
      expect(pub.data.map((u) => u.login)).to.deep.equal(['alice']);
      expectError(await w.raw('GET', '/orgs/acme/members'), 401, 'token is required');
    });

    it('checks membership: 204/404 for members, a 303 to public_members for outsiders', async () => {
      expect((await w.raw('GET', '/orgs/acme/members/bob', undefined, { token: alice.token })).status).to.equal(204);
      expectError(await w.raw('GET', '/orgs/acme/members/carol', undefined, { token: alice.token }), 404);
      const redirect = await w.raw('GET', '/orgs/acme/members/bob', undefined, { token: carol.token });
      expect(redirect.status).to.equal(303);
      expect(redirect.headers.get('location')).to.equal('/api/v1/orgs/acme/public_members/bob');
      expectError(await w.raw('GET', '/orgs/acme/members/carol', undefined, { token: carol.token }), 404);
      expectError(await w.raw('GET', '/orgs/acme/members/nobody', undefined, { token: alice.token }), 404);
      expectError(await w.raw('GET', '/orgs/acme/members/bob'), 401, 'token is required');
      // gitea-js follows the redirect to the public check
      const viaClient = await w.raw('GET', '/orgs/acme/public_members/alice');
      expect(viaClient.status).to.equal(204);
    });

    it('publicizes and conceals only one\'s own membership', async () => {
      expectError(await w.raw('PUT', '/orgs/acme/public_members/bob', undefined, { token: alice.token }), 403, 'Cannot publicize another member');
      expectError(await w.raw('PUT', '/orgs/acme/public_members/carol', undefined, { token: carol.token }), 403, 'Must be an organization member');
      expectError(await w.raw('PUT', '/orgs/acme/public_members/bob'), 401, 'token is required');
      expectError(await w.raw('GET', '/orgs/acme/public_members/bob'), 404);
      expect((await bob.api.orgs.orgPublicizeMember('acme', 'bob')).status).to.equal(204);
      expect((await w.raw('GET', '/orgs/acme/public_members/bob')).status).to.equal(204);
      expectError(await w.raw('DELETE', '/orgs/acme/public_members/bob', undefined, { token: alice.token }), 403, 'Cannot conceal another member');
      expect((await w.raw('GET', '/orgs/acme/public_members/bob')).status).to.equal(204);
      expect((await bob.api.orgs.orgConcealMember('acme', 'bob')).status).to.equal(204);
      expectError(await w.raw('GET', '/orgs/acme/public_members/bob'), 404);
    });

    it('reports a member\'s permissions from its teams', async () => {
      const p = await carol.api.users.orgGetUserPermissions('bob', 'acme');
      expect(p.data).to.deep.equal({ is_owner: false, is_admin: false, can_write: true, can_read: true, can_create_repository: true });
      const none = await alice.api.users.orgGetUserPermissions('carol', 'acme');
      expect(none.data).to.deep.equal({ is_owner: false, is_admin: false, can_write: false, can_read: false, can_create_repository: false });
      expectError(await w.raw('GET', '/users/carol/orgs/secret-org/permissions', undefined, { token: alice.token }), 404);
      expectError(await w.raw('GET', '/users/alice/orgs/nope/permissions', undefined, { token: alice.token }), 404);
    });

    it('lets only owners remove members and never the last owner', async () => {
      expectError(await w.raw('DELETE', '/orgs/acme/members/alice', undefined, { token: bob.token }), 403, 'Must be an organization owner');
      expectError(await w.raw('DELETE', '/orgs/acme/members/alice', undefined, { token: carol.token }), 403, 'Must be an organization owner');
      expectError(await w.raw('DELETE', '/orgs/acme/members/alice'), 401, 'token is required');
      const last = await w.raw('DELETE', '/orgs/acme/members/alice', undefined, { token: alice.token });
      expectError(last, 422, `user is the last member of owner team [uid: ${alice.id}]`);
      expect((await alice.api.users.orgGetUserPermissions('alice', 'acme')).data.is_owner).to.equal(true);
      expect((await w.raw('GET', '/orgs/acme/members/alice', undefined, { token: alice.token })).status).to.equal(204);
    });

    it('removes a member from the organization and every team', async () => {
      expect((await alice.api.orgs.orgDeleteMember('acme', 'bob')).status).to.equal(204);
      expectError(await w.raw('GET', '/orgs/acme/members/bob', undefined, { token: alice.token }), 404);
      expectError(await w.raw('GET', `/teams/${writers}/members/bob`, undefined, { token: alice.token }), 404);
      expect((await alice.api.user.orgListCurrentUserOrgs()).status).to.equal(200);
      expect((await bob.api.user.orgListCurrentUserOrgs()).data).to.deep.equal([]);
      // removing a non-member is a no-op
      expect((await w.raw('DELETE', '/orgs/acme/members/carol', undefined, { token: alice.token })).status).to.equal(204);
    });
  });

  describe('edit', () => {
    before(async () => { await alice.api.teams.orgAddTeamMember((await alice.api.orgs.orgListTeams('acme')).data.find((t) => t.name === 'writers')!.id!, 'bob'); });

    it('refuses non-owners with 403 and changes nothing', async () => {
      const before = (await alice.api.orgs.orgGet('acme')).data;
      expectError(await w.raw('PATCH', '/orgs/acme', { description: 'hacked' }, { token: bob.token }), 403, 'Must be an organization owner');
      expectError(await w.raw('PATCH', '/orgs/acme', { description: 'hacked' }, { token: carol.token }), 403, 'Must be an organization owner');
      expectError(await w.raw('PATCH', '/orgs/acme', { description: 'hacked' }), 401, 'token is required');
      expectError(await w.raw('PATCH', '/orgs/secret-org', { description: 'hacked' }, { token: carol.token }), 404);
      expect((await alice.api.orgs.orgGet('acme')).data).to.deep.equal(before);
    });

    it('keeps omitted fields and changes given ones', async () => {
      const res = await alice.api.orgs.orgEdit('acme', { description: 'new description', repo_admin_change_team_access: true });
      expect(res.status).to.equal(200);
      expect(res.data).to.include({ description: 'new description', full_name: 'Acme Inc', website: 'https://acme.example', location: 'Earth', email: 'info@acme.example', repo_admin_change_team_access: true });
      const vis = await alice.api.orgs.orgEdit('acme', { visibility: 'limited' });
      expect(vis.data).to.include({ visibility: 'limited', description: 'new description' });
      expectError(await w.raw('GET', '/orgs/acme'), 404);
      await alice.api.orgs.orgEdit('acme', { visibility: 'public' });
    });

    it('refuses bad values with 422 and changes nothing', async () => {
      const before = (await alice.api.orgs.orgGet('acme')).data;
      expectError(await w.raw('PATCH', '/orgs/acme', { website: 'not a url' }, { token: alice.token }), 422, '[Website]: Url');
      expectError(await w.raw('PATCH', '/orgs/acme', { visibility: 'hidden' }, { token: alice.token }), 422);
      expectError(await w.raw('PATCH', '/orgs/acme', { full_name: 'x'.repeat(101) }, { token: alice.token }), 422);
      expect((await alice.api.orgs.orgGet('acme')).data).to.deep.equal(before);
      // why: EditOrgOption has no username; as Gitea, the field is ignored and the organization keeps its name.
      const ignored = await w.raw('PATCH', '/orgs/acme', { username: 'rename' }, { token: alice.token });
      expect([ignored.status, ignored.body.username]).to.deep.equal([200, 'acme']);
      expectError(await w.raw('GET', '/orgs/rename'), 404);
    });
  });

  describe('delete', () => {
    it('refuses non-owners with 403', async () => {
      expectError(await w.raw('DELETE', '/orgs/acme', undefined, { token: bob.token }), 403, 'Must be an organization owner');
      expectError(await w.raw('DELETE', '/orgs/acme'), 401, 'token is required');
      expect(await orgExists('acme')).to.equal(true);
    });

    it('refuses while the organization owns repositories, then deletes it with its teams', async () => {
      const org = (await alice.api.orgs.orgGet('acme')).data;
      const teams = (await alice.api.orgs.orgListTeams('acme')).data;
      const repoId = await insertRepo(w.server, org.id!, 'acme', 'widgets');
      expectError(await w.raw('DELETE', '/orgs/acme', undefined, { token: alice.token }), 422, `user still has ownership of repositories [uid: ${org.id}]`);
      expect(await orgExists('acme')).to.equal(true);
      expect((await alice.api.orgs.orgListTeams('acme')).data).to.have.length(teams.length);
      await sql(w.server, 'DELETE FROM repo_unit WHERE repo_id = $1', [repoId]);
      await sql(w.server, 'DELETE FROM repository WHERE id = $1', [repoId]);
      expect((await alice.api.orgs.orgDelete('acme')).status).to.equal(204);
      expect(await orgExists('acme')).to.equal(false);
      for (const t of teams) expectError(await w.raw('GET', `/teams/${t.id}`, undefined, { token: w.admin.token }), 404);
      expect((await bob.api.user.orgListCurrentUserOrgs()).data).to.deep.equal([]);
      const rows = await sql(w.server, 'SELECT COUNT(*) AS n FROM org_user WHERE org_id = $1', [org.id]);
      expect(Number(rows[0].n)).to.equal(0);
    });
  });
});

describe('organization creation rights', () => {
  let w: World;
  before(async () => { w = await startWorld({ env: { FORGE__SERVICE__DEFAULT_ALLOW_CREATE_ORGANIZATION: 'false' } }); });
  after(async () => { await w?.stop(); });

  it('refuses users without allow_create_organization (403); an admin can create one for them', async () => {
    const dave = await w.user('dave');
    expectError(await w.raw('POST', '/orgs', { username: 'daves' }, { token: dave.token }), 403, 'not allowed to create org');
    expectError(await w.raw('GET', '/orgs/daves', undefined, { token: w.admin.token }), 404);
    expectError(await w.raw('POST', '/admin/users/dave/orgs', { username: 'daves' }, { token: dave.token }), 403, 'user should be the site admin');
    const res = await w.admin.api.admin.adminCreateOrg('dave', { username: 'daves', visibility: 'private' });
    expect(res.status).to.equal(201);
    expect(res.data.visibility).to.equal('private');
    const perms = await dave.api.users.orgGetUserPermissions('dave', 'daves');
    expect(perms.data.is_owner).to.equal(true);
    expectError(await w.raw('POST', '/admin/users/nobody/orgs', { username: 'x' }, { token: w.admin.token }), 404);
    expectError(await w.raw('POST', '/admin/users/dave/orgs', { username: 'DAVES' }, { token: w.admin.token }), 422, /user already exists/);
    // site admins may always create
    expect((await w.admin.api.orgs.orgCreate({ username: 'rootorg' })).status).to.equal(201);
  });
});
