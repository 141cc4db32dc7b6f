/**
 * The pages a team lives in, in a real browser (Debian's Chromium through playwright-core), on an
 * instance with `[security] TWO_FACTOR_AUTH = enforced`: a user without a second factor signs in
 * and browses the site but gets a repository refused with a link to enrol; once enrolled, they
 * create a repository from the form, make a token in the settings, push with git over HTTP, and
 * edit the pushed file with the Preview tab; then the settings, branches, releases and the
 * dashboard pages; a form posted from another site (same-site, another port: the session cookie
 * goes with it) and a foreign `redirect_to` are refused. Any dialog, page error or console error
 * fails the test; screenshots are kept.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import * as OTPAuth from 'otpauth';
import type { Browser, Page } from 'playwright-core';
import { startWorld, type World, type TestUser } from '../helpers/world';
import { GitTool } from '../helpers/refs';
import { launchBrowser, screenshot, watchedPage, type WatchedPage } from '../helpers/browser';

describe('repository pages in a browser, with two-factor authentication enforced', () => {
  let w: World;
  let erin: TestUser;
  let browser: Browser;
  let wp: WatchedPage;
  let page: Page;
  let token = '';
  const url = (p = '') => `${w.server.rootUrl}${p}`;
  const submit = (form: string) => Promise.all([page.waitForEvent('load'), page.click(`${form} button[type=submit].primary, ${form} button[type=submit]:only-of-type`)]);

  before(async () => {
    w = await startWorld({ env: { FORGE__SECURITY__TWO_FACTOR_AUTH: 'enforced' } });
    erin = await w.user('erin');
    expect((await w.raw('POST', '/user/repos', { name: 'shared', auto_init: true }, { token: w.admin.token })).status).to.equal(201);
    browser = await launchBrowser();
    wp = await watchedPage(browser);
    page = wp.page;
  });
  after(async () => {
    await browser?.close();
    await w?.stop();
  });
  afterEach(function () {
    expect(wp.problems, this.currentTest?.title).to.deep.equal([]);
  });

  it('lets a user without a second factor sign in and browse, refuses repositories with a link to enrol, and opens them once enrolled', async () => {
    await page.goto(url('user/login'));
    await page.fill('input[name=user_name]', 'erin');
    await page.fill('input[name=password]', erin.password);
    await Promise.all([page.waitForURL(url()), page.click('form[action$="/user/login"] button[type=submit]')]);
    expect(await page.locator('main .flash.error').textContent()).to.include('requires two-factor authentication');
    await page.goto(url('explore/repos'));
    expect(await page.locator('main').textContent()).to.include('shared');
    const refused = await page.goto(url('root/shared'));
    expect(refused!.status()).to.equal(403);
    expect(await page.locator('.message').textContent()).to.include('two-factor authentication is required');
    await screenshot(page, 'enforced-2fa');
    await Promise.all([page.waitForEvent('load'), page.click('a.error-link')]);
    expect(page.url()).to.equal(url('user/settings/security'));
    await page.click('a[href$="/two_factor/enroll"]');
    const secret = (await page.locator('.totp-secret').textContent())!.trim();
    const code = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate();
    await page.fill('input[name=passcode]', code);
    await Promise.all([page.waitForURL(url('user/settings/security')), page.click('main button[type=submit]')]);
    const opened = await page.goto(url('root/shared'));
    expect(opened!.status()).to.equal(200);
    expect(await page.locator('.readme .markup h1').textContent()).to.equal('shared');
  });

  it('creates a repository from the form, pushes to it with git and a token made in the settings, and edits the file with a preview', async () => {
    await page.goto(url('repo/create'));
    await page.fill('input[name=repo_name]', 'tool');
    await page.fill('textarea[name=description]', 'A <tool>');
    await page.check('input[name=auto_init]');
    await page.check('input[name="gitignore-Node"]');
    await page.selectOption('select[name=license]', 'MIT');
    await screenshot(page, 'repo-create');
    await Promise.all([page.waitForURL(url('erin/tool')), page.click('form[action$="/repo/create"] button[type=submit]')]);
    expect(await page.locator('.description').textContent()).to.equal('A <tool>');
    for (const f of ['.gitignore', 'LICENSE', 'README.md']) expect(await page.locator(`a:text-is("${f}")`).count(), f).to.equal(1);

    await page.goto(url('user/settings/applications'));
    await page.fill('input[name=name]', 'git push');
    await page.check('input[name=scope-repository][value=write]');
    await Promise.all([page.waitForEvent('load'), page.click('form[action$="/user/settings/applications"] button[type=submit].primary')]);
    token = /is ([0-9a-f]{40})\./.exec((await page.locator('.flash.success').textContent())!)![1];
    const g = new GitTool(w);
    const dir = await g.clone({ ...erin, token }, 'erin', 'tool');
    await g.commit(dir, 'guide.md', '# Guide\n\nFirst words.\n', 'Add the guide');
    await g.ok(['push', '-q', 'origin', 'HEAD:main'], dir);

    await page.goto(url('erin/tool'));
    await page.click('a:text-is("guide.md")');
    expect(await page.locator('.markup h1').textContent()).to.equal('Guide');
    await page.click('a.button:text-is("Edit")');
    await page.fill('textarea[name=content]', '# Guide\n\n**Edited** in the browser.\n');
    await Promise.all([page.waitForEvent('load'), page.click('button[name=action][value=preview]')]);
    expect(await page.locator('.preview strong').textContent()).to.equal('Edited');
    await screenshot(page, 'editor-preview');
    await page.fill('input[name=commit_message]', 'Edit the guide');
    await Promise.all([page.waitForURL(url('erin/tool/src/branch/main/guide.md')), page.click('button[name=action][value=commit]')]);
    const raw = await w.raw('GET', '/repos/erin/tool/raw/guide.md', undefined, { token });
    expect(raw.text).to.equal('# Guide\n\n**Edited** in the browser.\n');
  });

  it('shows the settings, branches, releases and dashboard pages', async () => {
    await page.goto(url('erin/tool/settings'));
    expect(await page.locator('input[name=has_projects]').isChecked()).to.equal(true);
    await page.uncheck('input[name=has_projects]');
    await submit('form.repo-options');
    expect(await page.locator('.tabs a:text("Projects")').count()).to.equal(0);
    await screenshot(page, 'repo-settings');
    await page.goto(url('erin/tool/settings/hooks/new'));
    await screenshot(page, 'webhook-new');
    await page.goto(url('erin/tool/branches'));
    expect(await page.locator('.branch strong').first().textContent()).to.equal('main');
    await screenshot(page, 'branches');
    await page.goto(url('erin/tool/releases/new'));
    await page.fill('input[name=tag_name]', 'v1.0');
    await page.fill('input[name=title]', 'First <release>');
    await page.fill('textarea[name=content]', '**Notes** <img src=x onerror=alert(1)>');
    await Promise.all([page.waitForURL(url('erin/tool/releases')), page.click('form.release-form button[type=submit]')]);
    expect(await page.locator('.release h3 a').first().textContent()).to.equal('First <release>');
    await screenshot(page, 'releases');
    await page.goto(url());
    expect(await page.locator('main').textContent()).to.include('erin/tool');
    await screenshot(page, 'dashboard-feed');
  });

  it('refuses a form another site posts with the session, and keeps redirect_to on the forge', async () => {
    const target = url('erin/tool/settings/delete');
    const evil = http.createServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/html' }).end(`<form method="post" action="${target}"><input name="confirm" value="tool"></form><script>document.forms[0].submit()</script>`);
    });
    await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve));
    try {
      const answer = page.waitForResponse((r) => r.url() === target);
      await page.goto(`http://127.0.0.1:${(evil.address() as AddressInfo).port}/`);
      const refused = await answer;
      expect(refused.status()).to.equal(403);
      expect((await refused.request().allHeaders()).cookie ?? '', 'the cookie went with it, so the forge itself refused').to.include('i_like_gitea=');
    } finally {
      await new Promise<void>((resolve) => evil.close(() => resolve()));
    }
    expect((await w.raw('GET', '/repos/erin/tool', undefined, { token })).status).to.equal(200);

    await page.click('header summary[aria-label="Your account"]');
    await page.click('header form[action$="/user/logout"] button');
    const finn = await w.user('finn');
    for (const bad of ['//evil.example/', '/\\\\evil.example', 'https://evil.example/', '/%2F%2Fevil.example', 'javascript:alert(1)']) {
      await page.goto(url(`user/login?redirect_to=${encodeURIComponent(bad)}`));
      await page.fill('input[name=user_name]', 'finn');
      await page.fill('input[name=password]', finn.password);
      await Promise.all([page.waitForEvent('load'), page.click('form[action*="/user/login"] button[type=submit]')]);
      expect(page.url(), bad).to.equal(url());
      await page.click('header summary[aria-label="Your account"]');
      await Promise.all([page.waitForEvent('load'), page.click('header form[action$="/user/logout"] button')]);
    }
    await page.goto(url(`user/login?redirect_to=${encodeURIComponent('/explore/repos?q=x')}`));
    await page.fill('input[name=user_name]', 'finn');
    await page.fill('input[name=password]', finn.password);
    await Promise.all([page.waitForURL(url('explore/repos?q=x')), page.click('form[action*="/user/login"] button[type=submit]')]);
  });
});
