/**
 * Authentication and authorization platform: token in header (token/Bearer), Basic with password
 * or token, query tokens with a warning header, scopes enforced alike for every credential form,
 * sudo, token creation rules, and the failed-login limit.
 */
import { expect } from 'chai';
import { startWorld, type World, type TestUser } from '../helpers/world';
import { WebClient } from '../helpers/web';

async function token(w: World, u: TestUser, name: string, scopes: string[]): Promise<string> {
  const res = await w.raw('POST', `/users/${u.name}/tokens`, { name, scopes }, { basic: [u.name, u.password] });
  expect(res.status, res.text).to.equal(201);
  return res.body.sha1;
}

describe('authentication', () => {
  let w: World;
  let alice: TestUser;
  before(async () => {
    w = await startWorld();
    alice = await w.user('alice');
  });
  after(async () => { await w?.stop(); });

  it('accepts a token as "token", as "Bearer", as the Basic password and in the query (with a warning header)', async () => {
    const forms: Array<[string, Record<string, string>]> = [
      ['/user', { Authorization: `token ${alice.token}` }],
      ['/user', { Authorization: `Bearer ${alice.token}` }],
      ['/user', { Authorization: `Basic ${Buffer.from(`alice:${alice.token}`).toString('base64')}` }],
      ['/user', { Authorization: `Basic ${Buffer.from(`alice:${alice.password}`).toString('base64')}` }],
      [`/user?token=${alice.token}`, {}],
      [`/user?access_token=${alice.token}`, {}],
    ];
    for (const [path, headers] of forms) {
      const res = await w.raw('GET', path, undefined, { headers });
      expect(res.status, `${path} ${JSON.stringify(headers)}`).to.equal(200);
      expect(res.body.login).to.equal('alice');
      const warning = [...res.headers.keys()].filter((h) => h.startsWith('x-') && /warning/.test(h));
      if (path.includes('token=')) expect(warning, path).to.not.be.empty;
      else expect(warning, path).to.be.empty;
    }
  });

  it('takes a Basic password shaped like a JWT (a.b.c) as a password when it is no OAuth2 token', async () => {
    const password = 'dotted.pass-word.x1';
    const made = await w.raw('POST', '/admin/users', { username: 'dotty', email: 'dotty@example.com', password, must_change_password: false }, { token: w.admin.token });
    expect(made.status, made.text).to.equal(201);
    const ok = await w.raw('GET', '/user', undefined, { basic: ['dotty', password] });
    expect(ok.status, ok.text).to.equal(200);
    expect(ok.body.login).to.equal('dotty');
    expect((await w.raw('GET', '/user', undefined, { basic: ['dotty', 'other.pass-word.x1'] })).status).to.equal(401);
  });

  it('answers 401 in Gitea\'s body for a wrong token or password', async () => {
    for (const headers of [
      { Authorization: 'token 0000000000000000000000000000000000000000' },
      { Authorization: `Basic ${Buffer.from('alice:wrong-password').toString('base64')}` },
    ]) {
      const res = await w.raw('GET', '/user', undefined, { headers });
      expect(res.status).to.equal(401);
      expect(res.body).to.have.property('message').that.is.a('string').and.not.empty;
      expect(res.body.url).to.equal(`${w.server.url}api/swagger`);
    }
    expect((await w.raw('GET', '/user')).status).to.equal(401);
  });

  it('enforces token scopes the same way for every credential form', async () => {
    const readUser = await token(w, alice, 'read-user', ['read:user']);
    const authForms = [
      { headers: { Authorization: `token ${readUser}` } },
      { headers: { Authorization: `Basic ${Buffer.from(`alice:${readUser}`).toString('base64')}` } },
    ];
    for (const auth of authForms) {
      expect((await w.raw('GET', '/user', undefined, auth)).status).to.equal(200);
      const write = await w.raw('PATCH', '/user/settings', { full_name: 'Changed By Read Token' }, auth);
      expect(write.status).to.equal(403);
      expect(write.body.message).to.match(/scope/);
    }
    expect((await w.raw('GET', `/user?token=${readUser}`)).status).to.equal(200);
    const settings = await w.raw('GET', '/user/settings', undefined, { token: alice.token });
    expect(settings.body.full_name).to.not.equal('Changed By Read Token');
  });

  it('requires every scope category of a route (admin routes need the admin scope even for admins)', async () => {
    const rootUser: TestUser = w.admin;
    const notAdmin = await token(w, rootUser, 'user-only', ['write:user']);
    const res = await w.raw('POST', '/admin/users', { username: 'scoped1', email: 'scoped1@example.com', password: 'password-1' }, { token: notAdmin });
    expect(res.status).to.equal(403);
    expect(res.body.message).to.match(/required=\[write:admin\]/);
    expect((await w.raw('GET', '/users/scoped1', undefined, { token: w.admin.token })).status).to.equal(404);
  });

  it('refuses unknown scope names and empty scopes at token creation', async () => {
    for (const scopes of [['write:everything'], ['read'], [], ['public-only']]) {
      const res = await w.raw('POST', '/users/alice/tokens', { name: `bad-${scopes.join('-')}`, scopes }, { basic: ['alice', alice.password] });
      expect(res.status, JSON.stringify(scopes)).to.equal(400);
    }
    const list = await w.raw('GET', '/users/alice/tokens', undefined, { basic: ['alice', alice.password] });
    expect(list.body.map((t: { name: string }) => t.name).filter((n: string) => n.startsWith('bad-'))).to.be.empty;
  });

  it('lets only the password create tokens: a token (header or Basic) cannot', async () => {
    const viaHeader = await w.raw('POST', '/users/alice/tokens', { name: 'minted-1', scopes: ['all'] }, { token: alice.token });
    expect(viaHeader.status).to.equal(401);
    const viaBasic = await w.raw('POST', '/users/alice/tokens', { name: 'minted-2', scopes: ['all'] }, { basic: ['alice', alice.token] });
    expect(viaBasic.status).to.equal(401);
    const anon = await w.raw('POST', '/users/alice/tokens', { name: 'minted-3', scopes: ['all'] });
    expect(anon.status).to.equal(403);
    const list = await w.raw('GET', '/users/alice/tokens', undefined, { basic: ['alice', alice.password] });
    expect(list.body.map((t: { name: string }) => t.name)).to.not.include.members(['minted-1', 'minted-2', 'minted-3']);
  });

  it('refuses a second token with the same name, and another user\'s tokens', async () => {
    await token(w, alice, 'dup', ['read:user']);
    const again = await w.raw('POST', '/users/alice/tokens', { name: 'dup', scopes: ['read:user'] }, { basic: ['alice', alice.password] });
    expect(again.status).to.equal(400);
    expect(again.body.message).to.match(/used already/);
    const bob = await w.user('bob');
    const other = await w.raw('GET', '/users/alice/tokens', undefined, { basic: ['bob', bob.password] });
    expect(other.status).to.equal(403);
    const missing = await w.raw('POST', '/users/alice/tokens', { scopes: ['all'] }, { basic: ['alice', alice.password] });
    expect(missing.status).to.equal(422);
  });

  it('lists tokens with created_at and last_used_at, and a deleted token stops working at once', async () => {
    const t = await token(w, alice, 'short-lived', ['read:user']);
    expect((await w.raw('GET', '/user', undefined, { token: t })).status).to.equal(200);
    const list = await w.client().users.userGetTokens('alice', {}, { headers: { Authorization: `Basic ${Buffer.from(`alice:${alice.password}`).toString('base64')}` } });
    const entry = list.data.find((x) => x.name === 'short-lived') as unknown as Record<string, string>;
    expect(entry.sha1).to.equal('');
    expect(entry.token_last_eight).to.equal(t.slice(-8));
    expect(Date.parse(entry.created_at)).to.be.greaterThan(0);
    expect(Date.parse(entry.last_used_at)).to.be.greaterThan(0);
    const del = await w.raw('DELETE', `/users/alice/tokens/short-lived`, undefined, { basic: ['alice', alice.password] });
    expect(del.status).to.equal(204);
    // every worker must forget it, so ask several times
    for (let i = 0; i < 6; i++) expect((await w.raw('GET', '/user', undefined, { token: t })).status).to.equal(401);
  });

  it('lets an administrator act as another user with sudo, and nobody else', async () => {
    const viaQuery = await w.raw('GET', '/user?sudo=alice', undefined, { token: w.admin.token });
    expect(viaQuery.status).to.equal(200);
    expect(viaQuery.body.login).to.equal('alice');
    const viaHeader = await w.raw('GET', '/user', undefined, { token: w.admin.token, headers: { Sudo: 'alice' } });
    expect(viaHeader.body.login).to.equal('alice');
    const denied = await w.raw('GET', '/user?sudo=root', undefined, { token: alice.token });
    expect(denied.status).to.equal(403);
    expect(denied.body.message).to.equal('Only administrators allowed to sudo.');
    const unknown = await w.raw('GET', '/user?sudo=nobody-here', undefined, { token: w.admin.token });
    expect(unknown.status).to.equal(404);
  });

  it('knows the caller on public endpoints when a token is given', async () => {
    const anon = await w.raw('GET', '/users/alice');
    const self = await w.raw('GET', '/users/alice', undefined, { token: alice.token });
    expect(anon.status).to.equal(200);
    expect(anon.body.email).to.not.equal('alice@example.com');
    expect(self.body.email).to.equal('alice@example.com');
  });
});

describe('failed sign-in limit', () => {
  let w: World;
  // why: the test server trusts 127.0.0.0/8 as its proxy (the default), so X-Forwarded-For names the client's address.
  const from = (address: string) => ({ 'X-Forwarded-For': address });
  before(async () => {
    w = await startWorld({ env: { FORGE__SECURITY__LOGIN_FAILURE_WINDOW: '600' } });
  });
  after(async () => { await w?.stop(); });

  it('answers 429 with Retry-After once an address has too many failures, even for the right password', async () => {
    const carol = await w.user('carol');
    for (let i = 0; i < 10; i++) {
      expect((await w.raw('GET', '/user', undefined, { basic: ['carol', 'wrong'], headers: from('192.0.2.10') })).status).to.equal(401);
    }
    const blocked = await w.raw('GET', '/user', undefined, { basic: ['carol', carol.password], headers: from('192.0.2.10') });
    expect(blocked.status).to.equal(429);
    expect(blocked.body.message).to.equal('too many failed login attempts, try again later');
    expect(Number(blocked.headers.get('retry-after'))).to.be.greaterThan(0);
    expect(blocked.body.url).to.equal(`${w.server.url}api/swagger`);
    // the address is refused for every account, password or not
    expect((await w.raw('GET', '/user', undefined, { basic: ['root', 'wrong'], headers: from('192.0.2.10') })).status).to.equal(429);
    // tokens are not password guesses: they keep working
    expect((await w.raw('GET', '/user', undefined, { token: carol.token, headers: from('192.0.2.10') })).status).to.equal(200);
  });

  it('a stranger\'s ten failures on an account lock out the stranger\'s address, never the owner at another', async () => {
    const dave = await w.user('dave');
    for (let i = 0; i < 10; i++) {
      expect((await w.raw('GET', '/user', undefined, { basic: ['dave', `guess-${i}`], headers: from('203.0.113.66') })).status).to.equal(401);
    }
    // the stranger's address is refused, even with the right password
    expect((await w.raw('GET', '/user', undefined, { basic: ['dave', dave.password], headers: from('203.0.113.66') })).status).to.equal(429);
    const web = new WebClient(w);
    await web.request('GET', 'user/login', { headers: from('203.0.113.66') });
    const strangerForm = await web.request('POST', 'user/login', formOf(w, web, { user_name: 'dave', password: dave.password }, from('203.0.113.66')));
    expect(strangerForm.status).to.equal(429);
    // the owner, from elsewhere: the API with the password, and the sign-in form
    const api = await w.raw('GET', '/user', undefined, { basic: ['dave', dave.password], headers: from('198.51.100.23') });
    expect([api.status, api.body.login]).to.deep.equal([200, 'dave']);
    const owner = new WebClient(w);
    await owner.request('GET', 'user/login', { headers: from('198.51.100.23') });
    const signedIn = await owner.request('POST', 'user/login', formOf(w, owner, { user_name: 'dave', password: dave.password }, from('198.51.100.23')));
    expect(signedIn.status, signedIn.text).to.equal(303);
    expect((await owner.get('')).text).to.include('Welcome, dave');
  });
});

/** A sign-in form's request, with the page's CSRF token, the forge's Origin and `headers`. */
function formOf(w: World, web: WebClient, fields: Record<string, string>, headers: Record<string, string>): { body: string; headers: Record<string, string> } {
  const body = new URLSearchParams({ ...fields, _csrf: web.csrf }).toString();
  return { body, headers: { ...headers, 'Content-Type': 'application/x-www-form-urlencoded', Origin: new URL(w.server.rootUrl).origin } };
}
