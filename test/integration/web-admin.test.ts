/**
 * Site administration pages against the real server through their forms, checked through the API:
 * hidden (404) from users who are not site administrators and sending visitors to sign in, whose
 * forms then change nothing; user accounts created (who can sign in), edited, refused with a flash
 * on bad input and deleted, refused deletions leaving the user in place; organizations and
 * repositories listed with search, a repository deleted; system webhooks added and deleted; forms
 * without their CSRF token refused; a user's full name escaped.
 */
import { expect } from 'chai';
import { startWorld, type World, type TestUser } from '../helpers/world';
import { apiRepo } from '../helpers/refs';
import { WebClient } from '../helpers/web';

describe('site administration pages', () => {
  let w: World;
  let alice: TestUser;
  let bob: TestUser;
  let admin: WebClient;
  const api = (method: string, path: string, body?: unknown) => w.raw(method, path, body, { token: w.admin.token });
  const total = async (path: string) => Number((await api('GET', path)).headers.get('x-total-count'));
  const systemHooks = async () => (await api('GET', '/admin/hooks?type=system')).body as { id: number; config: Record<string, string>; events: string[]; active: boolean }[];
  /** POST a form as the admin and read the flash on the page it returns to. */
  const submit = async (path: string, fields: Record<string, string>) => {
    const res = await admin.form(path, fields);
    expect(res.status, res.text).to.equal(303);
    const back = await admin.get(res.location!);
    return { location: new URL(res.location!).pathname, text: back.text };
  };

  before(async () => {
    w = await startWorld({ env: { FORGE__WEBHOOK__ALLOWED_HOST_LIST: 'loopback' } });
    [alice, bob] = [await w.user('alice'), await w.user('bob')];
    await apiRepo(w, alice, 'proj', { auto_init: true, private: true });
    await apiRepo(w, alice, 'tools', { auto_init: false });
    admin = new WebClient(w);
    expect((await admin.signIn('root', w.admin.password)).status).to.equal(303);
  });
  after(async () => { await w?.stop(); });

  it('is a 404 for users who are not site administrators, sends visitors to sign in, and their forms change nothing', async () => {
    const pages = ['admin', 'admin/users', 'admin/users/new', 'admin/users/alice', 'admin/orgs', 'admin/repos', 'admin/hooks', 'admin/hooks/new'];
    const anon = new WebClient(w);
    for (const p of pages) {
      const res = await anon.get(p);
      expect(res.status, p).to.equal(303);
      expect(res.location, p).to.include(`user/login?redirect_to=${encodeURIComponent(`/${p}`)}`);
    }
    const plain = await WebClient.signedIn(w, alice);
    for (const p of pages) expect((await plain.get(p)).status, p).to.equal(404);
    await plain.get('user/settings');
    const hooksBefore = (await systemHooks()).length;
    const forms: [string, Record<string, string>][] = [
      ['admin/users/new', { user_name: 'mallory', email: 'mallory@example.com', password: 'mallory-password-1' }],
      ['admin/users/bob', { full_name: 'owned', email: 'bob@example.com', admin: 'on', active: 'on' }],
      ['admin/users/bob/delete', { purge: 'on' }],
      ['admin/repos/alice/tools/delete', {}],
      ['admin/hooks/new', { url: 'http://127.0.0.1:9/x', content_type: 'json', events: 'all', active: 'on' }],
    ];
    for (const [p, fields] of forms) {
      expect((await plain.form(p, fields)).status, p).to.equal(404);
      expect((await anon.form(p, fields)).status, p).to.equal(403);
    }
    expect((await api('GET', '/users/mallory')).status).to.equal(404);
    const b = (await api('GET', '/users/bob')).body;
    expect([b.full_name, b.is_admin]).to.deep.equal(['', false]);
    expect((await api('GET', '/repos/alice/tools')).status).to.equal(200);
    expect((await systemHooks()).length).to.equal(hooksBefore);
  });

  it('shows a dashboard with the counts of users, organizations and repositories', async () => {
    const res = await admin.get('admin');
    expect(res.status).to.equal(200);
    const stat = (name: string) => Number(new RegExp(`class="stat-${name}">(\\d+)<`).exec(res.text)![1]);
    expect(stat('users')).to.equal(await total('/admin/users'));
    expect(stat('orgs')).to.equal(await total('/admin/orgs'));
    expect(stat('repos')).to.equal(2);
    for (const link of ['admin/users', 'admin/orgs', 'admin/repos', 'admin/hooks']) expect(res.text).to.include(`href="/${link}"`);
  });

  it('creates a user account who can then sign in, with must-change-password when asked', async () => {
    await admin.get('admin/users/new');
    const made = await submit('admin/users/new', { user_name: 'carol', email: 'carol@example.com', password: 'carol-password-1' });
    expect(made.location).to.equal('/admin/users/carol');
    expect(made.text).to.include('The user account &quot;carol&quot; has been created.');
    expect((await api('GET', '/users/carol')).body.email).to.equal('carol@example.com');
    expect((await new WebClient(w).signIn('carol', 'carol-password-1')).status).to.equal(303);
    expect((await w.raw('GET', '/user', undefined, { basic: ['carol', 'carol-password-1'] })).status).to.equal(200);

    await submit('admin/users/new', { user_name: 'dave', email: 'dave@example.com', password: 'dave-password-1', must_change_password: 'on' });
    const dave = await w.raw('GET', '/user', undefined, { basic: ['dave', 'dave-password-1'] });
    expect(dave.status).to.equal(403);
    expect(dave.body.message).to.include('You must change your password');
  });

  it('refuses a used name, a bad email or a used email with a flash, and creates nobody', async () => {
    const before = await total('/admin/users');
    for (const [fields, message] of [
      [{ user_name: 'alice', email: 'alice2@example.com', password: 'some-password-1' }, 'user already exists [name: alice]'],
      [{ user_name: 'erin', email: 'not-an-email', password: 'some-password-1' }, 'e-mail invalid [email: not-an-email]'],
      [{ user_name: 'erin', email: 'bob@example.com', password: 'some-password-1' }, 'e-mail already in use [email: bob@example.com]'],
      [{ user_name: 'ad min', email: 'erin@example.com', password: 'some-password-1' }, '[UserName]'],
    ] as const) {
      const res = await submit('admin/users/new', fields);
      expect(res.location).to.equal('/admin/users/new');
      expect(res.text, message).to.include('class="flash error"').and.include(message);
    }
    expect(await total('/admin/users')).to.equal(before);
    expect((await api('GET', '/users/erin')).status).to.equal(404);
  });

  it('lists and searches user accounts', async () => {
    const all = await admin.get('admin/users');
    expect(all.status).to.equal(200);
    for (const name of ['root', 'alice', 'bob', 'carol']) expect(all.text).to.include(`>${name}</a>`);
    const found = await admin.get('admin/users?q=caro');
    expect(found.text).to.include('>carol</a>').and.not.include('>alice</a>').and.not.include('>bob</a>');
    const byEmail = await admin.get('admin/users?q=bob%40example');
    expect(byEmail.text).to.include('>bob</a>').and.not.include('>carol</a>');
    expect((await admin.get('admin/users?q=caro&page=2')).text).to.include('No user accounts.').and.not.include('>carol</a>');
  });

  it('edits a user account; a bad email changes nothing; administrators cannot prohibit their own sign-in', async () => {
    const page = await admin.get('admin/users/carol');
    expect(page.status).to.equal(200);
    expect(page.text).to.include('value="carol@example.com"');
    const edited = await submit('admin/users/carol', { full_name: 'Carol Danvers', email: 'carol2@example.com', admin: 'on', active: 'on', restricted: 'on' });
    expect(edited.location).to.equal('/admin/users/carol');
    expect(edited.text).to.include('The user account has been updated.');
    let c = (await api('GET', '/users/carol')).body;
    expect([c.full_name, c.email, c.is_admin, c.restricted, c.active, c.prohibit_login]).to.deep.equal(['Carol Danvers', 'carol2@example.com', true, true, true, false]);

    await submit('admin/users/carol', { full_name: 'Carol Danvers', email: 'carol2@example.com', active: 'on', prohibit_login: 'on' });
    c = (await api('GET', '/users/carol')).body;
    expect([c.is_admin, c.restricted, c.prohibit_login]).to.deep.equal([false, false, true]);
    expect((await new WebClient(w).signIn('carol', 'carol-password-1')).status).to.equal(403);

    const bad = await submit('admin/users/carol', { full_name: 'Someone Else', email: 'bob@example.com', active: 'on' });
    expect(bad.text).to.include('class="flash error"').and.include('e-mail already in use');
    c = (await api('GET', '/users/carol')).body;
    expect([c.full_name, c.email, c.prohibit_login]).to.deep.equal(['Carol Danvers', 'carol2@example.com', true]);

    await submit('admin/users/root', { full_name: '', email: 'root@example.com', admin: 'on', active: 'on', prohibit_login: 'on' });
    expect((await api('GET', '/users/root')).body.prohibit_login).to.equal(false);
    expect((await admin.get('admin')).status).to.equal(200);
    expect((await admin.get('admin/users/nobody')).status).to.equal(404);
  });

  it('deletes a user account, and refuses with a flash to delete an owner of repositories, an organization member, its last owner or oneself', async () => {
    const gone = await submit('admin/users/carol/delete', {});
    expect(gone.location).to.equal('/admin/users');
    expect(gone.text).to.include('The user account &quot;carol&quot; has been deleted.');
    expect((await api('GET', '/users/carol')).status).to.equal(404);

    expect((await w.raw('POST', '/orgs', { username: 'guild' }, { token: bob.token })).status).to.equal(201);
    for (const [who, fields, message] of [
      ['alice', {}, 'user still has ownership of repositories'],
      ['alice', { purge: 'x' }, 'user still has ownership of repositories'],
      ['bob', {}, 'user still has membership of organizations'],
      ['bob', { purge: 'on' }, 'user is the last member of owner team'],
      ['root', {}, 'you cannot delete yourself'],
    ] as const) {
      const res = await submit(`admin/users/${who}/delete`, fields);
      expect(res.location).to.equal(`/admin/users/${who}`);
      expect(res.text, message).to.include('class="flash error"').and.include(message);
      expect((await api('GET', `/users/${who}`)).status).to.equal(200);
    }
    expect((await api('GET', '/repos/alice/proj')).status).to.equal(200);
    expect((await api('GET', '/orgs/guild')).status).to.equal(200);
  });

  it('lists and searches organizations, private ones included', async () => {
    expect((await w.raw('POST', '/orgs', { username: 'crafters', full_name: 'Guild of Crafters', visibility: 'private' }, { token: alice.token })).status).to.equal(201);
    expect((await w.raw('POST', '/orgs', { username: 'other' }, { token: alice.token })).status).to.equal(201);
    const all = await admin.get('admin/orgs');
    expect(all.status).to.equal(200);
    for (const name of ['guild', 'crafters', 'other']) expect(all.text).to.include(`>${name}</a>`);
    expect(all.text).to.include('private');
    const found = await admin.get('admin/orgs?q=GUILD');
    expect(found.text).to.include('>guild</a>').and.include('>crafters</a>').and.not.include('>other</a>');
    expect((await admin.get('admin/orgs?q=nothing-like-it')).text).to.include('No organizations.');
    expect((await admin.get('admin/orgs?q=guild&page=2')).text).to.include('No organizations.').and.not.include('>guild</a>');
    expect((await admin.get('admin/orgs?page=2')).text).to.include('No organizations.');
  });

  it('lists and searches repositories, private ones included, and deletes one', async () => {
    await apiRepo(w, bob, 'scratch', { auto_init: false, private: true });
    const all = await admin.get('admin/repos');
    expect(all.status).to.equal(200);
    for (const name of ['alice/proj', 'alice/tools', 'bob/scratch']) expect(all.text).to.include(`>${name}</a>`);
    const found = await admin.get('admin/repos?q=tool');
    expect(found.text).to.include('>alice/tools</a>').and.not.include('>alice/proj</a>');
    expect((await admin.get('admin/repos?q=tool&page=2')).text).to.include('No repositories.');

    expect((await admin.form('admin/repos/bob/scratch/delete', {}, { csrf: null })).status).to.equal(403);
    expect((await api('GET', '/repos/bob/scratch')).status).to.equal(200);
    const gone = await submit('admin/repos/bob/scratch/delete', {});
    expect(gone.location).to.equal('/admin/repos');
    expect(gone.text).to.include('The repository bob/scratch has been deleted.').and.not.include('>bob/scratch</a>');
    expect((await api('GET', '/repos/bob/scratch')).status).to.equal(404);
    expect((await admin.form('admin/repos/bob/scratch/delete', {})).status).to.equal(404);
  });

  it('adds system webhooks with chosen or all events, refuses bad ones, and deletes them', async () => {
    await admin.get('admin/hooks/new');
    const made = await submit('admin/hooks/new', {
      url: 'http://127.0.0.1:9/sys', content_type: 'form', secret: 's3cret', events: 'choose', 'event-push': 'on', 'event-pull_request': 'on', active: 'on',
    });
    expect(made.location).to.equal('/admin/hooks');
    expect(made.text).to.include('The webhook has been added.').and.include('http://127.0.0.1:9/sys');
    let hooks = await systemHooks();
    expect(hooks).to.have.length(1);
    expect([hooks[0].config.url, hooks[0].config.content_type, hooks[0].active]).to.deep.equal(['http://127.0.0.1:9/sys', 'form', true]);
    expect(hooks[0].events).to.include.members(['push', 'pull_request']).and.not.include('issues').and.not.include('release');

    await submit('admin/hooks/new', { url: 'http://127.0.0.1:9/all', content_type: 'json', events: 'all' });
    hooks = await systemHooks();
    const everything = hooks.find((h) => h.config.url === 'http://127.0.0.1:9/all')!;
    expect(everything.events).to.include.members(['push', 'issues', 'pull_request', 'release', 'repository', 'workflow_job']);
    expect(everything.active).to.equal(false);

    for (const [fields, message] of [
      [{ url: 'ftp://127.0.0.1/', content_type: 'json', events: 'all' }, 'Invalid url'],
      [{ url: 'http://127.0.0.1:9/x', content_type: 'xml', events: 'all' }, 'Invalid content type'],
      [{ url: 'http://127.0.0.1:9/x', content_type: 'json', events: 'choose' }, 'Choose at least one event.'],
    ] as const) {
      const res = await submit('admin/hooks/new', fields);
      expect(res.location).to.equal('/admin/hooks/new');
      expect(res.text, message).to.include('class="flash error"').and.include(message);
    }
    expect(await systemHooks()).to.have.length(2);

    expect((await admin.form(`admin/hooks/${everything.id}/delete`, {}, { csrf: 'forged' })).status).to.equal(403);
    expect(await systemHooks()).to.have.length(2);
    const gone = await submit(`admin/hooks/${everything.id}/delete`, {});
    expect(gone.text).to.include('The webhook has been deleted.').and.not.include('http://127.0.0.1:9/all');
    expect((await systemHooks()).map((h) => h.config.url)).to.deep.equal(['http://127.0.0.1:9/sys']);
    expect((await submit(`admin/hooks/${everything.id}/delete`, {})).text).to.include('class="flash error"');
  });

  it('refuses forms without their CSRF token or from another site, changing nothing', async () => {
    const before = await total('/admin/users');
    const fields = { user_name: 'frank', email: 'frank@example.com', password: 'frank-password-1' };
    expect((await admin.form('admin/users/new', fields, { csrf: null })).status).to.equal(403);
    expect((await admin.form('admin/users/new', fields, { origin: 'https://evil.example' })).status).to.equal(403);
    expect((await admin.form('admin/users/bob', { full_name: 'x', admin: 'on', active: 'on' }, { csrf: null })).status).to.equal(403);
    expect((await admin.form('admin/users/bob/delete', {}, { csrf: null })).status).to.equal(403);
    expect(await total('/admin/users')).to.equal(before);
    expect((await api('GET', '/users/bob')).body.is_admin).to.equal(false);
  });

  it("escapes a user's full name on the user pages", async () => {
    const payload = '<script>alert(1)</script>"><img src=x onerror=alert(1)>';
    expect((await w.raw('PATCH', '/user/settings', { full_name: payload }, { token: alice.token })).status).to.equal(200);
    for (const p of ['admin/users', 'admin/users?q=alice', 'admin/users/alice']) {
      const res = await admin.get(p);
      expect(res.text, p).to.include('&lt;script&gt;alert(1)&lt;/script&gt;&quot;&gt;&lt;img src=x onerror=alert(1)&gt;');
      expect(res.text, p).not.to.include('<script>alert(1)').and.not.include('<img src=x');
    }
  });
});
