/**
 * User settings pages against the real server through their forms: access tokens made with the
 * scopes chosen (shown once, working on the API within those scopes only), refused without a name,
 * with a name already used or without any scope, and deleted (no longer accepted); nobody deletes
 * another user's token, and a form without its CSRF token changes nothing.
 */
import { expect } from 'chai';
import { startWorld, type World, type TestUser } from '../helpers/world';
import { apiRepo } from '../helpers/refs';
import { WebClient } from '../helpers/web';
import { GpgHome, sshKeygen } from '../helpers/keys';

describe('settings: access tokens', () => {
  let w: World;
  let alice: TestUser;
  let bob: TestUser;
  let a: WebClient;
  const tokenNames = async () => ((await w.raw('GET', '/users/alice/tokens', undefined, { basic: ['alice', alice.password] })).body as { name: string }[]).map((t) => t.name).sort();

  before(async () => {
    w = await startWorld();
    [alice, bob] = [await w.user('alice'), await w.user('bob')];
    await apiRepo(w, alice, 'proj', { auto_init: true, private: true });
    a = await WebClient.signedIn(w, alice);
  });
  after(async () => { await w?.stop(); });

  it('makes a token with the chosen scopes, shows it once, and it works within them only', async () => {
    const page = await a.get('user/settings/applications');
    expect(page.status).to.equal(200);
    expect(page.text).to.include('name="scope-repository"').and.include('>test</strong>');
    const made = await a.form('user/settings/applications', { name: 'ci <bot>', 'scope-repository': 'read', 'scope-issue': 'write' });
    expect(made.status).to.equal(303);
    const shown = await a.get('user/settings/applications');
    const raw = /is ([0-9a-f]{40})\. Copy it now/.exec(shown.text)![1];
    expect(shown.text).to.include('ci &lt;bot&gt;').and.include('write:issue,read:repository');
    expect((await a.get('user/settings/applications')).text).not.to.include(raw);
    expect((await w.raw('GET', '/repos/alice/proj', undefined, { token: raw })).status).to.equal(200);
    expect((await w.raw('POST', '/repos/alice/proj/issues', { title: 'from ci' }, { token: raw })).status).to.equal(201);
    expect((await w.raw('PATCH', '/repos/alice/proj', { description: 'x' }, { token: raw })).status).to.equal(403);
    expect((await w.raw('GET', '/user/emails', undefined, { token: raw })).status).to.equal(403);
  });

  it('refuses a token without a name, with a used name or without a scope, and makes none', async () => {
    const before = await tokenNames();
    for (const [fields, message] of [
      [{ name: '', 'scope-repository': 'read' }, 'Required'],
      [{ name: 'test', 'scope-repository': 'read' }, 'access token name has been used already'],
      [{ name: 'no scope' }, 'access token must have a scope'],
      [{ name: 'bad scope', 'scope-repository': 'admin' }, 'access token must have a scope'],
    ] as const) {
      expect((await a.form('user/settings/applications', fields)).status).to.equal(303);
      expect((await a.get('user/settings/applications')).text, message).to.include(message);
    }
    expect(await tokenNames()).to.deep.equal(before);
  });

  it("deletes a token, which then opens nothing; no one deletes another user's token; a forged form does nothing", async () => {
    await a.form('user/settings/applications', { name: 'short-lived', 'scope-repository': 'read' });
    const page = await a.get('user/settings/applications');
    const raw = /is ([0-9a-f]{40})\. Copy it now/.exec(page.text)![1];
    const id = /<strong class="token-name">short-lived<\/strong>[\s\S]*?name="id" value="(\d+)"/.exec(page.text)![1];
    const b = await WebClient.signedIn(w, bob);
    await b.get('user/settings/applications');
    expect((await b.form('user/settings/applications/delete', { id })).status).to.equal(404);
    expect((await a.form('user/settings/applications/delete', { id }, { csrf: null })).status).to.equal(403);
    expect((await w.raw('GET', '/repos/alice/proj', undefined, { token: raw })).status).to.equal(200);
    expect((await a.form('user/settings/applications/delete', { id })).status).to.equal(303);
    expect((await w.raw('GET', '/repos/alice/proj', undefined, { token: raw })).status).to.equal(401);
    expect(await tokenNames()).not.to.include('short-lived');
  });
});

describe('settings: SSH and GPG keys', () => {
  let w: World;
  let alice: TestUser;
  let a: WebClient;
  const keys = async (kind: 'keys' | 'gpg_keys') => (await w.raw('GET', `/user/${kind}`, undefined, { token: alice.token })).body as { id: number; title?: string; key_id?: string }[];

  before(async () => {
    w = await startWorld();
    alice = await w.user('alice');
    a = await WebClient.signedIn(w, alice);
  });
  after(async () => { await w?.stop(); });

  it('adds and removes an SSH key; a bad one is refused and nothing is stored', async () => {
    await a.get('user/settings/keys');
    const pair = sshKeygen('ed25519');
    expect((await a.form('user/settings/keys/ssh', { title: 'laptop <1>', content: pair.pub })).status).to.equal(303);
    const page = await a.get('user/settings/keys');
    expect(page.text).to.include('The SSH key has been added.').and.include('laptop &lt;1&gt;').and.include(pair.fingerprint);
    expect((await keys('keys')).map((k) => k.title)).to.deep.equal(['laptop <1>']);
    await a.form('user/settings/keys/ssh', { title: 'junk', content: 'ssh-ed25519 not-a-key' });
    expect((await a.get('user/settings/keys')).text).to.include('Invalid key content');
    expect(await keys('keys')).to.have.length(1);
    const id = String((await keys('keys'))[0].id);
    expect((await a.form('user/settings/keys/ssh/delete', { id })).status).to.equal(303);
    expect(await keys('keys')).to.have.length(0);
  });

  it('adds and removes a GPG key', async () => {
    const gpg = new GpgHome();
    const fpr = gpg.generate(`alice <${alice.email}>`);
    await a.get('user/settings/keys');
    await a.form('user/settings/keys/gpg', { content: gpg.exportPublic(fpr) });
    const page = await a.get('user/settings/keys');
    expect(page.text).to.include('The GPG key has been added.').and.include(gpg.keyIds(fpr).primary);
    const [k] = await keys('gpg_keys');
    await a.form('user/settings/keys/gpg/delete', { id: String(k.id) });
    expect(await keys('gpg_keys')).to.have.length(0);
  });

  it('hides and refuses the keys the instance disables', async () => {
    const off = await startWorld({ env: { FORGE__USER__ENABLE_SSH_KEYS: 'false', FORGE__USER__ENABLE_GPG_KEYS: 'false' } });
    try {
      const bob = await off.user('bob');
      const b = new WebClient(off);
      await b.signIn('bob', bob.password);
      const page = await b.get('user/settings/keys');
      expect(page.text).to.include('Keys are disabled on this instance.').and.not.include('Add SSH key').and.not.include('Add GPG key');
      await b.form('user/settings/keys/ssh', { title: 'x', content: sshKeygen('ed25519').pub });
      expect((await b.get('user/settings/keys')).text).to.include('ssh keys setting is not allowed to be visited');
      expect((await off.raw('GET', '/users/bob/keys', undefined, { token: bob.token })).body).to.have.length(0);
    } finally {
      await off.stop();
    }
  });
});

describe('settings: profile, emails, blocked users', () => {
  let w: World;
  let alice: TestUser;
  let a: WebClient;
  const me = async () => (await w.raw('GET', '/user', undefined, { token: alice.token })).body;

  before(async () => {
    w = await startWorld();
    alice = await w.user('alice');
    await w.user('bob');
    a = await WebClient.signedIn(w, alice);
  });
  after(async () => { await w?.stop(); });

  it('updates the profile; a bad website is refused and nothing changes', async () => {
    const form = await a.get('user/settings');
    expect(form.status).to.equal(200);
    expect(form.text).to.include('class="active" href="/user/settings">Profile</a>');
    await a.form('user/settings', { full_name: 'Alice <A>', website: 'https://alice.example', location: 'Lyon', description: 'hi' });
    expect((await a.get('user/settings')).text).to.include('Your profile has been updated.').and.include('value="Alice &lt;A&gt;"');
    expect(await me()).to.include({ full_name: 'Alice <A>', website: 'https://alice.example', location: 'Lyon', description: 'hi' });
    await a.form('user/settings', { full_name: 'Changed', website: 'javascript:alert(1)' });
    expect((await a.get('user/settings')).text).to.include('[Website]: Url');
    expect((await me()).full_name).to.equal('Alice <A>');
  });

  it('adds and deletes an email address; an invalid one is refused', async () => {
    await a.get('user/settings/account');
    await a.form('user/settings/account/email', { email: 'second@example.com' });
    const page = await a.get('user/settings/account');
    expect(page.text).to.include('second@example.com has been added.');
    const emails = async () => ((await w.raw('GET', '/user/emails', undefined, { token: alice.token })).body as { email: string }[]).map((e) => e.email).sort();
    expect(await emails()).to.deep.equal(['alice@example.com', 'second@example.com']);
    await a.form('user/settings/account/email', { email: 'not-an-email' });
    expect(await emails()).to.have.length(2);
    await a.form('user/settings/account/email', { action: 'delete', email: 'second@example.com' });
    expect(await emails()).to.deep.equal(['alice@example.com']);
  });

  it('blocks and unblocks a user; blocking oneself or nobody is refused', async () => {
    await a.get('user/settings/blocked_users');
    await a.form('user/settings/blocked_users', { name: 'bob', note: 'spam' });
    expect((await a.get('user/settings/blocked_users')).text).to.include('<span class="blocked-name">bob</span>');
    const blocked = async () => ((await w.raw('GET', '/user/blocks', undefined, { token: alice.token })).body as { login: string }[]).map((u) => u.login);
    expect(await blocked()).to.deep.equal(['bob']);
    await a.form('user/settings/blocked_users', { name: 'alice' });
    await a.form('user/settings/blocked_users', { name: 'nobody' });
    expect(await blocked()).to.deep.equal(['bob']);
    await a.form('user/settings/blocked_users', { action: 'unblock', name: 'bob' });
    expect(await blocked()).to.deep.equal([]);
  });
});
