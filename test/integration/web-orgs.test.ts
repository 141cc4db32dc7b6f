/**
 * Organization pages and the creation forms against the real server: a repository made with a
 * .gitignore, a license, a README and a label set (the API shows them), refused names and owners
 * (the form comes back with the message, nothing is made); organizations made and refused; the
 * organization's profile, members (private members hidden from outsiders) and teams (owners create
 * teams and add or remove members, others cannot); explore users and organizations with search and
 * visibility; forms without their CSRF token; user text escaped.
 */
import { expect } from 'chai';
import { startWorld, type World, type TestUser } from '../helpers/world';
import { WebClient } from '../helpers/web';

describe('organization pages and creation forms', () => {
  let w: World;
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;
  let dave: TestUser;
  let a: WebClient;
  let b: WebClient;
  const anon = () => new WebClient(w);
  const api = (method: string, path: string, u: TestUser, body?: unknown) => w.raw(method, path, body, { basic: [u.name, u.password] });
  const file = async (repo: string, path: string) => {
    const res = await api('GET', `/repos/${repo}/contents/${path}`, alice);
    expect(res.status, `${repo}/${path}`).to.equal(200);
    return Buffer.from(res.body.content as string, 'base64').toString('utf8');
  };
  const repoNames = async (owner: string) => ((await api('GET', `/users/${owner}/repos`, w.admin)).body as { name: string }[]).map((r) => r.name).sort();
  const teamId = async (org: string, name: string) => ((await api('GET', `/orgs/${org}/teams`, alice)).body as { id: number; name: string }[]).find((t) => t.name === name)?.id;
  const teamMembers = async (id: number) => ((await api('GET', `/teams/${id}/members`, alice)).body as { login: string }[]).map((u) => u.login).sort();

  before(async () => {
    w = await startWorld({ env: { FORGE__WEBHOOK__ALLOWED_HOST_LIST: 'loopback' } });
    [alice, bob, carol, dave] = [await w.user('alice'), await w.user('bob'), await w.user('carol'), await w.user('dave')];
    expect((await w.raw('PATCH', '/admin/users/dave', { login_name: 'dave', source_id: 0, allow_create_organization: false }, { token: w.admin.token })).status).to.equal(200);
    expect((await api('POST', '/orgs', carol, { username: 'carolorg' })).status).to.equal(201);
    expect((await api('POST', '/orgs', carol, { username: 'secretorg', visibility: 'private' })).status).to.equal(201);
    expect((await api('POST', '/orgs', carol, { username: 'limitorg', visibility: 'limited' })).status).to.equal(201);
    a = await WebClient.signedIn(w, alice);
    b = await WebClient.signedIn(w, bob);
  });
  after(async () => { await w?.stop(); });

  it('creates a repository with .gitignore templates, a license, a README and a label set', async () => {
    const form = await a.get('repo/create');
    expect(form.status).to.equal(200);
    expect(form.text).to.include('name="gitignore-Go"').and.include('<option value="MIT">').and.include('<option value="Advanced">');
    const made = await a.form('repo/create', {
      owner: 'alice', repo_name: 'made', description: 'Made on a page', auto_init: 'on', 'gitignore-Go': 'on', 'gitignore-Node': 'on',
      license: 'MIT', readme: 'Default', issue_labels: 'Default', default_branch: 'trunk', private: 'on',
    });
    expect(made.status, made.text).to.equal(303);
    expect(made.location).to.equal(`${w.server.url}alice/made`);
    const repo = await api('GET', '/repos/alice/made', alice);
    expect(repo.status).to.equal(200);
    expect(repo.body).to.include({ description: 'Made on a page', default_branch: 'trunk', private: true, empty: false });
    const ignore = await file('alice/made', '.gitignore');
    expect(ignore).to.include('# ---> Go').and.include('# ---> Node');
    expect(await file('alice/made', 'LICENSE')).to.include('MIT License').and.include('alice');
    expect(await file('alice/made', 'README.md')).to.include('# made');
    const labels = (await api('GET', '/repos/alice/made/labels', alice)).body as { name: string }[];
    expect(labels.map((l) => l.name)).to.include.members(['bug', 'enhancement']);
  });

  it('refuses a taken, a bad or a reserved name and an organization the user may not create in, showing the form again', async () => {
    await a.get('repo/create');
    for (const [fields, status, message] of [
      [{ owner: 'alice', repo_name: 'made', description: 'second <try>' }, 409, 'The repository with the same name already exists.'],
      [{ owner: 'alice', repo_name: 'bad name', description: 'second <try>' }, 422, 'Name'],
      [{ owner: 'alice', repo_name: 'thing.git', description: 'second <try>' }, 422, 'name pattern is not allowed'],
      [{ owner: 'carolorg', repo_name: 'intruder', description: 'second <try>' }, 403, 'not allowed to create repository in organization'],
      [{ owner: 'secretorg', repo_name: 'intruder', description: 'second <try>' }, 404, 'org does not exist'],
      [{ owner: 'alice', repo_name: 'nolicense', auto_init: 'on', license: 'No-Such-License' }, 422, 'license template does not exist'],
    ] as const) {
      const res = await a.form('repo/create', fields);
      expect(res.status, message).to.equal(status);
      expect(res.text, message).to.include(message).and.include('<h1>New repository</h1>');
      if ('description' in fields) expect(res.text).to.include('second &lt;try&gt;</textarea>');
      expect(res.text).to.include(`value="${fields.repo_name}"`);
    }
    expect(await repoNames('alice')).to.deep.equal(['made']);
    expect(await repoNames('carolorg')).to.deep.equal([]);
  });

  it('creates an organization, refuses a taken name and a user not allowed to create one', async () => {
    expect((await a.get('org/create')).status).to.equal(200);
    const made = await a.form('org/create', { org_name: 'acme', full_name: '<img src=x onerror=alert(1)>Acme', description: '<script>alert(2)</script>', visibility: 'public' });
    expect(made.status, made.text).to.equal(303);
    expect(made.location).to.equal(`${w.server.url}acme`);
    const org = await api('GET', '/orgs/acme', alice);
    expect(org.body).to.include({ full_name: '<img src=x onerror=alert(1)>Acme', visibility: 'public' });
    expect((await api('GET', '/users/alice/orgs/acme/permissions', alice)).body).to.include({ is_owner: true });

    const taken = await a.form('org/create', { org_name: 'carolorg', full_name: 'Mine now', visibility: 'private' });
    expect(taken.status).to.equal(422);
    expect(taken.text).to.include('user already exists').and.include('value="Mine now"');
    expect((await api('GET', '/orgs/carolorg', carol)).body).to.include({ full_name: '', visibility: 'public' });

    const d = await WebClient.signedIn(w, dave);
    await d.get('org/create');
    const refused = await d.form('org/create', { org_name: 'daveorg', visibility: 'public' });
    expect(refused.status).to.equal(403);
    expect(refused.text).to.include('not allowed to create org');
    expect((await api('GET', '/orgs/daveorg', dave)).status).to.equal(404);
  });

  it('creates a repository in an organization the user owns; the profile lists it, links members (and teams for members) and escapes text', async () => {
    const form = await a.get('repo/create?org=acme');
    expect(form.text).to.include('<option value="acme" selected>');
    expect(form.text).not.to.include('value="carolorg"');
    const made = await a.form('repo/create', { owner: 'acme', repo_name: 'tool' });
    expect(made.status, made.text).to.equal(303);
    expect(made.location).to.equal(`${w.server.url}acme/tool`);
    expect((await api('GET', '/repos/acme/tool', alice)).body).to.include({ empty: true });

    const outside = await anon().get('acme');
    expect(outside.status).to.equal(200);
    expect(outside.text).to.include('>acme/tool</a>').and.include('href="/org/acme/members"').and.not.include('href="/org/acme/teams"');
    expect(outside.text).to.include('&lt;img src=x onerror=alert(1)&gt;Acme').and.include('&lt;script&gt;alert(2)&lt;/script&gt;');
    expect(outside.text).not.to.include('<img src=x').and.not.include('<script>alert');
    expect((await a.get('acme')).text).to.include('href="/org/acme/teams"');
  });

  it('lets an owner create a team and add a member; the team page shows members and repositories', async () => {
    const list = await a.get('org/acme/teams');
    expect(list.status).to.equal(200);
    expect(list.text).to.include('>Owners</a>').and.include('/org/acme/teams/new');
    expect((await a.get('org/acme/teams/new')).status).to.equal(200);

    const noUnits = await a.form('org/acme/teams/new', { team_name: 'empty', permission: 'read', repo_access: 'specific' });
    expect(noUnits.status).to.equal(422);
    expect(noUnits.text).to.include('units permission should not be empty').and.include('value="empty"');
    const made = await a.form('org/acme/teams/new', {
      team_name: 'devs', description: 'The <b>developers</b>', permission: 'write', 'unit-repo.code': 'on', 'unit-repo.issues': 'on', repo_access: 'all',
    });
    expect(made.status, made.text).to.equal(303);
    expect(made.location).to.equal(`${w.server.url}org/acme/teams/devs`);
    const again = await a.form('org/acme/teams/new', { team_name: 'devs', permission: 'admin' });
    expect(again.status).to.equal(422);
    expect(again.text).to.include('team already exists');

    const teams = (await api('GET', '/orgs/acme/teams', alice)).body as { name: string; permission: string; units_map: Record<string, string>; includes_all_repositories: boolean }[];
    const devs = teams.find((t) => t.name === 'devs')!;
    expect(devs).to.include({ permission: 'write', includes_all_repositories: true });
    expect(devs.units_map).to.deep.equal({ 'repo.code': 'write', 'repo.issues': 'write' });
    expect(teams.map((t) => t.name).sort()).to.deep.equal(['Owners', 'devs']);

    await a.get('org/acme/teams/devs');
    expect((await a.form('org/acme/teams/devs/members/add', { uname: 'bob' })).status).to.equal(303);
    expect(await teamMembers((await teamId('acme', 'devs'))!)).to.deep.equal(['bob']);
    const team = await a.get('org/acme/teams/devs');
    expect(team.text).to.include('bob has been added to the team.').and.include('>bob</a>').and.include('>acme/tool</a>');
    expect(team.text).to.include('The &lt;b&gt;developers&lt;/b&gt;');
  });

  it('shows private members to members only', async () => {
    expect((await api('PUT', '/orgs/acme/public_members/alice', alice)).status).to.equal(204);
    const members = (text: string) => [...text.matchAll(/class="member" href="[^"]*">([^<]+)</g)].map((m) => m[1]).sort();
    expect(members((await anon().get('org/acme/members')).text)).to.deep.equal(['alice']);
    const c = await WebClient.signedIn(w, carol);
    expect(members((await c.get('org/acme/members')).text)).to.deep.equal(['alice']);
    const inside = await b.get('org/acme/members');
    expect(members(inside.text)).to.deep.equal(['alice', 'bob']);
    expect(inside.text).to.include('href="/org/acme/teams"').and.not.include('/remove');
    expect((await a.get('org/acme/members')).text).to.include('/org/acme/members/bob/remove');
    expect((await anon().get('org/secretorg/members')).status).to.equal(404);
  });

  it('refuses team and member changes from a member who is not an owner', async () => {
    const id = (await teamId('acme', 'devs'))!;
    expect((await b.get('org/acme/teams')).status).to.equal(200);
    expect((await b.get('org/acme/teams/new')).status).to.equal(403);
    const page = await b.get('org/acme/teams/devs');
    expect(page.status).to.equal(200);
    expect(page.text).not.to.include('members/add');
    expect((await b.form('org/acme/teams/new', { team_name: 'mine', permission: 'admin' })).status).to.equal(403);
    expect((await b.form('org/acme/teams/devs/members/add', { uname: 'carol' })).status).to.equal(303);
    expect((await b.get('org/acme/teams/devs')).text).to.include('flash error');
    expect((await b.form('org/acme/teams/devs/members/bob/remove', {})).status).to.equal(303);
    expect((await b.form('org/acme/members/alice/remove', {})).status).to.equal(303);
    expect((await b.get('org/acme/members')).text).to.include('Must be an organization owner');
    expect(await teamMembers(id)).to.deep.equal(['bob']);
    expect((await api('GET', '/orgs/acme/members/alice', alice)).status).to.equal(204);
    expect(((await api('GET', '/orgs/acme/teams', alice)).body as { name: string }[]).map((t) => t.name).sort()).to.deep.equal(['Owners', 'devs']);
    expect((await new WebClient(w).get('org/acme/teams')).status).to.equal(303);
    const c = await WebClient.signedIn(w, carol);
    expect((await c.get('org/acme/teams')).status).to.equal(403);
    expect((await c.get('org/acme/teams/devs')).status).to.equal(404);
  });

  it('lets an owner remove a member from a team and from the organization', async () => {
    const id = (await teamId('acme', 'devs'))!;
    await a.get('org/acme/teams/devs');
    expect((await a.form('org/acme/teams/devs/members/bob/remove', {})).status).to.equal(303);
    expect(await teamMembers(id)).to.deep.equal([]);
    expect((await api('GET', '/orgs/acme/members/bob', alice)).status).to.equal(404);

    await a.form('org/acme/teams/devs/members/add', { uname: 'bob' });
    expect((await api('GET', '/orgs/acme/members/bob', alice)).status).to.equal(204);
    await a.get('org/acme/members');
    expect((await a.form('org/acme/members/bob/remove', {})).status).to.equal(303);
    expect((await a.get('org/acme/members')).text).to.include('bob has been removed from the organization.');
    expect((await api('GET', '/orgs/acme/members/bob', alice)).status).to.equal(404);
    expect(await teamMembers(id)).to.deep.equal([]);
    // why: the last owner stays.
    await a.get('org/acme/members');
    await a.form('org/acme/members/alice/remove', {});
    expect((await a.get('org/acme/members')).text).to.include('last member of owner team');
    expect((await api('GET', '/orgs/acme/members/alice', alice)).status).to.equal(204);
  });

  it('explores users and organizations with search, hiding what the caller may not see', async () => {
    const names = (text: string) => [...text.matchAll(/class="owner-name" href="[^"]*">([^<]+)</g)].map((m) => m[1]).sort();
    const orgs = await anon().get('explore/organizations');
    expect(orgs.status).to.equal(200);
    expect(orgs.text).to.include('href="/explore/users"').and.include('href="/explore/repos"');
    expect(names(orgs.text)).to.deep.equal(['acme', 'carolorg']);
    expect(names((await a.get('explore/organizations')).text)).to.deep.equal(['acme', 'carolorg', 'limitorg']);
    // why: as Gitea's web explore, a member also finds the private organization; the API's /orgs does not list it.
    expect(names((await (await WebClient.signedIn(w, carol)).get('explore/organizations')).text)).to.deep.equal(['acme', 'carolorg', 'limitorg', 'secretorg']);
    expect(names((await anon().get('explore/organizations?q=ACM')).text)).to.deep.equal(['acme']);
    expect(names((await anon().get('explore/organizations?q=secret')).text)).to.deep.equal([]);
    expect(names((await anon().get('explore/users?q=bo')).text)).to.deep.equal(['bob']);
    expect(names((await anon().get('explore/users')).text)).to.include.members(['alice', 'bob', 'carol', 'dave']).and.not.include('acme');
    expect((await anon().get('explore/repos')).text).to.include('href="/explore/organizations"');
    expect((await anon().get('secretorg')).status).to.equal(404);
  });

  it('refuses forms without their CSRF token and changes nothing', async () => {
    await a.get('org/create');
    expect((await a.form('org/create', { org_name: 'forged' }, { csrf: null })).status).to.equal(403);
    expect((await a.form('repo/create', { owner: 'alice', repo_name: 'forged' }, { csrf: null })).status).to.equal(403);
    expect((await a.form('org/acme/teams/new', { team_name: 'forged', permission: 'admin' }, { csrf: 'x'.repeat(40) })).status).to.equal(403);
    expect((await a.form('org/acme/teams/devs/members/add', { uname: 'carol' }, { csrf: null })).status).to.equal(403);
    expect((await api('GET', '/orgs/forged', alice)).status).to.equal(404);
    expect((await api('GET', '/repos/alice/forged', alice)).status).to.equal(404);
    expect(((await api('GET', '/orgs/acme/teams', alice)).body as { name: string }[]).map((t) => t.name)).not.to.include('forged');
    expect(await teamMembers((await teamId('acme', 'devs'))!)).to.deep.equal([]);
  });

  it("edits an organization's settings and webhooks (owners only), and deletes it only when it owns no repository", async () => {
    const c = await WebClient.signedIn(w, carol);
    expect((await c.get('carolorg')).text).to.include('href="/org/carolorg/settings"');
    expect((await a.get('carolorg')).text).not.to.include('/org/carolorg/settings');
    expect((await a.get('org/carolorg/settings')).status).to.equal(404);
    expect((await a.get('org/carolorg/settings/hooks')).status).to.equal(404);
    await a.get('carolorg');
    expect((await a.form('org/carolorg/settings', { full_name: 'taken over' })).status).to.equal(404);
    expect((await a.form('org/carolorg/settings/delete', { confirm: 'carolorg' })).status).to.equal(404);

    const page = await c.get('org/carolorg/settings');
    expect(page.status).to.equal(200);
    await c.form('org/carolorg/settings', { full_name: 'Carol <Co>', description: 'We make things', website: 'https://carol.example', location: 'Here', visibility: 'limited' });
    const org = (await api('GET', '/orgs/carolorg', carol)).body;
    expect(org).to.include({ full_name: 'Carol <Co>', description: 'We make things', website: 'https://carol.example', visibility: 'limited' });
    expect((await c.get('org/carolorg/settings')).text).to.include('value="Carol &lt;Co&gt;"');
    await c.form('org/carolorg/settings', { full_name: 'x', website: 'javascript:alert(1)', visibility: 'limited' });
    expect((await c.get('org/carolorg/settings')).text).to.include('[Website]: Url');
    expect((await api('GET', '/orgs/carolorg', carol)).body.full_name).to.equal('Carol <Co>');

    await c.get('org/carolorg/settings/hooks/new');
    await c.form('org/carolorg/settings/hooks/new', { url: 'http://127.0.0.1:9/org', content_type: 'json', events: 'choose', 'event-repository': 'on', active: 'on' });
    const [hook] = (await api('GET', '/orgs/carolorg/hooks', carol)).body;
    expect(hook.config.url).to.equal('http://127.0.0.1:9/org');
    const hookPage = await c.get(`org/carolorg/settings/hooks/${hook.id}`);
    expect(hookPage.text).to.include('No deliveries yet.').and.not.include('/test"');
    await c.form(`org/carolorg/settings/hooks/${hook.id}/delete`, {});
    expect((await api('GET', '/orgs/carolorg/hooks', carol)).body).to.have.length(0);

    expect((await api('POST', '/orgs/carolorg/repos', carol, { name: 'keep' })).status).to.equal(201);
    await c.get('org/carolorg/settings');
    await c.form('org/carolorg/settings/delete', { confirm: 'carolorg' });
    expect((await c.get('org/carolorg/settings')).text).to.include('still has ownership of repositories');
    await c.form('org/carolorg/settings/delete', { confirm: 'wrong' });
    expect((await api('GET', '/orgs/carolorg', carol)).status).to.equal(200);
    expect((await api('DELETE', '/repos/carolorg/keep', carol)).status).to.equal(204);
    expect((await c.form('org/carolorg/settings/delete', { confirm: 'carolorg' }, { csrf: null })).status).to.equal(403);
    expect((await c.form('org/carolorg/settings/delete', { confirm: 'carolorg' })).location).to.equal('/');
    expect((await api('GET', '/orgs/carolorg', carol)).status).to.equal(404);
  });
});
