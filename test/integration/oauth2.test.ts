/**
 * The forge as an OAuth2 / OpenID Connect provider, against one server: openid-client (a certified
 * relying party) runs discovery and the code flow with PKCE through Chromium's consent page, checks
 * the ID token's signature against the JWKS, reads userinfo and refreshes; the access token then
 * clones a private repository over HTTP and calls the API as Bearer. Hostile input is refused with
 * RFC 6749's error body and issues nothing: a foreign redirect URI (a page, no redirect), a replayed
 * code, another client's code, a wrong PKCE verifier, a refresh token used twice (its grant then
 * revoked, the newer token dead too), a public client without PKCE, a narrower token scope on a
 * write route, and a revoked grant's tokens (refused at once by every worker). The five application
 * API operations go through gitea-js, with their refusals.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect } from 'chai';
import * as client from 'openid-client';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import type { Browser } from 'playwright-core';
import { startWorld, type World, type TestUser } from '../helpers/world';
import { WebClient } from '../helpers/web';
import { launchBrowser, look, screenshot, watchedPage, type WatchedPage } from '../helpers/browser';
import { sql } from '../helpers/db';

const run = promisify(execFile);

/** A token endpoint answer. */
interface TokenAnswer { status: number; body: Record<string, string> }

/** A GET on a connection of its own (so a server's workers take turns answering). */
function freshGet(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers, agent: false }, (res) => { res.resume(); res.on('end', () => resolve(res.statusCode ?? 0)); });
    req.on('error', reject);
  });
}

describe('OAuth2 and OpenID Connect provider', function () {
  this.timeout(120_000);
  let w: World;
  let alice: TestUser;
  let bob: TestUser;
  let callback: http.Server;
  let cbUrl: string;
  let web: WebClient;
  let ci: { id: number; client_id: string; client_secret: string };
  let browser: Browser;
  let wp: WatchedPage;
  /** The tokens openid-client obtained (after its refresh). */
  let tokens: { access: string; refresh: string };
  const root = () => w.server.rootUrl;

  const tokenCall = async (fields: Record<string, string>, basic?: [string, string]): Promise<TokenAnswer> => {
    const headers: Record<string, string> = { 'Content-Type': 'application/x-www-form-urlencoded' };
    if (basic) headers.Authorization = `Basic ${Buffer.from(`${basic[0]}:${basic[1]}`).toString('base64')}`;
    const res = await fetch(`${root()}login/oauth/access_token`, { method: 'POST', headers, body: new URLSearchParams(fields) });
    return { status: res.status, body: await res.json() as Record<string, string> };
  };
  const expectRefused = (r: TokenAnswer, error: string, description: string) => {
    expect(r.status, JSON.stringify(r.body)).to.equal(400);
    expect(r.body).to.deep.equal({ error, error_description: description });
  };
  const counterOf = async (clientId: string): Promise<number | null> => {
    const rows = await sql(w.server, 'SELECT g.counter FROM oauth2_grant g JOIN oauth2_application a ON a.id = g.application_id WHERE a.client_id = $1', [clientId]);
    return rows.length ? Number(rows[0].counter) : null;
  };
  const createApp = async (u: TestUser, body: Record<string, unknown>) => {
    const r = await u.api.user.userCreateOAuth2Application(body as never);
    expect(r.status).to.equal(201);
    return r.data as { id: number; client_id: string; client_secret: string; confidential_client: boolean };
  };
  /** A code for `app` by alice's browser session (through the consent page when it is shown). */
  const codeFor = async (app: { client_id: string }, o: { scope?: string; challenge?: string; method?: string; redirect?: string; state?: string } = {}) => {
    const q = new URLSearchParams({ client_id: app.client_id, redirect_uri: o.redirect ?? cbUrl, response_type: 'code', scope: o.scope ?? 'openid', state: o.state ?? 'st' });
    if (o.challenge) { q.set('code_challenge', o.challenge); q.set('code_challenge_method', o.method ?? 'S256'); }
    let r = await web.get(`login/oauth/authorize?${q}`);
    if (r.status === 200) {
      r = await web.form('login/oauth/grant', { client_id: app.client_id, state: o.state ?? 'st', scope: o.scope ?? 'openid', nonce: '', redirect_uri: o.redirect ?? cbUrl, granted: 'true' });
    }
    expect(r.status, r.text).to.equal(303);
    const code = new URL(r.location!).searchParams.get('code');
    expect(code, r.location!).to.match(/^gta_[a-z2-7]{52}$/);
    return code!;
  };
  const verifier = 'v'.repeat(50);
  const challenge = () => client.calculatePKCECodeChallenge(verifier);

  before(async () => {
    callback = http.createServer((_req, res) => { res.writeHead(200, { 'Content-Type': 'text/plain' }); res.end('signed in'); });
    await new Promise<void>((resolve) => callback.listen(0, '127.0.0.1', resolve));
    cbUrl = `http://127.0.0.1:${(callback.address() as AddressInfo).port}/callback`;
    w = await startWorld();
    alice = await w.user('alice', { full_name: 'Alice Liddell' });
    bob = await w.user('bob');
    expect((await w.raw('POST', '/user/repos', { name: 'secret', private: true, auto_init: true }, { token: alice.token })).status).to.equal(201);
    expect((await w.raw('POST', '/orgs', { username: 'acme', visibility: 'private' }, { token: alice.token })).status).to.equal(201);
    web = await WebClient.signedIn(w, alice);
    browser = await launchBrowser();
    wp = await watchedPage(browser);
  });
  after(async () => {
    await browser?.close();
    await w?.stop();
    await new Promise((resolve) => callback?.close(resolve));
  });
  afterEach(function () {
    expect(wp.problems, this.currentTest?.title).to.deep.equal([]);
  });

  it('manages applications through the API (gitea-js), with its refusals', async () => {
    const made = await createApp(alice, { name: 'CI', redirect_uris: [cbUrl], confidential_client: true });
    expect(made).to.include({ name: 'CI', confidential_client: true, skip_secondary_authorization: false });
    expect(made.client_id).to.match(/^[0-9a-f-]{36}$/);
    expect(made.client_secret).to.match(/^gto_[a-z2-7]{52}$/);
    // the secret is stored as its SHA-256 only
    const [row] = await sql(w.server, 'SELECT client_secret FROM oauth2_application WHERE id = $1', [made.id]);
    expect(row.client_secret).to.match(/^sha256\$[0-9a-f]{64}$/).and.not.include(made.client_secret);

    const list = await alice.api.user.userGetOauth2Application();
    expect(list.data.map((a) => [a.id, a.client_secret])).to.deep.equal([[made.id, '']]);
    expect(list.headers.get('x-total-count')).to.equal('1');
    const got = await alice.api.user.userGetOAuth2Application(made.id);
    expect(got.data).to.include({ id: made.id, client_secret: '', name: 'CI' });
    expect(got.data.redirect_uris).to.deep.equal([cbUrl]);

    // PATCH changes the fields and makes a new secret, as Gitea; the old one no longer authenticates the client
    const patched = await alice.api.user.userUpdateOAuth2Application(made.id, { name: 'Woodpecker', redirect_uris: [cbUrl], confidential_client: true });
    expect(patched.data.name).to.equal('Woodpecker');
    expect(patched.data.client_secret).to.match(/^gto_/).and.not.equal(made.client_secret);
    const introspect = (secret: string) => fetch(`${root()}login/oauth/introspect`, {
      method: 'POST', body: new URLSearchParams({ token: 'x' }), headers: { Authorization: `Basic ${Buffer.from(`${made.client_id}:${secret}`).toString('base64')}` },
    });
    expect((await introspect(made.client_secret)).status).to.equal(401);
    expect(await (await introspect(patched.data.client_secret!)).json()).to.deep.equal({ active: false });
    ci = { id: made.id, client_id: made.client_id, client_secret: patched.data.client_secret! };

    // refusals change nothing
    const before = JSON.stringify((await alice.api.user.userGetOAuth2Application(made.id)).data);
    for (const [body, message] of [
      [{ name: '', redirect_uris: [cbUrl] }, '[Name]: Required'],
      [{ name: 'x', redirect_uris: [] }, '[RedirectURIs]: Required'],
      [{ name: 'x', redirect_uris: ['javascript:alert(1)'] }, '[RedirectURIs]: "javascript:alert(1)" uses the javascript: scheme'],
      [{ name: 'x', redirect_uris: ['/relative'] }, '[RedirectURIs]: "/relative" is not an absolute URL'],
      [{ name: 'x', redirect_uris: ['https://a.example/cb#frag'] }, '[RedirectURIs]: "https://a.example/cb#frag" has a fragment'],
    ] as const) {
      const c = await w.raw('POST', '/user/applications/oauth2', body, { token: alice.token });
      expect([c.status, c.body.message], JSON.stringify(body)).to.deep.equal([422, message]);
      const p = await w.raw('PATCH', `/user/applications/oauth2/${made.id}`, body, { token: alice.token });
      expect(p.status).to.equal(422);
    }
    for (const [method, body] of [['GET', undefined], ['PATCH', { name: 'mine', redirect_uris: ['https://bob.example/cb'] }], ['DELETE', undefined]] as const) {
      const r = await w.raw(method, `/user/applications/oauth2/${made.id}`, body, { token: bob.token });
      expect(r.status, method).to.equal(404);
    }
    expect(JSON.stringify((await alice.api.user.userGetOAuth2Application(made.id)).data)).to.equal(before);
    expect((await alice.api.user.userGetOauth2Application()).data).to.have.length(1);
    expect((await bob.api.user.userGetOauth2Application()).data).to.deep.equal([]);

    const gone = await createApp(bob, { name: 'tmp', redirect_uris: ['https://tmp.example/cb'] });
    expect(gone.confidential_client).to.equal(false);
    expect((await bob.api.user.userDeleteOAuth2Application(gone.id)).status).to.equal(204);
    expect((await w.raw('GET', `/user/applications/oauth2/${gone.id}`, undefined, { token: bob.token })).status).to.equal(404);
  });

  it('signs in with openid-client: discovery, code flow with PKCE through the consent page, ID token, userinfo, refresh', async () => {
    const config = await client.discovery(new URL(root()), ci.client_id, ci.client_secret, undefined, { execute: [client.allowInsecureRequests] });
    client.enableNonRepudiationChecks(config);
    expect(config.serverMetadata()).to.include({ issuer: root(), token_endpoint: `${root()}login/oauth/access_token`, jwks_uri: `${root()}login/oauth/keys` });
    const pkce = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const nonce = client.randomNonce();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: cbUrl, scope: 'openid profile email groups', code_challenge: await client.calculatePKCECodeChallenge(pkce), code_challenge_method: 'S256', state, nonce,
    });

    // a visitor signs in first and comes back to the consent page
    const { page } = wp;
    await page.goto(url.toString());
    await page.waitForURL(/\/user\/login\?redirect_to=/);
    await page.fill('input[name=user_name]', alice.name);
    await page.fill('input[name=password]', alice.password);
    await page.click('form[action$="/user/login"] button[type=submit]');
    await page.waitForURL(/\/login\/oauth\/authorize\?/);
    const consent = page.locator('section.oauth2-grant');
    expect(await consent.locator('h1').textContent()).to.equal('Authorize “Woodpecker” to access your account?');
    const text = (await consent.textContent())!.replace(/\s+/g, ' ');
    expect(text).to.include('This application was created by @alice.').and.include('With scopes: openid profile email groups')
      .and.include(`You will be redirected to ${new URL(cbUrl).host} if you authorize this application:`).and.include(cbUrl).and.include('including private repositories');
    await screenshot(page, 'oauth2-consent');
    await look(page, 'oauth2-consent');
    await Promise.all([page.waitForURL((u) => u.toString().startsWith(cbUrl)), page.click('#authorize-app')]);
    const back = new URL(page.url());
    expect(back.searchParams.get('state')).to.equal(state);

    const got = await client.authorizationCodeGrant(config, back, { pkceCodeVerifier: pkce, expectedState: state, expectedNonce: nonce });
    expect(got.token_type).to.equal('bearer');
    expect(got.expires_in).to.equal(3600);
    const claims = got.claims()!;
    expect(claims).to.include({ iss: root(), sub: String(alice.id), nonce, name: 'Alice Liddell', preferred_username: 'alice', email: 'alice@example.com', email_verified: true });
    expect(claims.aud).to.deep.equal([ci.client_id]);
    expect(claims.groups).to.deep.equal(['acme', 'acme:owners']);
    expect(claims.picture).to.be.a('string').and.match(/^http/);
    // the ID token verifies against the published key set, on its own too
    const jwks = createRemoteJWKSet(new URL(`${root()}login/oauth/keys`));
    const verified = await jwtVerify(got.id_token!, jwks, { issuer: root(), audience: ci.client_id });
    expect(verified.protectedHeader.alg).to.equal('RS256');

    const info = await client.fetchUserInfo(config, got.access_token, claims.sub);
    expect(info).to.deep.equal({ sub: String(alice.id), name: 'Alice Liddell', preferred_username: 'alice', email: 'alice@example.com', picture: claims.picture, groups: ['acme', 'acme:owners'] });

    const refreshed = await client.refreshTokenGrant(config, got.refresh_token!);
    expect(refreshed.access_token).to.be.a('string').and.not.equal(got.access_token);
    expect(refreshed.claims()!.sub).to.equal(String(alice.id));
    tokens = { access: refreshed.access_token, refresh: refreshed.refresh_token! };

    // a confidential client asking again for the same scope skips the consent page
    await Promise.all([page.waitForURL((u) => u.toString().startsWith(cbUrl)), page.goto(url.toString())]);
    expect(new URL(page.url()).searchParams.get('code')).to.match(/^gta_/);
  });

  it('takes the access token for git over HTTP and for the API (Bearer, token, Basic)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'oauth2-clone-'));
    const remote = new URL(`${w.server.url}alice/secret.git`);
    remote.username = 'oauth2';
    remote.password = tokens.access;
    await run('git', ['clone', '-q', remote.toString(), dir], { env: { ...process.env, GIT_TERMINAL_PROMPT: '0' } });
    expect(fs.readdirSync(dir)).to.include('README.md');
    for (const auth of [`Bearer ${tokens.access}`, `token ${tokens.access}`, `Basic ${Buffer.from(`${tokens.access}:x-oauth-basic`).toString('base64')}`]) {
      const me = await w.raw('GET', '/user', undefined, { headers: { Authorization: auth } });
      expect([me.status, me.body.login], auth.slice(0, 6)).to.deep.equal([200, 'alice']);
    }
    const repo = await w.raw('GET', '/repos/alice/secret', undefined, { headers: { Authorization: `Bearer ${tokens.access}` } });
    expect([repo.status, repo.body.private]).to.deep.equal([200, true]);
    // a refresh token is no access token, and a forged one is nothing
    for (const bad of [tokens.refresh, `${tokens.access.slice(0, -4)}AAAA`]) {
      expect((await w.raw('GET', '/user', undefined, { headers: { Authorization: `Bearer ${bad}` } })).status).to.equal(401);
    }
  });

  it('refuses a foreign redirect URI with a page, never a redirect', async () => {
    for (const redirect of ['https://evil.example/callback', cbUrl.replace(/:\d+\//, ':1/')]) {
      const q = new URLSearchParams({ client_id: ci.client_id, redirect_uri: redirect, response_type: 'code', state: 's' });
      const r = await web.get(`login/oauth/authorize?${q}`);
      expect([r.status, r.location]).to.deep.equal([400, null]);
      expect(r.text).to.include('Unregistered Redirect URI');
    }
    const unknown = await web.get(`login/oauth/authorize?${new URLSearchParams({ client_id: 'nope', redirect_uri: cbUrl, response_type: 'code' })}`);
    expect([unknown.status, unknown.location]).to.deep.equal([400, null]);
    expect(unknown.text).to.include('Client ID not registered');
    // a bad response type goes back to the client, with the state
    const r = await web.get(`login/oauth/authorize?${new URLSearchParams({ client_id: ci.client_id, redirect_uri: cbUrl, response_type: 'token', state: 's&1' })}`);
    expect(r.status).to.equal(303);
    expect(Object.fromEntries(new URL(r.location!).searchParams)).to.deep.equal({ error: 'unsupported_response_type', error_description: 'Only code response type is supported.', state: 's&1' });
  });

  it('refuses a replayed code, another client\'s code and a wrong PKCE verifier, issuing nothing', async () => {
    const creds = { client_id: ci.client_id, client_secret: ci.client_secret };
    const other = await createApp(alice, { name: 'Other', redirect_uris: [cbUrl], confidential_client: true });
    const code = await codeFor(ci, { challenge: await challenge() });
    const counter = await counterOf(ci.client_id);
    const exchange = { grant_type: 'authorization_code', code, redirect_uri: cbUrl, code_verifier: verifier };
    expectRefused(await tokenCall({ ...exchange, client_id: other.client_id, client_secret: other.client_secret }), 'invalid_grant', 'invalid grant');
    expectRefused(await tokenCall({ ...exchange, ...creds, code_verifier: 'w'.repeat(50) }), 'unauthorized_client', 'failed PKCE code challenge');
    expectRefused(await tokenCall({ ...exchange, ...creds, client_secret: 'gto_wrong' }), 'unauthorized_client', 'invalid client secret');
    expectRefused(await tokenCall({ ...exchange, ...creds, redirect_uri: 'https://evil.example/cb' }), 'unauthorized_client', 'unexpected redirect URI');
    expect(await counterOf(ci.client_id)).to.equal(counter);
    // the code still works once for its own client (client authentication by HTTP Basic), then never again
    const ok = await tokenCall(exchange, [ci.client_id, ci.client_secret]);
    expect(ok.status).to.equal(200);
    expect(ok.body).to.have.keys('access_token', 'token_type', 'expires_in', 'refresh_token', 'id_token');
    expectRefused(await tokenCall(exchange, [ci.client_id, ci.client_secret]), 'unauthorized_client', 'client is not authorized');
    expect(await counterOf(ci.client_id)).to.equal(counter! + 1);
    expectRefused(await tokenCall({ grant_type: 'password', ...creds }), 'unsupported_grant_type', 'Only refresh_token or authorization_code grant type is supported');
  });

  it('revokes the whole grant when a refresh token is used twice', async () => {
    const app = await createApp(alice, { name: 'Rotating', redirect_uris: [cbUrl], confidential_client: true });
    const creds = { client_id: app.client_id, client_secret: app.client_secret };
    const first = await tokenCall({ grant_type: 'authorization_code', code: await codeFor(app), redirect_uri: cbUrl, ...creds });
    const second = await tokenCall({ grant_type: 'refresh_token', refresh_token: first.body.refresh_token, ...creds });
    expect(second.status).to.equal(200);
    const newest = second.body;
    expect((await w.raw('GET', '/user', undefined, { headers: { Authorization: `Bearer ${newest.access_token}` } })).status).to.equal(200);
    expectRefused(await tokenCall({ grant_type: 'refresh_token', refresh_token: first.body.refresh_token, ...creds }), 'unauthorized_client', 'token was already used');
    expect(await counterOf(app.client_id)).to.equal(null);
    expectRefused(await tokenCall({ grant_type: 'refresh_token', refresh_token: newest.refresh_token, ...creds }), 'invalid_grant', 'grant does not exist');
    expect((await w.raw('GET', '/user', undefined, { headers: { Authorization: `Bearer ${newest.access_token}` } })).status).to.equal(401);
  });

  it('asks a public client for PKCE, and takes a loopback redirect on any port', async () => {
    const pub = await createApp(alice, { name: 'Desktop', redirect_uris: ['http://127.0.0.1/callback'], confidential_client: false });
    const q = new URLSearchParams({ client_id: pub.client_id, redirect_uri: cbUrl, response_type: 'code', scope: 'openid', state: 'p1' });
    const r = await web.get(`login/oauth/authorize?${q}`);
    expect(r.status).to.equal(303);
    const to = new URL(r.location!);
    expect(`${to.origin}${to.pathname}`).to.equal(cbUrl);
    expect(Object.fromEntries(to.searchParams)).to.deep.equal({ error: 'invalid_request', error_description: 'PKCE is required for public clients', state: 'p1' });
    expect(await counterOf(pub.client_id)).to.equal(null);
    // with PKCE it is asked (a public client always is), and exchanges without a secret
    const code = await codeFor(pub, { challenge: await challenge() });
    expectRefused(await tokenCall({ grant_type: 'authorization_code', code, redirect_uri: cbUrl, client_id: pub.client_id }), 'unauthorized_client', 'failed PKCE code challenge');
    const ok = await tokenCall({ grant_type: 'authorization_code', code, redirect_uri: cbUrl, client_id: pub.client_id, code_verifier: verifier });
    expect(ok.status, JSON.stringify(ok.body)).to.equal(200);
  });

  it('holds a token to its grant\'s narrower scope: read:repository cannot write', async () => {
    const app = await createApp(alice, { name: 'Reader', redirect_uris: [cbUrl], confidential_client: true });
    const code = await codeFor(app, { scope: 'openid read:repository' });
    const got = await tokenCall({ grant_type: 'authorization_code', code, redirect_uri: cbUrl, client_id: app.client_id, client_secret: app.client_secret });
    const bearer = { headers: { Authorization: `Bearer ${got.body.access_token}` } };
    expect((await w.raw('GET', '/repos/alice/secret', undefined, bearer)).status).to.equal(200);
    const write = await w.raw('PATCH', '/repos/alice/secret', { description: 'changed' }, bearer);
    expect(write.status).to.equal(403);
    expect(write.body.message).to.match(/required=\[write:repository\]/);
    expect((await w.raw('GET', '/user/repos', undefined, bearer)).status).to.equal(403);
    expect((await w.raw('GET', '/repos/alice/secret', undefined, { token: alice.token })).body.description).to.equal('');
  });

  it('lists grants on the settings page; revoking one refuses its tokens at once, on every worker', async () => {
    const bearer = { Authorization: `Bearer ${tokens.access}` };
    const { page } = wp;
    await page.goto(`${root()}user/settings/applications`);
    await look(page, 'oauth2-settings-applications');
    const grant = page.locator('li.oauth2-grant', { hasText: 'Woodpecker' });
    expect(await grant.count()).to.equal(1);
    expect(await page.locator('li.oauth2-app .oauth2-app-name').allTextContents()).to.include.members(['Woodpecker', 'Other', 'Reader', 'Desktop']);
    // why: connections of their own reach every worker, so each has the grant cached right before the revocation
    for (let i = 0; i < 6; i++) expect(await freshGet(`${w.server.api}/user`, bearer)).to.equal(200);
    await Promise.all([page.waitForURL(`${root()}user/settings/applications`), grant.locator('button', { hasText: 'Revoke' }).click()]);
    expect(await page.locator('.flash').first().textContent()).to.include('revoked');
    for (let i = 0; i < 6; i++) expect(await freshGet(`${w.server.api}/user`, bearer)).to.equal(401);
    expect((await fetch(`${root()}login/oauth/userinfo`, { headers: bearer })).status).to.equal(401);
    expectRefused(await tokenCall({ grant_type: 'refresh_token', refresh_token: tokens.refresh, client_id: ci.client_id, client_secret: ci.client_secret }), 'invalid_grant', 'grant does not exist');
    const remote = new URL(`${w.server.url}alice/secret.git`);
    remote.username = 'oauth2';
    remote.password = tokens.access;
    let refused = false;
    await run('git', ['ls-remote', remote.toString()], { env: { ...process.env, GIT_TERMINAL_PROMPT: '0' } }).catch(() => { refused = true; });
    expect(refused).to.equal(true);
    // the application itself stays, and its page shows the client id
    await Promise.all([page.waitForURL(`${root()}user/settings/applications/oauth2/${ci.id}`), page.locator('li.oauth2-app', { hasText: 'Woodpecker' }).locator('a', { hasText: 'Edit' }).click()]);
    expect(await page.locator('code.client-id').textContent()).to.equal(ci.client_id);
    await look(page, 'oauth2-edit-application');
  });

  it('serves the site\'s applications to administrators at /admin/applications', async () => {
    const admin = await WebClient.signedIn(w, w.admin);
    expect((await admin.get('admin/applications')).status).to.equal(200);
    const made = await admin.form('admin/applications/oauth2', { application_name: 'Grafana', redirect_uris: 'https://grafana.example/login/generic_oauth', confidential_client: 'on' });
    expect(made.status).to.equal(303);
    const edit = await admin.get(new URL(made.location!).pathname);
    expect(edit.text).to.include('Grafana').and.match(/class="client-id">[0-9a-f-]{36}</);
    const [row] = await sql(w.server, "SELECT uid FROM oauth2_application WHERE name = 'Grafana'");
    expect(Number(row.uid)).to.equal(0);
    expect((await web.get('admin/applications')).status).to.equal(404);
    expect((await web.get(new URL(made.location!).pathname)).status).to.equal(404);
  });
});
