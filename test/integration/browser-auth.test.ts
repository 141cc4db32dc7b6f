/**
 * The sign-in pages in a real browser (Debian's Chromium through playwright-core): sign-up,
 * sign-in, TOTP enrolment and sign-in with codes computed by otpauth, a security key registered and
 * used through Chrome's virtual WebAuthn authenticator, sign-out, the repository pages; XSS payloads
 * in the text fields and a repository's description, commits and files never run (any dialog, page error or console error fails the test). Screenshots are kept as
 * test artifacts.
 */
import { expect } from 'chai';
import * as OTPAuth from 'otpauth';
import type { Browser, Page } from 'playwright-core';
import { startWorld, type World } from '../helpers/world';
import { launchBrowser, screenshot, watchedPage, type WatchedPage } from '../helpers/browser';

const PAYLOAD = '"><img src=x onerror=alert(1)><script>alert(2)</script>';

function totp(secret: string): string {
  return new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate();
}

describe('sign-in pages in a browser', () => {
  let w: World;
  let browser: Browser;
  let wp: WatchedPage;
  let page: Page;
  const url = (p = '') => `${w.server.rootUrl}${p}`;

  const signIn = async (name: string, password: string) => {
    await page.goto(url('user/login'));
    await page.fill('input[name=user_name]', name);
    await page.fill('input[name=password]', password);
    await page.click('form[action$="/user/login"] button[type=submit]');
  };
  const signOut = async () => {
    await page.click('header summary[aria-label="Your account"]');
    await page.click('header form[action$="/user/logout"] button');
    await page.waitForURL(url());
  };

  before(async () => {
    // why: WebAuthn needs a domain as its relying party; an IP address is refused by the browser.
    w = await startWorld({ rootHost: 'localhost' });
    browser = await launchBrowser();
    wp = await watchedPage(browser);
    page = wp.page;
  });
  after(async () => {
    await browser?.close();
    await w?.stop();
  });
  afterEach(function () {
    // why: whatever the test checked, nothing may have run that the pages did not ship.
    expect(wp.problems, this.currentTest?.title).to.deep.equal([]);
  });

  it('signs up (signed in at once), signs out and in again; payloads in the forms come back as text', async () => {
    await page.goto(url('user/sign_up'));
    await page.fill('input[name=user_name]', PAYLOAD);
    await page.fill('input[name=email]', 'dora@example.com');
    await page.fill('input[name=password]', 'dora-pass-12345');
    await page.fill('input[name=retype]', 'dora-pass-12345');
    await page.click('main button[type=submit]');
    expect(await page.locator('.flash.error').textContent()).to.match(/name/i);
    expect(await page.inputValue('input[name=user_name]')).to.equal(PAYLOAD);

    await page.fill('input[name=user_name]', 'dora');
    await page.fill('input[name=password]', 'dora-pass-12345');
    await page.fill('input[name=retype]', 'dora-pass-12345');
    await page.click('main button[type=submit]');
    // why: as in Gitea, an account that needs no confirmation is signed in at once.
    await page.waitForURL(url());
    expect(await page.locator('main h1').textContent()).to.equal('Welcome, dora');
    await signOut();
    await page.goto(url('user/login'));
    await screenshot(page, 'sign-in');

    await signIn(PAYLOAD, 'whatever');
    expect(await page.locator('.flash.error').textContent()).to.include('Username or password is incorrect.');
    await signIn('dora', 'dora-pass-12345');
    await page.waitForURL(url());
    expect(await page.locator('main h1').textContent()).to.equal('Welcome, dora');
    await screenshot(page, 'dashboard');
  });

  it('enrols TOTP with the code of an authenticator app, then signs in with a passcode', async () => {
    await page.goto(url('user/settings/security'));
    await page.click('a[href$="/two_factor/enroll"]');
    expect(await page.locator('.qr svg').count()).to.equal(1);
    await screenshot(page, 'totp-enrol');
    const secret = (await page.locator('.totp-secret').textContent())!.trim();
    await page.fill('input[name=passcode]', totp(secret));
    await page.click('main button[type=submit]');
    await page.waitForURL(url('user/settings/security'));
    expect(await page.locator('.flash.success').textContent()).to.match(/scratch code is [A-Za-z0-9_-]{10}/);
    await screenshot(page, 'security-settings');

    await signOut();
    await signIn('dora', 'dora-pass-12345');
    await page.waitForURL(url('user/two_factor'));
    await screenshot(page, 'two-factor');
    await page.fill('input[name=passcode]', totp(secret));
    await page.click('form[action$="/user/two_factor"] button[type=submit]');
    await page.waitForURL(url());
    expect(await page.locator('main h1').textContent()).to.equal('Welcome, dora');
  });

  it('registers a security key, signs in with it, and removes it', async () => {
    const cdp = await wp.context.newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: { protocol: 'ctap2', transport: 'usb', hasResidentKey: false, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
    });
    await page.goto(url('user/settings/security'));
    await page.fill('#webauthn-name', `key ${PAYLOAD}`);
    await Promise.all([page.waitForEvent('load'), page.click('#webauthn-register')]);
    await page.locator('.key-name').waitFor();
    expect(await page.locator('.key-name').textContent()).to.equal(`key ${PAYLOAD}`);
    expect((await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials).to.have.length(1);

    await signOut();
    await signIn('dora', 'dora-pass-12345');
    await page.waitForURL(url('user/two_factor'));
    await page.click('#webauthn-signin');
    await page.waitForURL(url());
    expect(await page.locator('main h1').textContent()).to.equal('Welcome, dora');

    await page.goto(url('user/settings/security'));
    await page.click('form[action$="/webauthn/delete"] button');
    await page.waitForURL(url('user/settings/security'));
    expect(await page.locator('.key-name').count()).to.equal(0);
    await cdp.send('WebAuthn.removeVirtualAuthenticator', { authenticatorId });
  });

  it('shows the repository pages with nothing but the forge\'s own script running', async () => {
    const made = await w.raw('POST', '/admin/users/dora/repos', { name: 'demo', auto_init: true, description: PAYLOAD }, { token: w.admin.token });
    expect(made.status, made.text).to.equal(201);
    await w.raw('POST', '/repos/dora/demo/contents/src/main.go', { content: Buffer.from('package main\n\nimport "fmt"\n\nfunc main() {\n\tfmt.Println("<script>alert(3)</script>")\n}\n').toString('base64'), message: PAYLOAD }, { token: w.admin.token });
    await page.goto(url('dora/demo'));
    expect(await page.locator('.description').textContent()).to.equal(PAYLOAD);
    expect(await page.locator('.readme .markup h1').textContent()).to.equal('demo');
    await screenshot(page, 'repo-home');
    await page.click('td.name a:text-is("src")');
    await page.click('td.name a:text-is("main.go")');
    expect(await page.locator('.source .hljs-keyword').first().textContent()).to.equal('package');
    await screenshot(page, 'file-view');
    await page.click('.tabs a:text("Commits")');
    await page.click('.commits a.sha >> nth=0');
    expect(await page.locator('.diff-file').count()).to.equal(1);
    await screenshot(page, 'commit');
    await page.goto(url('explore/repos'));
    await screenshot(page, 'explore');
  });

  it('opens an issue from a template, pins it, and starts and stops the stopwatch', async () => {
    const tpl = '---\nname: Bug report\nabout: Something is broken\ntitle: "[bug] "\n---\n## What happened?\n';
    const put = await w.raw('POST', '/repos/dora/demo/contents/.gitea/ISSUE_TEMPLATE/bug.md', { content: Buffer.from(tpl).toString('base64') }, { token: w.admin.token });
    expect(put.status, put.text).to.equal(201);
    await page.goto(url('dora/demo'));
    await page.click('.tabs a:text("Issues")');
    await page.click('a:text("New issue")');
    await screenshot(page, 'issue-chooser');
    await page.click('a:text("Get started")');
    expect(await page.inputValue('input[name=title]')).to.equal('[bug] ');
    await page.fill('input[name=title]', `[bug] ${PAYLOAD}`);
    await page.fill('textarea[name=content]', `## What happened?\n\n${PAYLOAD}\n\n- [x] **bold** :tada:`);
    await page.click('button[value=preview]');
    expect(await page.locator('.preview strong').textContent()).to.equal('bold');
    await page.click('button[value=create]');
    await page.waitForURL(url('dora/demo/issues/1'));
    expect(await page.locator('.issue-title').first().textContent()).to.include(PAYLOAD);
    await page.click('button.pin');
    await page.waitForURL(url('dora/demo/issues/1'));
    expect(await page.locator('.badge.pinned').count()).to.equal(1);
    await page.click('button.stopwatch-start');
    await page.locator('button.stopwatch-stop').waitFor();
    await page.click('button.stopwatch-stop');
    await page.locator('button.stopwatch-start').waitFor();
    await screenshot(page, 'issue');
    const times = await w.raw('GET', '/repos/dora/demo/issues/1/times', undefined, { token: w.admin.token });
    expect(times.body).to.have.length(1);
  });

  it('opens a pull request, reviews it and merges it', async () => {
    const change = await w.raw('POST', '/repos/dora/demo/contents/docs/new.md', { content: Buffer.from('# New page\n').toString('base64'), new_branch: 'feature', message: 'Add a page' }, { token: w.admin.token });
    expect(change.status, change.text).to.equal(201);
    await page.goto(url('dora/demo/pulls/new?head=feature'));
    expect(page.url()).to.equal(url('dora/demo/compare/main...feature'));
    await page.click('details.new-pull summary');
    await page.fill('.new-pull-form input[name=title]', `Add a page ${PAYLOAD}`);
    await page.fill('.new-pull-form textarea[name=content]', PAYLOAD);
    await page.click('.new-pull-form button[type=submit]');
    await page.waitForURL(url('dora/demo/pulls/2'));
    const api = () => w.raw('GET', '/repos/dora/demo/pulls/2', undefined, { token: w.admin.token });
    for (let i = 0; i < 100 && !(await api()).body.mergeable; i++) await page.waitForTimeout(100);
    await page.click('.tabs a:text("Files changed")');
    expect(await page.locator('.diff-file').count()).to.equal(1);
    await page.fill('.review-form textarea[name=content]', `Nice ${PAYLOAD}`);
    await page.click('.review-form button[type=submit]');
    await page.waitForURL(url('dora/demo/pulls/2'));
    await screenshot(page, 'pull-request');
    await page.click('.merge-box button[type=submit]');
    await page.waitForURL(url('dora/demo/pulls/2'));
    expect(await page.locator('.merge-done').textContent()).to.include('Pull request successfully merged.');
    expect((await api()).body.merged).to.equal(true);
  });
});
