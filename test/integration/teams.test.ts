/**
 * Teams: creation and editing with Gitea 1.24's permission rules, the Owners team's protections,
 * guards, search, members (and the organization membership they imply) and repositories.
 */
import { expect } from 'chai';
import { startWorld, type World, type TestUser, type RawResponse } from '../helpers/world';
import { insertRepo } from '../helpers/db';

const TEAM_KEYS = ['id', 'name', 'description', 'organization', 'includes_all_repositories', 'permission', 'units', 'units_map', 'can_create_org_repo'];

function expectError(res: RawResponse, status: number, message?: string | RegExp): void {
  expect(res.status, res.text).to.equal(status);
  if (message instanceof RegExp) expect(res.body.message).to.match(message);
  else if (message !== undefined) expect(res.body.message).to.equal(message);
}

describe('teams', () => {
  let w: World;
  let owner: TestUser; // owner of "team-org"
  let member: TestUser; // in "devs"
  let other: TestUser; // org member in "readers" only
  let outsider: TestUser;
  let orgId: number;
  let ownersId: number;
  let devsId: number;
  let readersId: number;

  before(async () => {
    w = await startWorld();
    [owner, member, other, outsider] = [await w.user('olivia'), await w.user('mike'), await w.user('otto'), await w.user('xena')];
    orgId = (await owner.api.orgs.orgCreate({ username: 'team-org', full_name: 'Team Org' })).data.id!;
    ownersId = (await owner.api.orgs.orgListTeams('team-org')).data[0].id!;
  });
  after(async () => { await w?.stop(); });

  const teamNames = async () => (await owner.api.orgs.orgListTeams('team-org')).data.map((t) => t.name);

  describe('create', () => {
    it('creates a team from permission and the deprecated units list', async () => {
      const res = await owner.api.orgs.orgCreateTeam('team-org', { name: 'devs', description: 'developers', permission: 'write', units: ['repo.code', 'repo.pulls', 'repo.nope'] });
      expect(res.status).to.equal(201);
      expect(res.data).to.have.all.keys(TEAM_KEYS);
      expect(res.data).to.include({ name: 'devs', description: 'developers', permission: 'write', includes_all_repositories: false, can_create_org_repo: false });
      expect(res.data.units).to.deep.equal(['repo.code', 'repo.pulls']);
      expect(res.data.units_map).to.deep.equal({ 'repo.code': 'write', 'repo.pulls': 'write' });
      expect(res.data.organization).to.include({ id: orgId, name: 'team-org', full_name: 'Team Org' });
      devsId = res.data.id!;
    });

    it('lets units_map win: the team mode is the lowest unit mode', async () => {
      const res = await owner.api.orgs.orgCreateTeam('team-org', {
        name: 'readers', permission: 'write', units: ['repo.wiki'], units_map: { 'repo.code': 'read', 'repo.issues': 'write', 'repo.ext_issues': 'read', 'repo.wiki': 'none' },
      });
      expect(res.data.permission).to.equal('read');
      expect(res.data.units_map).to.deep.equal({ 'repo.code': 'read', 'repo.issues': 'write', 'repo.wiki': 'none', 'repo.ext_issues': 'read' });
      readersId = res.data.id!;
    });

    it('gives an admin team every unit', async () => {
      const res = await owner.api.orgs.orgCreateTeam('team-org', { name: 'admins', permission: 'admin', includes_all_repositories: true, can_create_org_repo: true, units_map: { 'repo.code': 'read' } });
      expect(res.data.permission).to.equal('admin');
      expect(res.data.units).to.have.length(10);
      expect(Object.values(res.data.units_map!)).to.satisfy((v: string[]) => v.every((m) => m === 'admin'));
      expect(res.data).to.include({ includes_all_repositories: true, can_create_org_repo: true });
    });

    it('refuses bad names, duplicates and missing units with 422, creating nothing', async () => {
      const before = await teamNames();
      const cases: [unknown, string | RegExp][] = [
        [{ name: 'bad name', permission: 'read', units: ['repo.code'] }, /\[Name\]/],
        [{ name: '', permission: 'read', units: ['repo.code'] }, /\[Name\]/],
        [{ name: 'x'.repeat(256), permission: 'read', units: ['repo.code'] }, /name/i],
        [{ name: 'new', permission: 'read', units: ['repo.code'] }, 'name is reserved [name: new]'],
        [{ name: 'DEVS', permission: 'read', units: ['repo.code'] }, `team already exists [org_id: ${orgId}, name: devs]`],
        [{ name: 'owners', permission: 'admin' }, `team already exists [org_id: ${orgId}, name: owners]`],
        [{ name: 'nounits', permission: 'read' }, 'units permission should not be empty'],
        [{ name: 'badmode', units_map: { 'repo.code': 'super' } }, /not an access mode/],
        [{ name: 'badunit', units_map: { 'repo.nope': 'read' } }, /unknown unit/],
        [{ name: 'ownerperm', permission: 'owner', units: ['repo.code'] }, /permission/],
        [{ name: 'extra', permission: 'read', units: ['repo.code'], includes_all_repositories: 'yes', secret: true }, /includes_all_repositories/],
      ];
      for (const [body, msg] of cases) expectError(await w.raw('POST', '/orgs/team-org/teams', body, { token: owner.token }), 422, msg);
      expect(await teamNames()).to.deep.equal(before);
    });

    it('lets only owners create teams', async () => {
      await owner.api.teams.orgAddTeamMember(devsId, 'mike');
      await owner.api.teams.orgAddTeamMember(readersId, 'otto');
      const before = await teamNames();
      const body = { name: 'sneaky', permission: 'read', units: ['repo.code'] };
      expectError(await w.raw('POST', '/orgs/team-org/teams', body, { token: member.token }), 403, 'Must be an organization owner');
      expectError(await w.raw('POST', '/orgs/team-org/teams', body, { token: outsider.token }), 403, 'Must be an organization member');
      expectError(await w.raw('POST', '/orgs/team-org/teams', body), 401, 'token is required');
      expect(await teamNames()).to.deep.equal(before);
      expect((await w.admin.api.orgs.orgCreateTeam('team-org', { name: 'by-admin', permission: 'read', units: ['repo.code'] })).status).to.equal(201);
    });
  });

  describe('read', () => {
    it('lists an organization\'s teams to members without the organization object', async () => {
      const res = await member.api.orgs.orgListTeams('team-org');
      expect(res.data.map((t) => t.name)).to.deep.equal(['admins', 'by-admin', 'devs', 'Owners', 'readers']);
      expect(res.headers.get('x-total-count')).to.equal('5');
      expect(res.data.every((t) => t.organization === null)).to.equal(true);
      expectError(await w.raw('GET', '/orgs/team-org/teams', undefined, { token: outsider.token }), 403, 'Must be an organization member');
      expectError(await w.raw('GET', '/orgs/team-org/teams'), 401, 'token is required');
    });

    it('searches teams the caller is in, by name and description', async () => {
      const res = await member.api.orgs.teamSearch('team-org', { q: 'dev' });
      expect(res.data.ok).to.equal(true);
      expect(res.data.data!.map((t) => t.name)).to.deep.equal(['devs']);
      const byDesc = await member.api.orgs.teamSearch('team-org', { q: 'developers' });
      expect(byDesc.data.data!.map((t) => t.name)).to.deep.equal(['devs']);
      const noDesc = await member.api.orgs.teamSearch('team-org', { q: 'developers', include_desc: false });
      expect(noDesc.data.data).to.deep.equal([]);
      const mine = await member.api.orgs.teamSearch('team-org', { q: 'read' });
      expect(mine.data.data).to.deep.equal([]);
      const ownerAll = await owner.api.orgs.teamSearch('team-org');
      expect(ownerAll.data.data!.map((t) => t.name)).to.deep.equal(['Owners']);
      const admin = await w.admin.api.orgs.teamSearch('team-org', { q: 'e' });
      expect(admin.data.data!.map((t) => t.name)).to.deep.equal(['devs', 'Owners', 'readers']);
      expect(admin.headers.get('x-total-count')).to.equal('3');
      expect((await w.admin.api.orgs.teamSearch('team-org', { q: '%' })).data.data).to.deep.equal([]);
      expect((await w.admin.api.orgs.teamSearch('team-org', { q: 'by_admin' })).data.data).to.deep.equal([]);
      expectError(await w.raw('GET', '/orgs/team-org/teams/search?q=a', undefined, { token: outsider.token }), 403, 'Must be an organization member');
    });

    it('gets a team with its organization for team members and owners', async () => {
      const res = await member.api.teams.orgGetTeam(devsId);
      expect(res.data.organization).to.include({ id: orgId, name: 'team-org' });
      expect((await owner.api.teams.orgGetTeam(devsId)).status).to.equal(200);
      expectError(await w.raw('GET', `/teams/${devsId}`, undefined, { token: other.token }), 403, 'Must be a team member');
      expectError(await w.raw('GET', `/teams/${devsId}`, undefined, { token: outsider.token }), 404);
      expectError(await w.raw('GET', `/teams/${devsId}`), 401, 'token is required');
    });

    it('answers 404 for any unknown team id, never a 500', async () => {
      for (const id of ['0', '-1', 'abc', '99999', '2147483648', '99999999999999999999', '1.5', '1e3']) {
        expectError(await w.raw('GET', `/teams/${id}`, undefined, { token: w.admin.token }), 404);
        expectError(await w.raw('PATCH', `/teams/${id}`, { description: 'x' }, { token: w.admin.token }), 404);
        expectError(await w.raw('GET', `/teams/${id}/members`, undefined, { token: w.admin.token }), 404);
      }
    });

    it('lists the caller\'s teams with their organizations', async () => {
      const res = await member.api.user.userListTeams();
      expect(res.data.map((t) => t.name)).to.deep.equal(['devs']);
      expect(res.data[0].organization).to.include({ name: 'team-org' });
      expect(res.headers.get('x-total-count')).to.equal('1');
    });
  });

  describe('edit', () => {
    it('changes only given fields', async () => {
      const res = await owner.api.teams.orgEditTeam(devsId, { name: 'devs', can_create_org_repo: true });
      expect(res.data).to.include({ name: 'devs', description: 'developers', permission: 'write', can_create_org_repo: true });
      expect(res.data.units_map).to.deep.equal({ 'repo.code': 'write', 'repo.pulls': 'write' });
      expect(res.data.organization).to.include({ name: 'team-org' });
      const renamed = await owner.api.teams.orgEditTeam(devsId, { name: 'developers', units_map: { 'repo.code': 'write', 'repo.issues': 'read' } } as never);
      expect(renamed.data).to.include({ name: 'developers', permission: 'read' });
      expect(renamed.data.units_map).to.deep.equal({ 'repo.code': 'write', 'repo.issues': 'read' });
      const perm = await owner.api.teams.orgEditTeam(devsId, { name: 'devs', permission: 'write' });
      expect(perm.data.units_map).to.deep.equal({ 'repo.code': 'write', 'repo.issues': 'write' });
    });

    it('refuses non-owners with 404 (team context) and bad values with 422, changing nothing', async () => {
      const before = (await owner.api.teams.orgGetTeam(devsId)).data;
      expectError(await w.raw('PATCH', `/teams/${devsId}`, { name: 'mine' }, { token: member.token }), 404);
      expectError(await w.raw('PATCH', `/teams/${devsId}`, { name: 'mine' }, { token: outsider.token }), 404);
      expectError(await w.raw('PATCH', `/teams/${devsId}`, { name: 'readers' }, { token: owner.token }), 422, `team already exists [org_id: ${orgId}, name: readers]`);
      expectError(await w.raw('PATCH', `/teams/${devsId}`, { name: 'bad name' }, { token: owner.token }), 422, /\[Name\]/);
      expectError(await w.raw('PATCH', `/teams/${devsId}`, { permission: 'owner' }, { token: owner.token }), 422);
      expectError(await w.raw('PATCH', `/teams/${devsId}`, { units_map: { 'repo.code': 'owner' } }, { token: owner.token }), 422);
      expect((await owner.api.teams.orgGetTeam(devsId)).data).to.deep.equal(before);
    });

    it('keeps the Owners team\'s name, mode, units and repository rights', async () => {
      const before = (await owner.api.teams.orgGetTeam(ownersId)).data;
      expectError(await w.raw('PATCH', `/teams/${ownersId}`, { name: 'Bosses' }, { token: owner.token }), 422, 'the Owners team cannot be renamed');
      const res = await owner.api.teams.orgEditTeam(ownersId, { name: 'Owners', permission: 'read', includes_all_repositories: false, can_create_org_repo: false, units_map: { 'repo.code': 'read' }, description: 'the bosses' } as never);
      expect(res.data).to.deep.equal({ ...before, description: 'the bosses' });
    });
  });

  describe('members', () => {
    it('adds a user to a team and so to the organization', async () => {
      expect((await owner.api.teams.orgAddTeamMember(readersId, 'xena')).status).to.equal(204);
      expect((await owner.api.teams.orgAddTeamMember(readersId, 'xena')).status).to.equal(204);
      expect((await w.raw('GET', '/orgs/team-org/members/xena', undefined, { token: owner.token })).status).to.equal(204);
      const m = await owner.api.teams.orgListTeamMember(readersId, 'xena');
      expect(m.data.login).to.equal('xena');
      const list = await other.api.teams.orgListTeamMembers(readersId);
      expect(list.data.map((u) => u.login)).to.deep.equal(['otto', 'xena']);
      expect(list.headers.get('x-total-count')).to.equal('2');
      expectError(await w.raw('GET', `/teams/${readersId}/members/mike`, undefined, { token: owner.token }), 404);
    });

    it('lets only owners change members', async () => {
      expectError(await w.raw('PUT', `/teams/${readersId}/members/mike`, undefined, { token: other.token }), 404);
      expectError(await w.raw('DELETE', `/teams/${readersId}/members/xena`, undefined, { token: other.token }), 404);
      expectError(await w.raw('PUT', `/teams/${devsId}/members/xena`, undefined, { token: other.token }), 403, 'Must be a team member');
      expectError(await w.raw('PUT', `/teams/${readersId}/members/nobody`, undefined, { token: owner.token }), 404);
      expectError(await w.raw('PUT', `/teams/${readersId}/members/team-org`, undefined, { token: owner.token }), 404);
      const list = await owner.api.teams.orgListTeamMembers(readersId);
      expect(list.data.map((u) => u.login)).to.deep.equal(['otto', 'xena']);
    });

    it('never removes the last member of the Owners team', async () => {
      expectError(await w.raw('DELETE', `/teams/${ownersId}/members/olivia`, undefined, { token: owner.token }), 422, `user is the last member of owner team [uid: ${owner.id}]`);
      expect((await owner.api.teams.orgListTeamMembers(ownersId)).data.map((u) => u.login)).to.deep.equal(['olivia']);
      await owner.api.teams.orgAddTeamMember(ownersId, 'otto');
      expect((await owner.api.teams.orgRemoveTeamMember(ownersId, 'otto')).status).to.equal(204);
      expect((await w.raw('GET', '/orgs/team-org/members/otto', undefined, { token: owner.token })).status).to.equal(204);
    });

    it('removes a user left in no team from the organization', async () => {
      expect((await owner.api.teams.orgRemoveTeamMember(readersId, 'xena')).status).to.equal(204);
      expectError(await w.raw('GET', '/orgs/team-org/members/xena', undefined, { token: owner.token }), 404);
      expect((await owner.api.teams.orgRemoveTeamMember(readersId, 'xena')).status).to.equal(204);
    });

    it('refuses (403) to add a user the organization blocks, changing nothing', async () => {
      expect((await owner.api.orgs.organizationBlockUser('team-org', 'xena')).status).to.equal(204);
      expectError(await w.raw('PUT', `/teams/${readersId}/members/xena`, undefined, { token: owner.token }), 403, 'user is blocked');
      expectError(await w.raw('GET', `/teams/${readersId}/members/xena`, undefined, { token: owner.token }), 404);
      expectError(await w.raw('GET', '/orgs/team-org/members/xena', undefined, { token: owner.token }), 404);
      await owner.api.orgs.organizationUnblockUser('team-org', 'xena');
    });
  });

  describe('repositories', () => {
    let repoId: number;
    before(async () => { repoId = await insertRepo(w.server, orgId, 'team-org', 'engine'); });

    it('answers 404 for a repository that does not exist', async () => {
      expectError(await w.raw('GET', `/teams/${devsId}/repos/team-org/missing`, undefined, { token: owner.token }), 404);
      expectError(await w.raw('PUT', `/teams/${devsId}/repos/team-org/missing`, undefined, { token: owner.token }), 404);
      expectError(await w.raw('DELETE', `/teams/${devsId}/repos/team-org/missing`, undefined, { token: owner.token }), 404);
    });

    it('adds, shows and removes a repository (admin access needed)', async () => {
      expectError(await w.raw('GET', `/teams/${devsId}/repos/team-org/engine`, undefined, { token: owner.token }), 404);
      expectError(await w.raw('PUT', `/teams/${devsId}/repos/team-org/engine`, undefined, { token: member.token }), 403, 'Must have admin-level access to the repository');
      expect((await member.api.teams.orgListTeamRepos(devsId)).data).to.deep.equal([]);
      expect((await owner.api.teams.orgAddTeamRepository(devsId, 'team-org', 'engine')).status).to.equal(204);
      const list = await member.api.teams.orgListTeamRepos(devsId);
      expect(list.data.map((r) => r.full_name)).to.deep.equal(['team-org/engine']);
      expect(list.data[0].id).to.equal(repoId);
      expect((await member.api.teams.orgListTeamRepo(devsId, 'ignored', 'engine')).data.name).to.equal('engine');
      expectError(await w.raw('DELETE', `/teams/${devsId}/repos/team-org/engine`, undefined, { token: member.token }), 403, 'Must have admin-level access to the repository');
      expect((await member.api.teams.orgListTeamRepos(devsId)).data).to.have.length(1);
      expect((await owner.api.teams.orgRemoveTeamRepository(devsId, 'team-org', 'engine')).status).to.equal(204);
      expect((await member.api.teams.orgListTeamRepos(devsId)).data).to.deep.equal([]);
    });

    it('lists every organization repository for a team that includes all', async () => {
      const res = await owner.api.teams.orgListTeamRepos(ownersId);
      expect(res.data.map((r) => r.name)).to.deep.equal(['engine']);
      expect(res.headers.get('x-total-count')).to.equal('1');
    });
  });

  describe('delete', () => {
    it('never deletes the Owners team', async () => {
      expectError(await w.raw('DELETE', `/teams/${ownersId}`, undefined, { token: owner.token }), 422, 'the Owners team cannot be deleted');
      expect((await owner.api.teams.orgGetTeam(ownersId)).data.name).to.equal('Owners');
      expect((await owner.api.teams.orgListTeamMembers(ownersId)).data.map((u) => u.login)).to.deep.equal(['olivia']);
    });

    it('refuses non-owners with 404', async () => {
      expectError(await w.raw('DELETE', `/teams/${devsId}`, undefined, { token: member.token }), 404);
      expect((await owner.api.teams.orgGetTeam(devsId)).status).to.equal(200);
    });

    it('deletes a team; members in no other team leave the organization', async () => {
      expect((await owner.api.teams.orgDeleteTeam(devsId)).status).to.equal(204);
      expectError(await w.raw('GET', `/teams/${devsId}`, undefined, { token: owner.token }), 404);
      expectError(await w.raw('GET', '/orgs/team-org/members/mike', undefined, { token: owner.token }), 404);
      expect((await member.api.user.userListTeams()).data).to.deep.equal([]);
      expect((await w.raw('GET', '/orgs/team-org/members/otto', undefined, { token: owner.token })).status).to.equal(204);
    });
  });
});
