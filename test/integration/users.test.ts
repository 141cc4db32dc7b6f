/**
 * User accounts: `/user`, `/users/{username}`, `/users/search`, `/user/settings`, `/user/emails`,
 * and following. gitea-js for every operation; raw HTTP for error bodies and headers.
 */
import { expect } from 'chai';
import { startWorld, type World, type TestUser } from '../helpers/world';

/** The HTTP status a gitea-js call failed with (gitea-js throws the response on a non-2xx answer). */
async function failure(p: Promise<unknown>): Promise<{ status: number; error: { message?: string } }> {
  try {
    await p;
  } catch (err) {
    return err as { status: number; error: { message?: string } };
  }
  throw new Error('expected the call to fail');
}

describe('users: /user and /users/{username}', () => {
  let w: World;
  let alice: TestUser;
  let bob: TestUser;
  let priv: TestUser;
  let lim: TestUser;
  before(async () => {
    w = await startWorld();
    alice = await w.user('alice', { full_name: 'Alice Liddell' });
    bob = await w.user('bob');
    priv = await w.user('secretive', { visibility: 'private' });
    lim = await w.user('limitedone', { visibility: 'limited' });
  });
  after(async () => { await w?.stop(); });

  it('GET /user shows the caller with every field, since the viewer is self', async () => {
    const me = (await alice.api.user.userGetCurrent()).data;
    expect(me.login).to.equal('alice');
    expect(me.id).to.equal(alice.id);
    expect(me.full_name).to.equal('Alice Liddell');
    expect(me.email).to.equal('alice@example.com');
    expect(me.login_name).to.equal('alice');
    expect(me.active).to.equal(true);
    expect(me.is_admin).to.equal(false);
    expect(me.visibility).to.equal('public');
    const raw = await w.raw('GET', '/user', undefined, { token: alice.token });
    expect(raw.body.username).to.equal('alice');
    const admin = (await w.admin.api.user.userGetCurrent()).data;
    expect(admin.is_admin).to.equal(true);
  });

  it('GET /user answers 401 "token is required" to anonymous callers', async () => {
    const res = await w.raw('GET', '/user');
    expect(res.status).to.equal(401);
    expect(res.body.message).to.equal('token is required');
    expect(res.body.url).to.equal(`${w.server.url}api/swagger`);
  });

  it('GET /users/{username} hides the email and private fields from others', async () => {
    const anon = (await w.client().users.userGet('alice')).data;
    expect(anon.login).to.equal('alice');
    expect(anon.email).to.equal('alice@noreply.127.0.0.1');
    expect(anon.active).to.equal(false);
    expect(anon.login_name).to.equal('');
    const byBob = (await bob.api.users.userGet('alice')).data;
    expect(byBob.email).to.equal('alice@example.com');
    expect(byBob.last_login).to.equal('0001-01-01T00:00:00Z');
    const byAdmin = (await w.admin.api.users.userGet('ALICE')).data;
    expect(byAdmin.active).to.equal(true);
    expect(byAdmin.login_name).to.equal('alice');
  });

  it('GET /users/{username} answers 404 for unknown users and users hidden from the caller', async () => {
    const unknown = await w.raw('GET', '/users/nobody-here');
    expect(unknown.status).to.equal(404);
    expect(unknown.body.message).to.be.a('string');
    // private: only self and admins
    expect((await w.raw('GET', '/users/secretive')).status).to.equal(404);
    expect((await w.raw('GET', '/users/secretive', undefined, { token: bob.token })).status).to.equal(404);
    expect((await priv.api.users.userGet('secretive')).data.visibility).to.equal('private');
    expect((await w.admin.api.users.userGet('secretive')).data.login).to.equal('secretive');
    // limited: any signed-in user
    expect((await w.raw('GET', '/users/limitedone')).status).to.equal(404);
    expect((await bob.api.users.userGet('limitedone')).data.login).to.equal('limitedone');
    expect(lim.name).to.equal('limitedone');
  });
});

describe('users: /users/search', () => {
  let w: World;
  let bob: TestUser;
  before(async () => {
    w = await startWorld();
    await w.user('zed-searchable', { full_name: 'Searchable Zed' });
    await w.user('amy-searchable');
    await w.user('mid-searchable', { visibility: 'limited' });
    await w.user('hid-searchable', { visibility: 'private' });
    bob = await w.user('bob');
  });
  after(async () => { await w?.stop(); });

  it('answers {ok, data} sorted by name, with X-Total-Count, and only public users to anonymous callers', async () => {
    const res = await w.client().users.userSearch({ q: 'searchable' });
    expect(res.data.ok).to.equal(true);
    expect(res.data.data!.map((u) => u.login)).to.deep.equal(['amy-searchable', 'zed-searchable']);
    expect(res.headers.get('x-total-count')).to.equal('2');
  });

  it('shows limited users to signed-in callers and every user to admins', async () => {
    const signed = await bob.api.users.userSearch({ q: 'SEARCHABLE' });
    expect(signed.data.data!.map((u) => u.login)).to.deep.equal(['amy-searchable', 'mid-searchable', 'zed-searchable']);
    const admin = await w.admin.api.users.userSearch({ q: 'searchable' });
    expect(admin.data.data!.map((u) => u.login)).to.deep.equal(['amy-searchable', 'hid-searchable', 'mid-searchable', 'zed-searchable']);
  });

  it('matches the full name, filters by uid and pages with Link', async () => {
    const byName = await w.client().users.userSearch({ q: 'zed' });
    expect(byName.data.data!.map((u) => u.login)).to.deep.equal(['zed-searchable']);
    const byFull = await w.client().users.userSearch({ q: 'Searchable Z' });
    expect(byFull.data.data!.map((u) => u.login)).to.deep.equal(['zed-searchable']);
    const byUid = await w.client().users.userSearch({ uid: bob.id });
    expect(byUid.data.data!.map((u) => u.login)).to.deep.equal(['bob']);
    const paged = await w.raw('GET', '/users/search?q=searchable&limit=1&page=1', undefined, { token: w.admin.token });
    expect(paged.headers.get('x-total-count')).to.equal('4');
    expect(paged.body.data).to.have.length(1);
    expect(paged.headers.get('link')).to.contain('rel="next"').and.to.contain('rel="last"');
  });

  it('answers the Ghost user for uid=-1', async () => {
    const res = await w.client().users.userSearch({ uid: -1 });
    expect(res.data.data!.map((u) => u.login)).to.deep.equal(['Ghost']);
    expect(res.data.data![0].id).to.equal(-1);
  });

  it('matches emails only where the caller may see them', async () => {
    await bob.api.user.updateUserSettings({ hide_email: true });
    const anon = await w.client().users.userSearch({ q: 'bob@example' });
    expect(anon.data.data).to.deep.equal([]);
    const self = await bob.api.users.userSearch({ q: 'bob@example' });
    expect(self.data.data!.map((u) => u.login)).to.deep.equal(['bob']);
    const admin = await w.admin.api.users.userSearch({ q: 'bob@example' });
    expect(admin.data.data!.map((u) => u.login)).to.deep.equal(['bob']);
  });
});

describe('users: /user/settings', () => {
  let w: World;
  let carol: TestUser;
  let dave: TestUser;
  before(async () => {
    w = await startWorld();
    carol = await w.user('carol', { full_name: 'Carol' });
    dave = await w.user('dave');
  });
  after(async () => { await w?.stop(); });

  it('GET shows the settings', async () => {
    const s = (await carol.api.user.getUserSettings()).data;
    expect(s).to.deep.equal({
      full_name: 'Carol', website: '', description: '', location: '', language: '', theme: '', diff_view_style: '',
      hide_email: false, hide_activity: false,
    });
  });

  it('PATCH changes only the fields given and answers the settings', async () => {
    const res = await carol.api.user.updateUserSettings({ location: 'Wonderland', website: 'https://carol.example', language: 'en-US' });
    expect(res.status).to.equal(200);
    expect(res.data).to.include({ full_name: 'Carol', location: 'Wonderland', website: 'https://carol.example', language: 'en-US' });
    const again = await carol.api.user.updateUserSettings({ description: 'hi', theme: 'gitea-dark', diff_view_style: 'split', hide_activity: true });
    expect(again.data).to.include({ location: 'Wonderland', description: 'hi', theme: 'gitea-dark', diff_view_style: 'split', hide_activity: true });
    const me = (await carol.api.user.userGetCurrent()).data;
    expect(me.location).to.equal('Wonderland');
    expect(me.website).to.equal('https://carol.example');
    expect(me.language).to.equal('en-US');
  });

  it('hide_email hides the address from other users', async () => {
    expect((await dave.api.users.userGet('carol')).data.email).to.equal('carol@example.com');
    await carol.api.user.updateUserSettings({ hide_email: true });
    expect((await dave.api.users.userGet('carol')).data.email).to.equal('carol@noreply.127.0.0.1');
    expect((await carol.api.users.userGet('carol')).data.email).to.equal('carol@example.com');
    expect((await w.admin.api.users.userGet('carol')).data.email).to.equal('carol@example.com');
    await carol.api.user.updateUserSettings({ hide_email: false });
    expect((await dave.api.users.userGet('carol')).data.email).to.equal('carol@example.com');
  });

  const bad: Array<[string, Record<string, unknown>, string | RegExp]> = [
    ['full_name longer than 100', { full_name: 'x'.repeat(101) }, '[FullName]: MaxSize'],
    ['a website that is no http(s) URL', { website: 'ftp://example.com' }, '[Website]: Url'],
    ['a website that is not a URL', { website: 'not a url' }, '[Website]: Url'],
    ['a website longer than 255', { website: `https://e.com/${'a'.repeat(250)}` }, '[Website]: MaxSize'],
    ['description longer than 255', { description: 'd'.repeat(256) }, '[Description]: MaxSize'],
    ['location longer than 50', { location: 'l'.repeat(51) }, '[Location]: MaxSize'],
    ['a language that is no locale', { language: 'en US!' }, '[Language]: invalid language'],
    ['a theme with odd characters', { theme: '../x y' }, '[Theme]: invalid theme'],
    ['an unknown diff view style', { diff_view_style: 'sideways' }, '[DiffViewStyle]: In'],
    ['a wrong type', { hide_email: 'yes' }, /hide_email/],
  ];
  it('PATCH ignores a field UserSettingsOptions does not have, as Gitea does', async () => {
    const before = (await carol.api.user.getUserSettings()).data;
    const res = await w.raw('PATCH', '/user/settings', { visibility: 'private' }, { token: carol.token });
    expect(res.status, res.text).to.equal(200);
    expect((await carol.api.user.getUserSettings()).data).to.deep.equal(before);
    expect((await w.raw('GET', '/users/carol', undefined, { token: carol.token })).body.visibility).to.equal('public');
  });

  for (const [what, body, message] of bad) {
    it(`PATCH refuses ${what} with 422 and changes nothing`, async () => {
      const before = (await carol.api.user.getUserSettings()).data;
      const res = await w.raw('PATCH', '/user/settings', { location: 'Elsewhere', ...body }, { token: carol.token });
      expect(res.status).to.equal(422);
      if (typeof message === 'string') expect(res.body.message).to.equal(message);
      else expect(res.body.message).to.match(message);
      expect((await carol.api.user.getUserSettings()).data).to.deep.equal(before);
      expect((await carol.api.user.userGetCurrent()).data.visibility).to.equal('public');
    });
  }

  it('PATCH needs a signed-in caller', async () => {
    const res = await w.raw('PATCH', '/user/settings', { location: 'x' });
    expect(res.status).to.equal(401);
    expect(res.body.message).to.equal('token is required');
  });
});

describe('users: /user/emails', () => {
  let w: World;
  let erin: TestUser;
  let frank: TestUser;
  const emails = async (u: TestUser) => (await u.api.user.userListEmails()).data.map((e) => e.email).sort();
  before(async () => {
    w = await startWorld({ env: { FORGE__SERVICE__EMAIL_DOMAIN_BLOCKLIST: 'blocked.test,*.spam.test' } });
    erin = await w.user('erin');
    frank = await w.user('frank');
  });
  after(async () => { await w?.stop(); });

  it('GET lists the primary address', async () => {
    const res = await erin.api.user.userListEmails();
    expect(res.data).to.deep.equal([{ email: 'erin@example.com', verified: true, primary: true, user_id: 0, username: '' }]);
  });

  it('POST adds addresses and answers 201 with the whole list', async () => {
    const res = await erin.api.user.userAddEmail({ emails: ['erin2@example.com', 'Erin.Work@example.org'] });
    expect(res.status).to.equal(201);
    expect(res.data.map((e) => e.email)).to.deep.equal(['erin@example.com', 'erin2@example.com', 'Erin.Work@example.org']);
    expect(res.data[1]).to.deep.equal({ email: 'erin2@example.com', verified: true, primary: false, user_id: 0, username: '' });
  });

  const refusals: Array<[string, string[], string]> = [
    ['an empty list', [], 'Email list empty'],
    ['an invalid address', ['not-an-email'], 'Email address "not-an-email" invalid'],
    ['an address starting with a dash', ['-x@example.com'], 'Email address "-x@example.com" invalid'],
    ['a blocked domain', ['erin@blocked.test'], 'Email address "erin@blocked.test" invalid'],
    ['a blocked subdomain', ['erin@mail.spam.test'], 'Email address "erin@mail.spam.test" invalid'],
    ["another user's address", ['frank@example.com'], 'Email address has been used: frank@example.com'],
    ["another user's address in other case", ['FRANK@example.com'], 'Email address has been used: FRANK@example.com'],
    ['an address of the caller', ['erin2@example.com'], 'Email address has been used: erin2@example.com'],
    ['the same new address twice', ['new1@example.com', 'new1@example.com'], 'Email address has been used: new1@example.com'],
    ['a valid address next to an invalid one', ['fine@example.com', 'bad@'], 'Email address "bad@" invalid'],
    ['a valid address next to a used one', ['fine@example.com', 'frank@example.com'], 'Email address has been used: frank@example.com'],
  ];
  for (const [what, list, message] of refusals) {
    it(`POST refuses ${what} with 422 and adds nothing`, async () => {
      const before = await emails(erin);
      const res = await w.raw('POST', '/user/emails', { emails: list }, { token: erin.token });
      expect(res.status).to.equal(422);
      expect(res.body.message).to.equal(message);
      expect(await emails(erin)).to.deep.equal(before);
      expect(await emails(frank)).to.deep.equal(['frank@example.com']);
    });
  }

  it('POST without a body list is refused with 422', async () => {
    const res = await w.raw('POST', '/user/emails', {}, { token: erin.token });
    expect(res.status).to.equal(422);
    expect(res.body.message).to.equal('Email list empty');
  });

  it('DELETE removes addresses (JSON body) and answers 204', async () => {
    await erin.api.user.userAddEmail({ emails: ['gone1@example.com', 'gone2@example.com'] });
    const res = await erin.api.user.userDeleteEmail({ emails: ['gone1@example.com', 'GONE2@example.com'] });
    expect(res.status).to.equal(204);
    expect(await emails(erin)).to.not.include.members(['gone1@example.com', 'gone2@example.com']);
    // the address is free again for anyone
    await frank.api.user.userAddEmail({ emails: ['gone1@example.com'] });
    expect(await emails(frank)).to.include('gone1@example.com');
  });

  it('DELETE of an empty list answers 204', async () => {
    const before = await emails(erin);
    expect((await erin.api.user.userDeleteEmail({ emails: [] })).status).to.equal(204);
    expect(await emails(erin)).to.deep.equal(before);
  });

  it("DELETE of another user's address answers 404 and deletes nothing", async () => {
    const before = await emails(erin);
    const res = await w.raw('DELETE', '/user/emails', { emails: ['erin2@example.com', 'frank@example.com'] }, { token: erin.token });
    expect(res.status).to.equal(404);
    expect(res.body.message).to.equal('email address does not exist [email: frank@example.com]');
    expect(await emails(erin)).to.deep.equal(before);
    expect(await emails(frank)).to.include('frank@example.com');
  });

  it('DELETE of the primary address answers 422 and deletes nothing', async () => {
    const before = await emails(erin);
    const res = await w.raw('DELETE', '/user/emails', { emails: ['erin2@example.com', 'erin@example.com'] }, { token: erin.token });
    expect(res.status).to.equal(422);
    expect(res.body.message).to.equal('primary email address cannot be deleted [email: erin@example.com]');
    expect(await emails(erin)).to.deep.equal(before);
    expect((await erin.api.user.userGetCurrent()).data.email).to.equal('erin@example.com');
  });

  it('needs a signed-in caller', async () => {
    expect((await w.raw('GET', '/user/emails')).status).to.equal(401);
    const res = await w.raw('POST', '/user/emails', { emails: ['x@example.com'] });
    expect(res.status).to.equal(401);
    expect(res.body.message).to.equal('token is required');
  });
});

describe('users: following', () => {
  let w: World;
  let gina: TestUser;
  let hank: TestUser;
  let ivan: TestUser;
  let hidden: TestUser;
  const counts = async (u: TestUser) => {
    const me = (await u.api.user.userGetCurrent()).data;
    return [me.followers_count, me.following_count];
  };
  before(async () => {
    w = await startWorld();
    gina = await w.user('gina');
    hank = await w.user('hank');
    ivan = await w.user('ivan');
    hidden = await w.user('hidden', { visibility: 'private' });
  });
  after(async () => { await w?.stop(); });

  it('PUT follows (204), GET checks it, the counters and lists follow', async () => {
    const put = await gina.api.user.userCurrentPutFollow('hank');
    expect(put.status).to.equal(204);
    expect((await gina.api.user.userCurrentCheckFollowing('hank')).status).to.equal(204);
    expect(await counts(gina)).to.deep.equal([0, 1]);
    expect(await counts(hank)).to.deep.equal([1, 0]);
    expect((await gina.api.user.userCurrentListFollowing()).data.map((u) => u.login)).to.deep.equal(['hank']);
    expect((await hank.api.user.userCurrentListFollowers()).data.map((u) => u.login)).to.deep.equal(['gina']);
    expect((await ivan.api.users.userListFollowers('hank')).data.map((u) => u.login)).to.deep.equal(['gina']);
    expect((await ivan.api.users.userListFollowing('gina')).data.map((u) => u.login)).to.deep.equal(['hank']);
    expect((await ivan.api.users.userCheckFollowing('gina', 'hank')).status).to.equal(204);
    expect((await w.raw('GET', '/users/hank/following/gina', undefined, { token: ivan.token })).status).to.equal(404);
  });

  it('PUT twice keeps one follow and the counters', async () => {
    await gina.api.user.userCurrentPutFollow('hank');
    await gina.api.user.userCurrentPutFollow('HANK');
    expect(await counts(gina)).to.deep.equal([0, 1]);
    expect(await counts(hank)).to.deep.equal([1, 0]);
    const res = await w.raw('GET', '/user/followers', undefined, { token: hank.token });
    expect(res.headers.get('x-total-count')).to.equal('1');
  });

  it('DELETE unfollows (204), repeating it is harmless, and GET then answers 404', async () => {
    await ivan.api.user.userCurrentPutFollow('hank');
    expect(await counts(hank)).to.deep.equal([2, 0]);
    expect((await ivan.api.user.userCurrentDeleteFollow('hank')).status).to.equal(204);
    expect((await ivan.api.user.userCurrentDeleteFollow('hank')).status).to.equal(204);
    expect(await counts(hank)).to.deep.equal([1, 0]);
    expect(await counts(ivan)).to.deep.equal([0, 0]);
    const check = await w.raw('GET', '/user/following/hank', undefined, { token: ivan.token });
    expect(check.status).to.equal(404);
    expect((await failure(ivan.api.user.userCurrentCheckFollowing('hank'))).status).to.equal(404);
  });

  it('refuses following yourself with 422 and changes nothing', async () => {
    const res = await w.raw('PUT', '/user/following/gina', undefined, { token: gina.token });
    expect(res.status).to.equal(422);
    expect(res.body.message).to.equal('you cannot follow yourself');
    expect(await counts(gina)).to.deep.equal([0, 1]);
    expect((await w.raw('GET', '/user/following/gina', undefined, { token: gina.token })).status).to.equal(404);
  });

  it('answers 404 for unknown users and users hidden from the caller, and changes nothing', async () => {
    const unknown = await w.raw('PUT', '/user/following/no-such-user', undefined, { token: gina.token });
    expect(unknown.status).to.equal(404);
    const priv = await w.raw('PUT', '/user/following/hidden', undefined, { token: gina.token });
    expect(priv.status).to.equal(404);
    expect(await counts(gina)).to.deep.equal([0, 1]);
    expect(await counts(hidden)).to.deep.equal([0, 0]);
    expect((await w.raw('DELETE', '/user/following/no-such-user', undefined, { token: gina.token })).status).to.equal(404);
    expect((await w.raw('GET', '/users/gina/following/no-such-user', undefined, { token: ivan.token })).status).to.equal(404);
    expect((await w.raw('GET', '/users/hidden/followers', undefined, { token: ivan.token })).status).to.equal(404);
  });

  it('hides private followers from other users but not from admins', async () => {
    await hidden.api.user.userCurrentPutFollow('ivan');
    expect((await gina.api.users.userListFollowers('ivan')).data).to.deep.equal([]);
    const asAdmin = await w.admin.api.users.userListFollowers('ivan');
    expect(asAdmin.data.map((u) => u.login)).to.deep.equal(['hidden']);
    expect((await ivan.api.user.userGetCurrent()).data.followers_count).to.equal(1);
    await hidden.api.user.userCurrentDeleteFollow('ivan');
  });

  it('the /users/{username} follow lists need a signed-in caller', async () => {
    const res = await w.raw('GET', '/users/hank/followers');
    expect(res.status).to.equal(401);
    expect(res.body.message).to.equal('token is required');
    expect((await w.raw('PUT', '/user/following/hank')).status).to.equal(401);
  });

  it('pages followers with X-Total-Count and Link', async () => {
    const fans: TestUser[] = [];
    for (let i = 0; i < 5; i++) fans.push(await w.user(`fan${i}`));
    for (const f of fans) await f.api.user.userCurrentPutFollow('ivan');
    const first = await w.raw('GET', '/users/ivan/followers?limit=2', undefined, { token: gina.token });
    expect(first.status).to.equal(200);
    expect(first.body.map((u: { login: string }) => u.login)).to.deep.equal(['fan0', 'fan1']);
    expect(first.headers.get('x-total-count')).to.equal('5');
    const link = first.headers.get('link')!;
    expect(link).to.contain(`<${w.server.api}/users/ivan/followers?limit=2&page=2>; rel="next"`);
    expect(link).to.contain('page=3>; rel="last"');
    const last = await gina.api.users.userListFollowers('ivan', { page: 3, limit: 2 });
    expect(last.data.map((u) => u.login)).to.deep.equal(['fan4']);
    expect(last.headers.get('x-total-count')).to.equal('5');
    expect(last.headers.get('link')).to.contain('rel="first"').and.to.contain('rel="prev"').and.not.contain('rel="next"');
    expect((await ivan.api.user.userGetCurrent()).data.followers_count).to.equal(5);
  });

  // Depends on PUT /user/blocks/{username} (built in parallel on another branch).
  it('answers 403 "user is blocked" when either side blocks the other, and changes nothing', async () => {
    const jill = await w.user('jill');
    const kurt = await w.user('kurt');
    const block = await jill.api.user.userBlockUser('kurt');
    expect(block.status).to.equal(204);
    for (const [from, to] of [[kurt, 'jill'], [jill, 'kurt']] as const) {
      const res = await w.raw('PUT', `/user/following/${to}`, undefined, { token: from.token });
      expect(res.status).to.equal(403);
      expect(res.body.message).to.equal('user is blocked');
    }
    expect(await counts(jill)).to.deep.equal([0, 0]);
    expect(await counts(kurt)).to.deep.equal([0, 0]);
    expect((await w.raw('GET', '/user/following/jill', undefined, { token: kurt.token })).status).to.equal(404);
  });
});
