/**
 * Actions secrets and variables through the API (gitea-js and raw HTTP): the repository's (for its
 * owners), an organization's (for its owners) and the signed-in user's, with Gitea's name rules,
 * size limits and answers; secrets stored sealed and never shown; every refusal a clear 4xx with
 * nothing changed; everything gone with its repository or organization.
 */
import { expect } from 'chai';
import { startWorld, type World, type TestUser } from '../helpers/world';
import { apiRepo } from '../helpers/refs';
import { count, sql } from '../helpers/db';

describe('actions secrets and variables', () => {
  let w: World;
  let alice: TestUser;
  let bob: TestUser;
  let repoId: number;
  const call = (method: string, p: string, body?: unknown, u: TestUser = alice) => w.raw(method, p, body, { token: u.token });
  const secretRows = () => sql(w.server, 'SELECT owner_id, repo_id, name, data, description FROM secret ORDER BY id');
  const variableRows = () => sql(w.server, 'SELECT owner_id, repo_id, name, data, description FROM action_variable ORDER BY id');

  before(async () => {
    w = await startWorld();
    [alice, bob] = [await w.user('alice'), await w.user('bob')];
    repoId = await apiRepo(w, alice, 'proj');
    expect((await call('POST', '/orgs', { username: 'guild' })).status).to.equal(201);
  });
  after(() => w.stop());

  describe('secrets', () => {
    it('creates (201), replaces (204), lists without values and deletes a repository secret; the value is stored sealed', async () => {
      const made = await call('PUT', '/repos/alice/proj/actions/secrets/deploy_key', { data: 'hunter2', description: 'for deploys' });
      expect(made.status).to.equal(201);
      const [row] = await secretRows();
      expect(row).to.include({ owner_id: 0, repo_id: repoId, name: 'DEPLOY_KEY', description: 'for deploys' });
      expect(row.data).to.not.contain('hunter2');
      expect(row.data).to.not.equal(Buffer.from('hunter2').toString('base64'));

      // another case of the same name is the same secret; an omitted description is cleared, as Gitea does
      expect((await call('PUT', '/repos/alice/proj/actions/secrets/Deploy_Key', { data: 'hunter3' })).status).to.equal(204);
      const [again] = await secretRows();
      expect([again.name, again.description, again.data === row.data]).to.deep.equal(['DEPLOY_KEY', '', false]);

      const listed = await alice.api.repos.repoListActionsSecrets('alice', 'proj');
      expect(listed.data).to.have.length(1);
      expect(listed.data[0]).to.have.all.keys('name', 'description', 'created_at');
      expect(listed.data[0]).to.include({ name: 'DEPLOY_KEY', description: '' });
      expect(listed.data[0].created_at).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      expect(listed.headers.get('x-total-count')).to.equal('1');

      expect((await call('DELETE', '/repos/alice/proj/actions/secrets/deploy_key')).status).to.equal(204);
      const gone = await call('DELETE', '/repos/alice/proj/actions/secrets/deploy_key');
      expect([gone.status, gone.body.message]).to.deep.equal([404, 'secret was not found [name: DEPLOY_KEY]']);
      expect(await secretRows()).to.deep.equal([]);
    });

    it('refuses bad names, values and callers with a clear 4xx, and stores nothing', async () => {
      const cases: [string, unknown, number, string][] = [
        ['1ABC', { data: 'x' }, 400, 'invalid secret name'],
        ['GITEA_TOKEN', { data: 'x' }, 400, 'invalid secret name'],
        ['github_x', { data: 'x' }, 400, 'invalid secret name'],
        ['A-B', { data: 'x' }, 400, 'invalid secret name'],
        [`A${'B'.repeat(255)}`, { data: 'x' }, 400, 'invalid secret name'],
        ['OK', { data: '' }, 422, '[Data]: Required'],
        ['OK', { data: 'é'.repeat(32769) }, 400, 'data too long'],
      ];
      for (const [name, body, status, message] of cases) {
        const r = await call('PUT', `/repos/alice/proj/actions/secrets/${encodeURIComponent(name)}`, body);
        expect([r.status, r.body.message], name).to.deep.equal([status, message]);
      }
      expect((await call('PUT', '/repos/alice/proj/actions/secrets/OK', {})).status).to.equal(422);
      // a reader of a public repository is not its owner; a stranger to a private one does not see it
      const bobs = await call('PUT', '/repos/alice/proj/actions/secrets/OK', { data: 'x' }, bob);
      expect([bobs.status, bobs.body.message]).to.deep.equal([403, 'user should be the owner of the repo']);
      expect((await call('GET', '/repos/alice/proj/actions/secrets', undefined, bob)).status).to.equal(403);
      expect((await w.raw('GET', '/repos/alice/proj/actions/secrets')).status).to.equal(401);
      // nor is an admin collaborator (Gitea's reqOwner); the site admin is
      expect((await call('PUT', '/repos/alice/proj/collaborators/bob', { permission: 'admin' })).status).to.equal(204);
      expect((await call('PUT', '/repos/alice/proj/actions/secrets/OK', { data: 'x' }, bob)).status).to.equal(403);
      expect((await call('DELETE', '/repos/alice/proj/collaborators/bob')).status).to.equal(204);
      expect((await call('GET', '/repos/alice/proj/actions/secrets', undefined, w.admin)).status).to.equal(200);
      // the reserved names without the underscore, CI and `_` alone are fine for secrets
      for (const name of ['GITEA', 'CI', '_']) expect((await call('PUT', `/repos/alice/proj/actions/secrets/${name}`, { data: 'v' })).status, name).to.equal(201);
      expect((await secretRows()).map((r) => r.name)).to.deep.equal(['GITEA', 'CI', '_']);
      for (const name of ['GITEA', 'CI', '_']) expect((await call('DELETE', `/repos/alice/proj/actions/secrets/${name}`)).status).to.equal(204);
    });

    it('keeps a user\'s and an organization\'s secrets apart, for the user and the organization\'s owners', async () => {
      expect((await alice.api.user.updateUserSecret('TOKEN', { data: 'mine' })).status).to.equal(201);
      expect((await alice.api.orgs.updateOrgSecret('guild', 'TOKEN', { data: 'ours' })).status).to.equal(201);
      expect((await call('PUT', '/user/actions/secrets/TOKEN', { data: 'bobs' }, bob)).status).to.equal(201);
      const guild = (await sql(w.server, "SELECT id FROM users WHERE lower_name = 'guild'"))[0].id as number;
      expect((await secretRows()).map((r) => [r.owner_id, r.repo_id, r.name])).to.deep.equal([[alice.id, 0, 'TOKEN'], [guild, 0, 'TOKEN'], [bob.id, 0, 'TOKEN']]);
      const listed = await call('GET', '/orgs/guild/actions/secrets');
      expect(listed.body.map((s: { name: string }) => s.name)).to.deep.equal(['TOKEN']);
      const outsider = await call('PUT', '/orgs/guild/actions/secrets/TOKEN', { data: 'x' }, bob);
      expect([outsider.status, outsider.body.message]).to.deep.equal([403, 'Must be an organization owner']);
      expect((await call('GET', '/orgs/nosuch/actions/secrets')).status).to.equal(404);
      expect((await call('DELETE', '/user/actions/secrets/TOKEN', undefined, bob)).status).to.equal(204);
      expect((await call('DELETE', '/user/actions/secrets/TOKEN', undefined, bob)).status).to.equal(404);
      expect(await count(w.server, 'SELECT COUNT(*) AS n FROM secret WHERE owner_id = $1', [alice.id])).to.equal(1);
    });
  });

  describe('variables', () => {
    it('creates (201), gets, lists, renames and deletes a repository variable', async () => {
      const made = await call('POST', '/repos/alice/proj/actions/variables/build_mode', { value: 'fast\r\nsafe', description: 'how' });
      expect(made.status).to.equal(201);
      const got = await alice.api.repos.getRepoVariable('alice', 'proj', 'BUILD_MODE');
      expect(got.data).to.deep.equal({ owner_id: 0, repo_id: repoId, name: 'BUILD_MODE', data: 'fast\nsafe', description: 'how' });
      const dup = await call('POST', '/repos/alice/proj/actions/variables/build_MODE', { value: 'x' });
      expect([dup.status, dup.body.message]).to.deep.equal([409, 'variable name build_MODE already exists']);

      expect((await call('POST', '/repos/alice/proj/actions/variables/OTHER', { value: 'o' })).status).to.equal(201);
      const listed = await alice.api.repos.getRepoVariablesList('alice', 'proj');
      expect(listed.data.map((v) => v.name)).to.deep.equal(['BUILD_MODE', 'OTHER']);
      expect(listed.headers.get('x-total-count')).to.equal('2');
      const paged = await call('GET', '/repos/alice/proj/actions/variables?page=2&limit=1');
      expect([paged.body.map((v: { name: string }) => v.name), paged.headers.get('x-total-count')]).to.deep.equal([['OTHER'], '2']);

      // a rename onto a taken name is refused and changes nothing (Gitea answers 500)
      const clash = await call('PUT', '/repos/alice/proj/actions/variables/other', { name: 'build_mode', value: 'v' });
      expect([clash.status, clash.body.message]).to.deep.equal([409, 'variable name build_mode already exists']);
      expect((await variableRows()).map((r) => [r.name, r.data])).to.deep.equal([['BUILD_MODE', 'fast\nsafe'], ['OTHER', 'o']]);

      expect((await call('PUT', '/repos/alice/proj/actions/variables/other', { name: 'renamed', value: 'r' })).status).to.equal(204);
      expect((await call('GET', '/repos/alice/proj/actions/variables/OTHER')).status).to.equal(404);
      expect((await call('GET', '/repos/alice/proj/actions/variables/renamed')).body).to.include({ name: 'RENAMED', data: 'r', description: '' });
      expect((await call('DELETE', '/repos/alice/proj/actions/variables/renamed')).status).to.equal(204);
      const gone = await call('DELETE', '/repos/alice/proj/actions/variables/renamed');
      expect([gone.status, gone.body.message]).to.deep.equal([404, 'variable not found']);
    });

    it('refuses bad names, values and callers with a clear 4xx, and changes nothing', async () => {
      const before = await variableRows();
      const cases: [string, string, unknown, number, string][] = [
        ['POST', 'CI', { value: 'x' }, 400, 'env name cannot be ci'],
        ['POST', 'city', { value: 'x' }, 400, 'env name cannot be ci'],
        ['POST', 'GITHUB_SHA', { value: 'x' }, 400, 'invalid secret name'],
        ['POST', '9LIVES', { value: 'x' }, 400, 'invalid secret name'],
        ['POST', 'FINE', { value: '' }, 422, '[Value]: Required'],
        ['POST', 'FINE', { value: 'x'.repeat(65537) }, 400, 'data too long'],
        ['PUT', 'BUILD_MODE', { value: 'x', name: 'CI_NAME' }, 400, 'env name cannot be ci'],
        ['PUT', 'BUILD_MODE', { value: '' }, 422, '[Value]: Required'],
        ['PUT', 'MISSING', { value: 'x' }, 404, 'variable not found'],
        ['DELETE', 'CI', undefined, 400, 'env name cannot be ci'],
      ];
      for (const [method, name, body, status, message] of cases) {
        const r = await call(method, `/repos/alice/proj/actions/variables/${name}`, body);
        expect([r.status, r.body.message], `${method} ${name}`).to.deep.equal([status, message]);
      }
      expect((await call('POST', '/repos/alice/proj/actions/variables/FINE', { value: 'x' }, bob)).status).to.equal(403);
      expect((await call('GET', '/repos/alice/proj/actions/variables/BUILD_MODE', undefined, bob)).status).to.equal(403);
      expect(await variableRows()).to.deep.equal(before);
      // 65,536 characters is the limit, counted as characters, not bytes
      expect((await call('POST', '/repos/alice/proj/actions/variables/WIDE', { value: 'é'.repeat(65536) })).status).to.equal(201);
    });

    it('serves a user\'s and an organization\'s variables with the owner in owner_id', async () => {
      expect((await alice.api.user.createUserVariable('mine', { value: '1' })).status).to.equal(201);
      expect((await call('POST', '/orgs/guild/actions/variables/ours', { value: '2' })).status).to.equal(201);
      const guild = (await sql(w.server, "SELECT id FROM users WHERE lower_name = 'guild'"))[0].id as number;
      expect((await alice.api.user.getUserVariablesList()).data).to.deep.equal([{ owner_id: alice.id, repo_id: 0, name: 'MINE', data: '1', description: '' }]);
      expect((await call('GET', '/orgs/guild/actions/variables/OURS')).body).to.deep.equal({ owner_id: guild, repo_id: 0, name: 'OURS', data: '2', description: '' });
      expect((await call('GET', '/user/actions/variables/MINE', undefined, bob)).status).to.equal(404);
      expect((await call('GET', '/orgs/guild/actions/variables', undefined, bob)).status).to.equal(403);
    });
  });

  describe('deletion', () => {
    it('removes the secrets and variables of a deleted repository and organization', async () => {
      await call('PUT', '/repos/alice/proj/actions/secrets/S', { data: 's' });
      await call('POST', '/repos/alice/proj/actions/variables/V', { value: 'v' });
      await call('PUT', '/orgs/guild/actions/secrets/S', { data: 's' });
      const guild = (await sql(w.server, "SELECT id FROM users WHERE lower_name = 'guild'"))[0].id as number;
      const left = async (where: string, id: number) => [
        await count(w.server, `SELECT COUNT(*) AS n FROM secret WHERE ${where} = $1`, [id]),
        await count(w.server, `SELECT COUNT(*) AS n FROM action_variable WHERE ${where} = $1`, [id]),
      ];
      expect(await left('repo_id', repoId)).to.deep.equal([1, 3]);
      expect(await left('owner_id', guild)).to.deep.equal([2, 1]);
      expect((await call('DELETE', '/repos/alice/proj')).status).to.equal(204);
      expect(await left('repo_id', repoId)).to.deep.equal([0, 0]);
      expect((await call('DELETE', '/orgs/guild')).status).to.equal(204);
      expect(await left('owner_id', guild)).to.deep.equal([0, 0]);
      // the user's own stay
      expect(await left('owner_id', alice.id)).to.deep.equal([1, 1]);
    });
  });
});
