/**
 * The Actions settings pages (runners, secrets, variables) of a repository, an organization, the
 * user and the site, through their forms against the real server, checked through the API, the
 * database and a conformance runner: the registration token shown and reset (a runner with the old
 * one refused, the new one accepted), the runners a scope can use with their status and owner, only
 * its own editable; secrets never shown, name rules and refusals flashed with nothing changed; and
 * every page and form a 404 for a repository reader, an organization member who is not an owner and
 * a user who is not a site administrator, a visitor sent to sign in.
 */
import { expect } from 'chai';
import { Code } from '@connectrpc/connect';
import { startWorld, type World, type TestUser } from '../helpers/world';
import { apiRepo } from '../helpers/refs';
import { WebClient } from '../helpers/web';
import { ConformanceRunner, codeOf } from '../helpers/actions-runner';
import { count, sql } from '../helpers/db';

describe('actions settings pages', () => {
  let w: World;
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;
  let web: WebClient;
  const call = (method: string, p: string, body?: unknown, u: TestUser = alice) => w.raw(method, p, body, { token: u.token });
  const apiToken = async (scope: string, u: TestUser = alice) => (await call('GET', `${scope}/actions/runners/registration-token`, undefined, u)).body.token as string;
  const pageToken = (html: string) => /class="registration-token" readonly value="([A-Za-z0-9]+)"/.exec(html)?.[1];
  const flashOf = (html: string) => [...html.matchAll(/<p class="flash (\w+)" role="status">([^<]*)<\/p>/g)].map((m) => `${m[1]}: ${m[2].replace(/&#34;|&quot;/g, '"')}`);
  /** POST a form as `c` (alice's client by default) and read the flash of the page it goes back to. */
  const submit = async (path: string, fields: Record<string, string>, c: WebClient = web) => {
    const res = await c.form(path, fields);
    expect(res.status, `${path}: ${res.text.slice(0, 200)}`).to.equal(303);
    const back = await c.get(res.location!);
    return { location: new URL(res.location!, w.server.url).pathname, text: back.text, flash: flashOf(back.text) };
  };
  const secretNames = async (where: string) => (await sql(w.server, `SELECT name FROM secret WHERE ${where} ORDER BY id`)).map((r) => r.name as string);

  before(async () => {
    w = await startWorld();
    [alice, bob, carol] = [await w.user('alice'), await w.user('bob'), await w.user('carol')];
    await apiRepo(w, alice, 'proj', { auto_init: true });
    expect((await call('PUT', '/repos/alice/proj/collaborators/bob', { permission: 'read' })).status).to.equal(204);
    expect((await call('POST', '/orgs', { username: 'guild' })).status).to.equal(201);
    const team = await call('POST', '/orgs/guild/teams', { name: 'devs', permission: 'write', units: ['repo.code'] });
    expect(team.status).to.equal(201);
    expect((await call('PUT', `/teams/${team.body.id}/members/carol`)).status).to.equal(204);
    web = await WebClient.signedIn(w, alice);
    await web.get('user/settings');
  });
  after(async () => { await w?.stop(); });

  it('shows each scope\'s runners page with the registration token the API gives, and the settings navs link there', async () => {
    for (const [page, scope, nav] of [
      ['alice/proj/settings/actions/runners', '/repos/alice/proj', 'alice/proj/settings'],
      ['org/guild/settings/actions/runners', '/orgs/guild', 'org/guild/settings'],
      ['user/settings/actions/runners', '/user', 'user/settings'],
    ]) {
      const res = await web.get(page);
      expect(res.status, page).to.equal(200);
      expect(pageToken(res.text), page).to.equal(await apiToken(scope));
      expect(res.text, page).to.include('No runners yet');
      for (const sub of ['runners', 'secrets', 'variables']) expect(res.text, page).to.include(`href="/${page.replace(/runners$/, sub)}"`);
      expect((await web.get(nav)).text, nav).to.include(`href="/${page}"`);
    }
    const root = await WebClient.signedIn(w, w.admin);
    await root.get('user/settings');
    const site = await root.get('admin/actions/runners');
    expect(site.status).to.equal(200);
    expect(pageToken(site.text)).to.equal((await call('GET', '/admin/runners/registration-token', undefined, w.admin)).body.token);
    expect(site.text).to.not.include('/admin/actions/secrets');
    expect((await root.get('admin/actions/secrets')).status).to.equal(404);
    expect((await root.get('admin')).text).to.include('href="/admin/actions/runners"');
  });

  it('resets the registration token: the page and the API give the new one, a runner with the old one is refused', async () => {
    const old = await apiToken('/repos/alice/proj');
    const done = await submit('alice/proj/settings/actions/runners/reset_registration_token', {});
    expect(done.location).to.equal('/alice/proj/settings/actions/runners');
    expect(done.flash).to.deep.equal(['success: The registration token has been reset; runners must register with the new one.']);
    const fresh = pageToken(done.text)!;
    expect(fresh).to.match(/^[A-Za-z0-9]{40}$/).and.not.equal(old);
    expect(await apiToken('/repos/alice/proj')).to.equal(fresh);
    const { runner } = ConformanceRunner.client(w.server.url);
    expect(await codeOf(runner.register({ name: 'stale', token: old, labels: ['linux'] }))).to.equal(Code.Unauthenticated);
    expect(await count(w.server, "SELECT COUNT(*) AS n FROM action_runner WHERE name = 'stale'")).to.equal(0);
    await ConformanceRunner.register(w.server.url, fresh, { name: 'repo-runner', labels: ['linux', 'docker'] });
    const listed = await web.get('alice/proj/settings/actions/runners');
    expect(listed.text).to.match(/runner-idle">Idle<\/span>[\s\S]*?repo-runner/);
    expect(listed.text).to.include('runner-label">docker<');
  });

  it('lists the owner\'s and the site\'s runners on a repository\'s page, editable only where they belong', async () => {
    const mine = await ConformanceRunner.register(w.server.url, await apiToken('/user'), { name: 'alice-runner', labels: ['linux'] });
    await ConformanceRunner.register(w.server.url, (await call('GET', '/admin/runners/registration-token', undefined, w.admin)).body.token, { name: 'site-runner', labels: ['linux'] });
    const ids = Object.fromEntries((await sql(w.server, 'SELECT id, name FROM action_runner')).map((r) => [r.name, Number(r.id)]));
    expect(mine).to.exist;
    const repoPage = (await web.get('alice/proj/settings/actions/runners')).text;
    const row = (name: string) => new RegExp(`<tr class="runner" data-runner-id="${ids[name]}">([\\s\\S]*?)</tr>`).exec(repoPage)![1];
    expect(row('repo-runner')).to.include('runner-scope">alice/proj<').and.include(`/settings/actions/runners/${ids['repo-runner']}"`);
    expect(row('alice-runner')).to.include('runner-scope">alice<').and.not.include('/runners/');
    expect(row('site-runner')).to.include('runner-scope">Global<').and.not.include('/runners/');
    // another scope's runner has no edit page here, and its deletion is refused with nothing changed
    expect((await web.get(`alice/proj/settings/actions/runners/${ids['alice-runner']}`)).status).to.equal(404);
    const refused = await submit(`alice/proj/settings/actions/runners/${ids['alice-runner']}/delete`, {});
    expect(refused.flash).to.deep.equal(['error: No permission to access this runner']);
    expect(await count(w.server, 'SELECT COUNT(*) AS n FROM action_runner')).to.equal(3);
    // the user's own page edits it; the site's page lists all three and edits any
    const userPage = (await web.get('user/settings/actions/runners')).text;
    expect(userPage).to.include(`/user/settings/actions/runners/${ids['alice-runner']}"`).and.include('site-runner').and.not.include('repo-runner');
    const root = await WebClient.signedIn(w, w.admin);
    const sitePage = (await root.get('admin/actions/runners')).text;
    for (const n of ['repo-runner', 'alice-runner', 'site-runner']) expect(sitePage).to.include(`/admin/actions/runners/${ids[n]}"`);
  });

  it('edits a runner\'s description and deletes a runner, which the API no longer knows', async () => {
    const id = Number((await sql(w.server, "SELECT id FROM action_runner WHERE name = 'repo-runner'"))[0].id);
    const edit = await web.get(`alice/proj/settings/actions/runners/${id}`);
    expect(edit.status).to.equal(200);
    expect(edit.text).to.include('repo-runner').and.include('Update runner');
    const saved = await submit(`alice/proj/settings/actions/runners/${id}`, { description: 'the big box' });
    expect(saved.flash).to.deep.equal(['success: The runner has been updated.']);
    expect(saved.text).to.include('>the big box</textarea>');
    expect((await sql(w.server, 'SELECT description FROM action_runner WHERE id = $1', [id]))[0].description).to.equal('the big box');
    const gone = await submit(`alice/proj/settings/actions/runners/${id}/delete`, {});
    expect([gone.location, gone.flash]).to.deep.equal(['/alice/proj/settings/actions/runners', ['success: The runner has been deleted.']]);
    expect((await call('GET', `/repos/alice/proj/actions/runners/${id}`)).status).to.equal(404);
  });

  it('adds, lists without values and deletes secrets; bad names are flashed with nothing stored', async () => {
    const added = await submit('alice/proj/settings/actions/secrets', { name: 'deploy_key', data: 'very-secret-value', description: 'for prod' });
    expect(added.flash).to.deep.equal(['success: The secret "DEPLOY_KEY" has been saved.']);
    expect(added.text).to.include('secret-name">DEPLOY_KEY<').and.include('for prod').and.not.include('very-secret-value');
    expect((await call('GET', '/repos/alice/proj/actions/secrets')).body.map((s: { name: string }) => s.name)).to.deep.equal(['DEPLOY_KEY']);
    for (const [name, data, message] of [['GITEA_X', 'v', 'invalid secret name'], ['1abc', 'v', 'invalid secret name'], ['a-b', 'v', 'invalid secret name'], ['OK', '', '[Data]: Required']]) {
      const r = await submit('alice/proj/settings/actions/secrets', { name, data });
      expect(r.flash, name).to.deep.equal([`error: ${message}`]);
    }
    expect(await secretNames('repo_id > 0')).to.deep.equal(['DEPLOY_KEY']);
    const removed = await submit('alice/proj/settings/actions/secrets/delete', { name: 'DEPLOY_KEY' });
    expect(removed.flash).to.deep.equal(['success: The secret has been deleted.']);
    expect(removed.text).to.include('No secrets yet');
    // an organization's and the user's own
    expect((await submit('org/guild/settings/actions/secrets', { name: 'ORG_TOKEN', data: 'o' })).flash[0]).to.match(/^success/);
    expect((await submit('user/settings/actions/secrets', { name: 'MY_TOKEN', data: 'm' })).flash[0]).to.match(/^success/);
    expect((await call('GET', '/orgs/guild/actions/secrets')).body.map((s: { name: string }) => s.name)).to.deep.equal(['ORG_TOKEN']);
    expect(await secretNames(`owner_id = ${alice.id}`)).to.deep.equal(['MY_TOKEN']);
  });

  it('adds, edits and deletes variables; bad, CI and taken names are flashed with nothing changed', async () => {
    const added = await submit('alice/proj/settings/actions/variables/new', { name: 'build_mode', data: 'fast', description: 'how' });
    expect(added.flash).to.deep.equal(['success: The variable "BUILD_MODE" has been added.']);
    expect(added.text).to.include('variable-value">fast<');
    for (const [name, message] of [['CI_THING', 'env name cannot be ci'], ['GITHUB_X', 'invalid secret name'], ['build_MODE', 'variable name build_MODE already exists']]) {
      const r = await submit('alice/proj/settings/actions/variables/new', { name, data: 'x' });
      expect(r.flash, name).to.deep.equal([`error: ${message}`]);
    }
    const edited = await submit('alice/proj/settings/actions/variables/BUILD_MODE/edit', { name: 'new_mode', data: 'slow', description: '' });
    expect(edited.flash).to.deep.equal(['success: The variable has been saved.']);
    const got = await call('GET', '/repos/alice/proj/actions/variables/NEW_MODE');
    expect([got.body.name, got.body.data]).to.deep.equal(['NEW_MODE', 'slow']);
    const bad = await submit('alice/proj/settings/actions/variables/NEW_MODE/edit', { name: 'ci_x', data: 'z' });
    expect(bad.flash).to.deep.equal(['error: env name cannot be ci']);
    expect((await call('GET', '/repos/alice/proj/actions/variables/NEW_MODE')).body.data).to.equal('slow');
    expect((await submit('alice/proj/settings/actions/variables/NEW_MODE/delete', {})).flash).to.deep.equal(['success: The variable has been deleted.']);
    expect((await call('GET', '/repos/alice/proj/actions/variables/NEW_MODE')).status).to.equal(404);
    expect((await submit('org/guild/settings/actions/variables/new', { name: 'REGION', data: 'eu' })).flash[0]).to.match(/^success/);
    expect((await call('GET', '/orgs/guild/actions/variables/REGION')).body.data).to.equal('eu');
  });

  it('is a 404 for a repository reader, an organization member who is not an owner and a non-administrator, whose forms change nothing; a visitor is sent to sign in', async () => {
    await call('PUT', '/repos/alice/proj/actions/secrets/KEEP', { data: 'k' });
    await call('POST', '/repos/alice/proj/actions/variables/KEEP', { value: 'k' });
    await call('PUT', '/orgs/guild/actions/secrets/KEEP', { data: 'k' });
    await call('POST', '/orgs/guild/actions/variables/KEEP', { value: 'k' });
    const site = await ConformanceRunner.register(w.server.url, (await call('GET', '/admin/runners/registration-token', undefined, w.admin)).body.token, { name: 'kept', labels: ['linux'] });
    expect(site).to.exist;
    const kept = Number((await sql(w.server, "SELECT id FROM action_runner WHERE name = 'kept'"))[0].id);
    const tokens = { repo: await apiToken('/repos/alice/proj'), org: await apiToken('/orgs/guild'), site: (await call('GET', '/admin/runners/registration-token', undefined, w.admin)).body.token };
    const before = {
      secrets: await count(w.server, 'SELECT COUNT(*) AS n FROM secret'),
      vars: (await sql(w.server, 'SELECT name, data FROM action_variable ORDER BY id')).map((r) => `${r.name}=${r.data}`),
      runners: await count(w.server, 'SELECT COUNT(*) AS n FROM action_runner'),
    };
    const areas: [string, TestUser][] = [['alice/proj/settings/actions', bob], ['org/guild/settings/actions', carol], ['admin/actions', alice]];
    const anon = new WebClient(w);
    for (const [base, who] of areas) {
      const c = await WebClient.signedIn(w, who);
      await c.get('user/settings');
      const pages = [`${base}/runners`, `${base}/runners/${kept}`, ...(base.startsWith('admin') ? [] : [`${base}/secrets`, `${base}/variables`])];
      for (const p of pages) {
        expect((await c.get(p)).status, `${who.name} ${p}`).to.equal(404);
        const a = await anon.get(p);
        expect([a.status, a.location], p).to.deep.equal([303, `${w.server.rootUrl}user/login?redirect_to=${encodeURIComponent(`/${p}`)}`]);
      }
      await c.get('user/settings');
      const forms: [string, Record<string, string>][] = [
        [`${base}/runners/reset_registration_token`, {}], [`${base}/runners/${kept}`, { description: 'owned' }], [`${base}/runners/${kept}/delete`, {}],
        [`${base}/secrets`, { name: 'KEEP', data: 'stolen' }], [`${base}/secrets/delete`, { name: 'KEEP' }],
        [`${base}/variables/new`, { name: 'NEWVAR', data: 'x' }], [`${base}/variables/KEEP/edit`, { name: 'KEEP', data: 'changed' }], [`${base}/variables/KEEP/delete`, {}],
      ];
      for (const [p, fields] of forms) {
        expect((await c.form(p, fields)).status, `${who.name} ${p}`).to.equal(404);
        expect((await anon.form(p, fields)).status, p).to.equal(403);
      }
    }
    expect(await apiToken('/repos/alice/proj')).to.equal(tokens.repo);
    expect(await apiToken('/orgs/guild')).to.equal(tokens.org);
    expect((await call('GET', '/admin/runners/registration-token', undefined, w.admin)).body.token).to.equal(tokens.site);
    expect(await count(w.server, 'SELECT COUNT(*) AS n FROM secret')).to.equal(before.secrets);
    expect((await sql(w.server, 'SELECT name, data FROM action_variable ORDER BY id')).map((r) => `${r.name}=${r.data}`)).to.deep.equal(before.vars);
    expect(await count(w.server, 'SELECT COUNT(*) AS n FROM action_runner')).to.equal(before.runners);
    expect((await sql(w.server, 'SELECT description FROM action_runner WHERE id = $1', [kept]))[0].description).to.equal('');
    // the repository's owner team's member is refused no more than the API refuses: an admin collaborator is not an owner
    expect((await call('PUT', '/repos/alice/proj/collaborators/bob', { permission: 'admin' })).status).to.equal(204);
    const admin = await WebClient.signedIn(w, bob);
    expect((await admin.get('alice/proj/settings/actions/secrets')).status).to.equal(404);
    const options = await admin.get('alice/proj/settings');
    expect(options.status).to.equal(200);
    expect(options.text, 'no Actions item in the settings nav of a non-owner').not.to.include('/settings/actions/runners');
    expect((await call('PUT', '/repos/alice/proj/actions/secrets/X', { data: 'x' }, bob)).status).to.equal(403);
  });
});
