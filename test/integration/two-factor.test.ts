/**
 * Browser sessions and two-factor authentication against the real server, through its forms (a
 * cookie jar and the pages' CSRF tokens), the API (gitea-js and raw HTTP) and the git CLI: sign-up
 * and sign-in, TOTP enrolment with codes computed by otpauth, the second step of sign-in, the
 * scratch code, disabling; password Basic auth with and without X-Gitea-OTP, git over HTTP with a
 * password refused; CSRF, Origin and open-redirect refusals (security classes 15 and 17); and
 * `[security] TWO_FACTOR_AUTH = enforced`.
 */
import crypto from 'node:crypto';
import { expect } from 'chai';
import * as OTPAuth from 'otpauth';
import { startWorld, type World, type TestUser } from '../helpers/world';
import { GitTool, apiRepo } from '../helpers/refs';
import { WebClient } from '../helpers/web';
import { count, sql } from '../helpers/db';

/** The code an authenticator app shows for `secret`, `offset` periods from now. */
function code(secret: string, offset = 0): string {
  return new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate({ timestamp: Date.now() + offset * 30_000 });
}

/** Enrol TOTP for the signed-in client; the secret and the scratch code shown. */
async function enrol(web: WebClient): Promise<{ secret: string; scratch: string }> {
  const page = await web.get('user/settings/security/two_factor/enroll');
  expect(page.status, page.text).to.equal(200);
  expect(page.text).to.include('<svg');
  const secret = /class="totp-secret">([A-Z2-7]+)</.exec(page.text)![1];
  const done = await web.form('user/settings/security/two_factor/enroll', { passcode: code(secret) });
  expect(done.status, done.text).to.equal(303);
  const shown = await web.get('user/settings/security');
  const scratch = /Your scratch code is ([A-Za-z0-9_-]{10})/.exec(shown.text)![1];
  return { secret, scratch };
}

describe('sessions and two-factor authentication', () => {
  let w: World;
  let alice: TestUser;
  let g: GitTool;

  before(async () => {
    w = await startWorld();
    alice = await w.user('alice');
    g = new GitTool(w);
    await apiRepo(w, alice, 'proj');
  });
  after(async () => { await w?.stop(); });

  describe('sign-in and sessions', () => {
    it('signs in with the password: a new HttpOnly, SameSite=Lax session, the user on the page', async () => {
      const web = new WebClient(w);
      const form = await web.get('user/login');
      expect(form.status).to.equal(200);
      expect(form.headers.get('content-security-policy')).to.include("script-src 'self'");
      const before = web.session;
      expect(before).to.be.a('string');
      const res = await web.form('user/login', { user_name: 'alice', password: alice.password });
      expect(res.status, res.text).to.equal(303);
      expect(res.location).to.equal(w.server.url);
      const cookie = res.headers.getSetCookie().find((c) => c.startsWith('i_like_gitea='))!;
      expect(cookie).to.match(/HttpOnly/i).and.match(/SameSite=Lax/i);
      expect(web.session).to.be.a('string').and.not.equal(before);
      const home = await web.get('');
      expect(home.text).to.include('Welcome, alice');
      // why: the session before sign-in is gone (fixation).
      const stale = new WebClient(w);
      expect((await stale.request('GET', '', { headers: { Cookie: `i_like_gitea=${before}` } })).text).not.to.include('Welcome');
    });

    it('a wrong password signs nothing in; sign-out ends the session', async () => {
      const web = new WebClient(w);
      await web.get('user/login');
      const bad = await web.form('user/login', { user_name: 'alice', password: 'wrong-password' });
      expect(bad.status).to.equal(401);
      expect(bad.text).to.include('Username or password is incorrect.');
      expect((await web.get('')).text).not.to.include('Welcome');
      await web.signIn('alice', alice.password);
      const cookie = web.session!;
      // why: a GET never changes state (an <img src=/user/logout> in a comment does nothing).
      expect((await web.get('user/logout')).status).to.equal(404);
      expect((await web.get('')).text).to.include('Welcome, alice');
      const out = await web.form('user/logout', {});
      expect(out.status).to.equal(303);
      const other = new WebClient(w);
      expect((await other.request('GET', '', { headers: { Cookie: `i_like_gitea=${cookie}` } })).text).not.to.include('Welcome');
    });

    it('refuses a form without the CSRF token or from another origin, and changes nothing', async () => {
      const web = new WebClient(w);
      await web.get('user/sign_up');
      const fields = { user_name: 'mallory', email: 'mallory@example.com', password: 'mallory-pass-1', retype: 'mallory-pass-1' };
      for (const [opts, why] of [[{ csrf: null }, 'no token'], [{ csrf: 'forged' }, 'a wrong token'], [{ origin: 'https://evil.example' }, 'another origin'], [{ origin: 'null' }, 'an opaque origin']] as const) {
        const res = await web.form('user/sign_up', fields, opts);
        expect(res.status, why).to.equal(403);
      }
      // why: without a session cookie there is no token to match, whatever the form says.
      const bare = new WebClient(w);
      expect((await bare.form('user/sign_up', { ...fields, _csrf: web.csrf })).status).to.equal(403);
      expect((await w.raw('GET', '/users/mallory', undefined, { token: w.admin.token })).status).to.equal(404);
      const ok = await web.form('user/sign_up', fields);
      expect(ok.status).to.equal(303);
      expect((await w.raw('GET', '/users/mallory', undefined, { token: w.admin.token })).status).to.equal(200);
    });

    it('stores only a hash of the cookie, and the hourly cleanup removes expired sessions only', async () => {
      const live = await WebClient.signedIn(w, alice);
      const gone = await WebClient.signedIn(w, alice);
      const hash = (v: string) => crypto.createHash('sha256').update(v).digest('hex');
      expect(await count(w.server, 'SELECT COUNT(*) AS n FROM web_session WHERE id = $1', [live.session])).to.equal(0);
      expect(await count(w.server, 'SELECT COUNT(*) AS n FROM web_session WHERE id = $1', [hash(live.session!)])).to.equal(1);
      await sql(w.server, 'UPDATE web_session SET expiry = 1 WHERE id = $1', [hash(gone.session!)]);
      expect((await gone.get('')).text).not.to.include('Welcome');
      expect((await w.raw('POST', '/admin/cron/cleanup_sessions', undefined, { token: w.admin.token })).status).to.equal(204);
      expect(await count(w.server, 'SELECT COUNT(*) AS n FROM web_session WHERE id = $1', [hash(gone.session!)])).to.equal(0);
      expect((await live.get('')).text).to.include('Welcome, alice');
    });

    it('keeps redirect_to on the forge (security class 17)', async () => {
      const root = w.server.url;
      for (const evil of ['//evil.com', '/\\evil.com', '/%5Cevil.com', '/a/../\\evil.com', 'https:evil.com', 'javascript:alert(1)', 'https://evil.com/', '/%2F%2Fevil.com', '/\t/evil.com']) {
        const web = new WebClient(w);
        await web.get(`user/login?redirect_to=${encodeURIComponent(evil)}`);
        const res = await web.form('user/login', { user_name: 'alice', password: alice.password, redirect_to: evil });
        expect(res.status, evil).to.equal(303);
        expect(res.location, evil).to.equal(root);
      }
      const web = new WebClient(w);
      const page = await web.get(`user/login?redirect_to=${encodeURIComponent('/user/settings/security')}`);
      expect(page.text).to.include('name="redirect_to" value="/user/settings/security"');
      const res = await web.form('user/login', { user_name: 'alice', password: alice.password, redirect_to: '/user/settings/security' });
      expect(res.location).to.equal('/user/settings/security');
      // why: a settings page asked for while signed out comes back after sign-in.
      const anon = new WebClient(w);
      const bounce = await anon.get('user/settings/security');
      expect(bounce.status).to.equal(303);
      expect(bounce.location).to.equal(`${root}user/login?redirect_to=%2Fuser%2Fsettings%2Fsecurity`);
    });
  });

  describe('TOTP', () => {
    let bob: TestUser;
    let web: WebClient;
    let secret = '';
    let scratch = '';

    before(async () => {
      bob = await w.user('bob');
      await apiRepo(w, bob, 'code', { auto_init: true, private: true });
      web = await WebClient.signedIn(w, bob);
    });

    it('enrols only with a right first code', async () => {
      const page = await web.get('user/settings/security/two_factor/enroll');
      const s = /class="totp-secret">([A-Z2-7]+)</.exec(page.text)![1];
      const wrong = await web.form('user/settings/security/two_factor/enroll', { passcode: code(s, 10) });
      expect(wrong.status).to.equal(422);
      expect(wrong.text).to.include('Passcode incorrect');
      expect((await w.raw('GET', '/user', undefined, { basic: ['bob', bob.password] })).status).to.equal(200);
      ({ secret, scratch } = await enrol(web));
      expect((await web.get('user/settings/security')).text).to.include('Two-factor authentication is <strong>enabled</strong>');
    });

    it('password Basic auth on the API needs X-Gitea-OTP; a token does not (class 15)', async () => {
      const none = await w.raw('GET', '/user', undefined, { basic: ['bob', bob.password] });
      expect(none.status).to.equal(401);
      expect(none.body.message).to.equal('invalid provided OTP');
      const wrong = await w.raw('GET', '/user', undefined, { basic: ['bob', bob.password], headers: { 'X-Gitea-OTP': '000000' === code(secret) ? '111111' : '000000' } });
      expect(wrong.status).to.equal(401);
      const right = await w.raw('GET', '/user', undefined, { basic: ['bob', bob.password], headers: { 'X-Gitea-OTP': code(secret) } });
      expect(right.status).to.equal(200);
      expect(right.body.login).to.equal('bob');
      // why: minting a token with the password needs the code too.
      const mint = await w.raw('POST', '/users/bob/tokens', { name: 'no-otp', scopes: ['all'] }, { basic: ['bob', bob.password] });
      expect(mint.status).to.equal(401);
      expect((await bob.api.user.userGetCurrent()).data.login).to.equal('bob');
    });

    it('git over HTTP refuses the password and takes a token', async () => {
      const host = new URL(w.server.url).host;
      const pw = await g.run(['clone', '-q', `http://bob:${encodeURIComponent(bob.password)}@${host}/bob/code.git`, `${g.tmp}/pw`]);
      expect(pw.code).to.not.equal(0);
      expect(pw.stderr).to.match(/Authentication failed|error: 401|two-factor/i);
      await g.clone(bob, 'bob', 'code');
    });

    it('sign-in asks for the passcode; a wrong one and a used one are refused', async () => {
      const c = new WebClient(w);
      await c.get('user/login');
      const first = await c.form('user/login', { user_name: 'bob', password: bob.password });
      expect(first.status).to.equal(303);
      expect(first.location).to.equal(`${w.server.url}user/two_factor`);
      // why: the password alone signs nothing in.
      expect((await c.get('')).text).not.to.include('Welcome');
      expect((await c.get('user/settings/security')).status).to.equal(303);
      const page = await c.get('user/two_factor');
      expect(page.status).to.equal(200);
      const bad = await c.form('user/two_factor', { passcode: code(secret, 20) });
      expect(bad.status).to.equal(422);
      const now = code(secret);
      const ok = await c.form('user/two_factor', { passcode: now });
      expect(ok.status).to.equal(303);
      expect((await c.get('')).text).to.include('Welcome, bob');
      const replay = new WebClient(w);
      const again = await replay.signIn('bob', bob.password, () => now);
      expect(again.status).to.equal(422);
    });

    it('the scratch code signs in once and is replaced', async () => {
      const c = await WebClient.signedIn(w, bob);
      await c.get('user/two_factor');
      const res = await c.form('user/two_factor/scratch', { token: scratch });
      expect(res.status).to.equal(303);
      expect(res.location).to.equal(`${w.server.url}user/settings/security`);
      expect((await c.get('user/settings/security')).text).to.include('Your scratch code has been used');
      const d = await WebClient.signedIn(w, bob);
      await d.get('user/two_factor');
      expect((await d.form('user/two_factor/scratch', { token: scratch })).status).to.equal(422);
    });

    it('wrong second factors count against the account from any address: then 429, even before the password', async () => {
      const tina = await w.user('tina');
      const { secret: tinaSecret } = await enrol(await WebClient.signedIn(w, tina));
      // why: each attempt from its own address (the test server trusts its loopback proxy), so only the account's count can refuse.
      const attempt = async (address: string, passcode: string) => {
        const c = new WebClient(w);
        const headers = { 'X-Forwarded-For': address };
        const send = (p: string, fields: Record<string, string>) => c.request('POST', p, {
          body: new URLSearchParams({ ...fields, _csrf: c.csrf }).toString(),
          headers: { ...headers, 'Content-Type': 'application/x-www-form-urlencoded', Origin: new URL(w.server.rootUrl).origin },
        });
        await c.request('GET', 'user/login', { headers });
        const pw = await send('user/login', { user_name: 'tina', password: tina.password });
        if (pw.status !== 303) return pw.status;
        await c.request('GET', 'user/two_factor', { headers });
        return (await send('user/two_factor', { passcode })).status;
      };
      const wrong = code(tinaSecret, 40);
      for (let i = 0; i < 10; i++) expect(await attempt(`203.0.113.${100 + i}`, wrong), `attempt ${i}`).to.equal(422);
      expect(await attempt('203.0.113.200', code(tinaSecret))).to.equal(429);
      expect((await w.raw('GET', '/user', undefined, { basic: ['tina', tina.password], headers: { 'X-Forwarded-For': '203.0.113.201', 'X-Gitea-OTP': code(tinaSecret) } })).status).to.equal(429);
      expect((await w.raw('GET', '/user', undefined, { token: tina.token })).status).to.equal(200);
    });

    it('disabling needs the password; then the password works alone again', async () => {
      await web.get('user/settings/security');
      const wrong = await web.form('user/settings/security/two_factor/disable', { password: 'not-it' });
      expect(wrong.status).to.equal(303);
      expect((await web.get('user/settings/security')).text).to.include('The password is not correct.');
      expect((await w.raw('GET', '/user', undefined, { basic: ['bob', bob.password] })).status).to.equal(401);
      const ok = await web.form('user/settings/security/two_factor/disable', { password: bob.password });
      expect(ok.status).to.equal(303);
      expect((await w.raw('GET', '/user', undefined, { basic: ['bob', bob.password] })).status).to.equal(200);
    });
  });

  describe('proxy headers (security class 24)', () => {
    it('X-WEBAUTH-USER signs nobody in while reverse-proxy authentication is off', async () => {
      const web = new WebClient(w);
      const res = await web.request('GET', '', { headers: { 'X-WEBAUTH-USER': 'alice' } });
      expect(res.text).not.to.include('Welcome');
      expect(web.session).to.equal(undefined);
    });

    it('only a configured proxy is believed: its X-WEBAUTH-USER signs in, its X-Forwarded-For names the client', async () => {
      const env = { FORGE__SERVICE__ENABLE_REVERSE_PROXY_AUTHENTICATION: 'true', FORGE__SECURITY__LOGIN_MAX_FAILURES: '3' };
      const far = await startWorld({ env: { ...env, FORGE__SECURITY__REVERSE_PROXY_TRUSTED_PROXIES: '10.0.0.0/8' } });
      const near = await startWorld({ env });
      try {
        await far.user('alice');
        const ignored = new WebClient(far);
        expect((await ignored.request('GET', '', { headers: { 'X-WEBAUTH-USER': 'alice' } })).text).not.to.include('Welcome');
        expect(ignored.session).to.equal(undefined);
        // why: failures of one account from "different" clients; then another account. From a peer that is
        // no proxy, X-Forwarded-For is not believed: all came from one address, which is now locked out.
        const failThenOther = async (x: World) => {
          for (let i = 0; i < 4; i++) await x.raw('GET', '/user', undefined, { basic: ['alice', 'wrong'], headers: { 'X-Forwarded-For': `203.0.113.${i}` } });
          return (await x.raw('GET', '/user', undefined, { basic: ['root', 'wrong'], headers: { 'X-Forwarded-For': '198.51.100.7' } })).status;
        };
        expect(await failThenOther(far)).to.equal(429);

        await near.user('alice');
        const vouched = new WebClient(near);
        expect((await vouched.request('GET', '', { headers: { 'X-WEBAUTH-USER': 'alice' } })).text).to.include('Welcome, alice');
        expect(vouched.session).to.be.a('string');
        expect((await new WebClient(near).request('GET', '', { headers: { 'X-WEBAUTH-USER': 'nobody' } })).text).not.to.include('Welcome');
        // why: behind a trusted proxy each client address counts apart, so those failures lock out no other client.
        expect(await failThenOther(near)).to.equal(401);
      } finally {
        await far.stop();
        await near.stop();
      }
    });
  });

  describe('[security] TWO_FACTOR_AUTH = enforced', () => {
    let e: World;
    let carol: TestUser;
    before(async () => {
      e = await startWorld({ env: { FORGE__SECURITY__TWO_FACTOR_AUTH: 'enforced' } });
      carol = await e.user('carol');
      const root = await e.raw('POST', '/user/repos', { name: 'pub', auto_init: true }, { token: e.admin.token });
      expect(root.status, root.text).to.equal(201);
    });
    after(async () => { await e?.stop(); });

    it('a user without a second factor signs in and browses, but reaches no repository until enrolled', async () => {
      const web = new WebClient(e);
      const res = await web.signIn('carol', carol.password);
      expect(res.status).to.equal(303);
      const home = await web.get('');
      expect(home.text).to.include('requires two-factor authentication').and.include('/user/settings/security');
      const api = await e.raw('GET', '/repos/root/pub', undefined, { token: carol.token });
      expect(api.status).to.equal(403);
      expect(api.body.message).to.include('two-factor authentication is required').and.include(`${e.server.url}user/settings/security`);
      // why: a private repository, so git sends its credentials (a public one it clones anonymously).
      expect((await e.raw('POST', '/user/repos', { name: 'own', auto_init: true, private: true }, { token: carol.token })).status).to.equal(201);
      const tg = new GitTool(e);
      const clone = await tg.run(['clone', '-q', tg.url(carol, 'carol', 'own'), `${tg.tmp}/x`]);
      expect(clone.code).to.not.equal(0);
      expect(clone.stderr).to.match(/403|two-factor/);
      // why: anonymous readers of a public repository are not users to enrol.
      expect((await e.raw('GET', '/repos/root/pub')).status).to.equal(200);

      await enrol(web);
      expect((await e.raw('GET', '/repos/root/pub', undefined, { token: carol.token })).status).to.equal(200);
      await tg.clone(carol, 'carol', 'own');
    });
  });
});
