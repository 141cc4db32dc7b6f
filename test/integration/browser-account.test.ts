/**
 * The account settings in a real browser (Debian's Chromium): a password changed on the account
 * page and then used by git over HTTP; an email address added, confirmed through the link mailed
 * to a real SMTP server on loopback, and made primary; an avatar cropped with the square dragged
 * on the picture; the dark theme chosen on the appearance page; an administrator's new password that holds
 * the user on the change-password page; every settings page passes the accessibility check and
 * fits 375 px.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { startWorld, type World, type TestUser } from '../helpers/world';
import { launchBrowser, look, watchedPage, type WatchedPage } from '../helpers/browser';
import { MailSink, linksOf } from '../helpers/mail';
import sharp from 'sharp';

const run = promisify(execFile);

describe('account settings in a browser', function () {
  this.timeout(120_000);
  let w: World;
  let sink: MailSink;
  let browser: Browser;
  let wp: WatchedPage;
  let page: Page;
  let erin: TestUser;
  const url = (p = '') => `${w.server.rootUrl}${p}`;

  const signIn = async (name: string, password: string) => {
    await wp.context.clearCookies();
    await page.goto(url('user/login'));
    await page.fill('input[name=user_name]', name);
    await page.fill('input[name=password]', password);
    await page.click('form[action$="/user/login"] button[type=submit]');
  };

  before(async () => {
    sink = await MailSink.start();
    w = await startWorld({ env: sink.env({ FORGE__SERVICE__REGISTER_EMAIL_CONFIRM: 'true' }) });
    erin = await w.user('erin');
    expect((await w.raw('POST', '/user/repos', { name: 'notes', auto_init: true, private: true }, { token: erin.token })).status).to.equal(201);
    browser = await launchBrowser();
    wp = await watchedPage(browser);
    page = wp.page;
  });
  after(async () => {
    await browser?.close();
    await w?.stop();
    await sink?.close();
  });
  afterEach(function () {
    expect(wp.problems, this.currentTest?.title).to.deep.equal([]);
  });

  it('changes the password on the account page, and git over HTTP takes the new one', async () => {
    await signIn(erin.name, erin.password);
    await page.waitForURL(url());
    await page.goto(url('user/settings'));
    await page.click('nav.settings-tabs >> text=Account');
    await page.waitForURL(url('user/settings/account'));
    await look(page, 'settings-account');
    await page.fill('input[name=old_password]', 'not-the-password');
    await page.fill('input[name=password]', 'erin-new-pass-42');
    await page.fill('input[name=retype]', 'erin-new-pass-42');
    await page.click('form.password-form button[type=submit]');
    expect(await page.locator('.flash.error').textContent()).to.contain('The current password is incorrect.');
    await page.fill('input[name=old_password]', erin.password);
    await page.fill('input[name=password]', 'erin-new-pass-42');
    await page.fill('input[name=retype]', 'erin-new-pass-42');
    await page.click('form.password-form button[type=submit]');
    await page.locator('text=Your password has been changed.').waitFor();

    const remote = new URL(`${w.server.url}${erin.name}/notes.git`);
    remote.username = erin.name;
    remote.password = 'erin-new-pass-42';
    const { stdout } = await run('git', ['ls-remote', remote.toString()], { env: { ...process.env, GIT_TERMINAL_PROMPT: '0' } });
    expect(stdout).to.match(/refs\/heads\/main/);
    remote.password = erin.password;
    let refused = false;
    await run('git', ['ls-remote', remote.toString()], { env: { ...process.env, GIT_TERMINAL_PROMPT: '0' } }).catch(() => { refused = true; });
    expect(refused, 'the old password no longer works').to.equal(true);
    erin = { ...erin, password: 'erin-new-pass-42' };
  });

  it('adds an email address, confirms it through the mailed link, and makes it primary', async () => {
    await page.goto(url('user/settings/account'));
    const extra = 'erin-work@example.com';
    await page.fill('input[name=email][type=email]', extra);
    await page.click('form:has(input[value=add]) button[type=submit]');
    await page.locator(`text=A confirmation mail has been sent to ${extra}`).waitFor();
    expect(await page.locator(`li:has-text("${extra}") .badge`).textContent()).to.contain('Not confirmed');
    await look(page, 'settings-account-unconfirmed');

    const [mail] = await sink.waitFor((r) => r.rcpt[0] === extra);
    await page.goto(linksOf(mail).find((l) => l.includes('/user/activate_email'))!);
    await page.goto(url('user/settings/account'));
    expect(await page.locator(`li:has-text("${extra}") .badge`).count()).to.equal(0);
    await page.click(`li:has-text("${extra}") >> text=Make primary`);
    await page.locator(`text=${extra} is now your primary email address.`).waitFor();
    expect(await page.locator(`li:has-text("${extra}") .badge`).textContent()).to.contain('Primary');
    const me = await w.raw('GET', '/user', undefined, { token: erin.token });
    expect(me.body.email).to.equal(extra);
  });

  it('uploads an avatar, cropped to the square dragged on the picture', async () => {
    await page.goto(url('user/settings'));
    const picture = await sharp({ create: { width: 640, height: 400, channels: 3, background: '#cc5533' } }).png().toBuffer();
    await page.setInputFiles('input[name=avatar]', { name: 'holiday.png', mimeType: 'image/png', buffer: picture });
    await page.locator('.cropper-crop-box').waitFor();
    await page.waitForFunction('document.querySelector("input[name=crop_size]").value !== ""');
    await look(page, 'settings-avatar-crop');
    // why: the box is redrawn when the window is resized (as the check above does), and may then round a pixel differently.
    const size = Number(await page.inputValue('input[name=crop_size]'));
    expect(size, 'a square about as tall as the picture').to.be.within(398, 400);
    await page.click('form.avatar-form button[type=submit]');
    await page.locator('text=Your avatar has been updated.').waitFor();
    expect(await page.getAttribute('.avatar-current img', 'src')).to.match(new RegExp(`/avatars/${erin.id}-[0-9a-f]{32}$`));
    const stored = await sharp(Buffer.from(await (await fetch((await w.raw('GET', '/user', undefined, { token: erin.token })).body.avatar_url)).arrayBuffer())).metadata();
    expect([stored.width, stored.height]).to.deep.equal([size, size]);
  });

  it('switches to the dark theme, kept across pages, each passing the contrast check; auto follows the system', async () => {
    await page.goto(url('user/settings/appearance'));
    expect(await page.getAttribute('html', 'data-theme')).to.equal('gitea-auto');
    await page.check('input[name=theme][value=gitea-dark]');
    await page.click('form.theme-form button[type=submit]');
    await page.locator('text=Your theme has been changed.').waitFor();
    expect(await page.getAttribute('html', 'data-theme')).to.equal('gitea-dark');
    const background = () => page.evaluate('getComputedStyle(document.body).backgroundColor');
    expect(await background()).to.equal('rgb(13, 17, 23)');
    await look(page, 'dark-appearance');
    for (const [path, name] of [[`${erin.name}/notes`, 'dark-repo'], [`${erin.name}/notes/src/branch/main/README.md`, 'dark-file'], ['', 'dark-dashboard'], ['user/settings/account', 'dark-account']]) {
      await page.goto(url(path));
      await look(page, name);
    }
    await page.goto(url('user/settings/appearance'));
    await page.check('input[name=theme][value=gitea-auto]');
    await page.click('form.theme-form button[type=submit]');
    await page.locator('text=Your theme has been changed.').waitFor();
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await background()).to.equal('rgb(13, 17, 23)');
    await page.emulateMedia({ colorScheme: 'light' });
    expect(await background()).to.equal('rgb(255, 255, 255)');
  });

  it('walks the other settings pages', async () => {
    for (const [path, name] of [['user/settings', 'settings-profile'], ['user/settings/repos', 'settings-repos'], ['user/settings/organization', 'settings-orgs'], ['user/settings/hooks', 'settings-hooks'], ['user/settings/blocked_users', 'settings-blocked']]) {
      await page.goto(url(path));
      await look(page, name);
    }
    expect(await page.locator('nav.settings-tabs a').allTextContents()).to.include.members(['Profile', 'Account', 'Repositories', 'Organizations', 'Webhooks']);
  });

  it("holds a user whose password an administrator reset on the change-password page until they choose one", async () => {
    const fay = await w.user('fay');
    await signIn('root', w.admin.password);
    await page.goto(url('admin/users/fay'));
    await page.fill('input[name=password]', 'from-the-admin-1');
    await page.check('input[name=must_change_password]');
    await page.click('text=Update user account');
    await page.locator('text=The user account has been updated.').waitFor();

    await signIn('fay', 'from-the-admin-1');
    await page.waitForURL(/\/user\/change_password/);
    await page.goto(url('explore/repos'));
    await page.waitForURL(/\/user\/change_password\?redirect_to=/);
    await look(page, 'change-password');
    await page.fill('input[name=password]', 'fay-chose-this-3');
    await page.fill('input[name=retype]', 'fay-chose-this-3');
    await page.click('main form[action$="/user/change_password"] button[type=submit]');
    await page.waitForURL(url('explore/repos'));
    expect((await w.raw('GET', '/user', undefined, { basic: [fay.name, 'fay-chose-this-3'] })).status).to.equal(200);
  });
});
