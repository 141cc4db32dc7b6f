/**
 * The mail flows in a real browser (Debian's Chromium): a forgotten password reset from the sign-in
 * page through the mail's link, and a sign-up activated by its mail; each page passes the
 * accessibility check and fits 375 px. Mails arrive at a real SMTP server on loopback.
 */
import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { startWorld, type World, type TestUser } from '../helpers/world';
import { launchBrowser, look, screenshot, watchedPage, type WatchedPage } from '../helpers/browser';
import { MailSink, linksOf } from '../helpers/mail';

describe('mail flows in a browser', function () {
  this.timeout(120_000);
  let w: World;
  let sink: MailSink;
  let browser: Browser;
  let wp: WatchedPage;
  let page: Page;
  let dana: TestUser;
  const url = (p = '') => `${w.server.rootUrl}${p}`;

  before(async () => {
    sink = await MailSink.start();
    w = await startWorld({ env: sink.env({ FORGE__SERVICE__REGISTER_EMAIL_CONFIRM: 'true' }) });
    dana = await w.user('dana');
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

  it('resets a forgotten password from the sign-in page through the mailed link, then signs in with it', async () => {
    await page.goto(url('user/login'));
    await page.click('text=Forgot password?');
    await page.waitForURL(url('user/forgot_password'));
    await look(page, 'forgot-password');
    await page.fill('input[name=email]', dana.email);
    await page.click('main button[type=submit]');
    await page.locator('text=a mail with a link to recover it is on its way').waitFor();
    await look(page, 'forgot-password-sent');

    const [mail] = await sink.waitFor((r) => r.rcpt[0] === dana.email && r.mail.subject === 'Recover your account');
    expect(mail.mail.html).to.contain('/user/recover_account?code=');
    const link = linksOf(mail).find((l) => l.includes('/user/recover_account'))!;
    await page.goto(link);
    expect(await page.inputValue('input[disabled]')).to.equal(dana.email);
    await look(page, 'recover-account');
    await page.fill('input[name=password]', 'short');
    await page.fill('input[name=retype]', 'short');
    await page.click('main button[type=submit]');
    expect(await page.locator('.flash.error').textContent()).to.match(/password/i);
    await page.fill('input[name=password]', 'a-new-password-9');
    await page.fill('input[name=retype]', 'a-new-password-9');
    await page.click('main button[type=submit]');
    await page.waitForURL(url());
    expect(await page.locator('.flash').first().textContent()).to.contain('Your password has been changed');
    await screenshot(page, 'recovered-signed-in');
    expect((await w.raw('GET', '/user', undefined, { basic: ['dana', 'a-new-password-9'] })).status).to.equal(200);
    dana.password = 'a-new-password-9';
    await sink.waitFor((r) => r.rcpt[0] === dana.email && r.mail.subject === 'Security notice: your password was changed');

    // the link is spent
    await page.goto(link);
    expect(await page.locator('.flash.error').textContent()).to.contain('not valid or has expired');
  });

  it('signs up, is told to check the mail, and activates the account from the link with the password', async () => {
    const fresh = await watchedPage(browser);
    const p = fresh.page;
    await p.goto(url('user/sign_up'));
    await p.fill('input[name=user_name]', 'emil');
    await p.fill('input[name=email]', 'emil@example.com');
    await p.fill('input[name=password]', 'emil-pass-12345');
    await p.fill('input[name=retype]', 'emil-pass-12345');
    await p.click('main button[type=submit]');
    await p.locator('text=A confirmation mail has been sent to').waitFor();
    await look(p, 'sign-up-confirm');
    // signing in before activation says so, and offers the mail again
    await p.goto(url('user/login'));
    await p.fill('input[name=user_name]', 'emil');
    await p.fill('input[name=password]', 'emil-pass-12345');
    await p.click('form[action$="/user/login"] button[type=submit]');
    await p.locator('text=Your account is not activated yet').waitFor();

    const [mail] = await sink.waitFor((r) => r.rcpt[0] === 'emil@example.com' && r.mail.subject === 'Please activate your account');
    await p.goto(linksOf(mail).find((l) => l.includes('/user/activate?code='))!);
    await look(p, 'activate');
    await p.fill('input[name=password]', 'emil-pass-12345');
    await p.click('main button[type=submit]');
    await p.waitForURL(url());
    expect(await p.locator('.flash').first().textContent()).to.contain('Your account has been activated');
    expect(await p.locator('header summary[aria-label="Your account"]').count()).to.equal(1);
    expect(fresh.problems).to.deep.equal([]);
    await fresh.context.close();
  });

  it('shows the mail preference and an unconfirmed address in the settings, and the mailer in the site administration', async () => {
    const fresh = await watchedPage(browser);
    const p = fresh.page;
    const signIn = async (name: string, password: string) => {
      await p.goto(url('user/login'));
      await p.fill('input[name=user_name]', name);
      await p.fill('input[name=password]', password);
      await p.click('form[action$="/user/login"] button[type=submit]');
      await p.waitForURL(url());
    };
    await signIn('dana', dana.password);
    await p.goto(url('user/settings/account'));
    await p.fill('input[name=email]', 'dana-home@example.com');
    await p.click('form:has(input[name=email]) button[type=submit]');
    await p.locator('text=A confirmation mail has been sent to dana-home@example.com').waitFor();
    expect(await p.locator('li:has-text("dana-home@example.com") .badge').textContent()).to.contain('Not confirmed');
    await p.selectOption('select[name=preference]', 'onmention');
    await p.click('form:has(select[name=preference]) button[type=submit]');
    await p.locator('text=Your email notification preference has been saved').waitFor();
    expect(await p.inputValue('select[name=preference]')).to.equal('onmention');
    await look(p, 'settings-emails-mail');
    await fresh.context.clearCookies();
    await signIn('root', w.admin.password);
    await p.goto(url('admin/config'));
    await p.fill('input[name=email]', 'ops@example.com');
    await p.click('text=Send test mail');
    await p.locator('text=A test mail has been sent to').waitFor();
    await look(p, 'admin-mail');
    await sink.waitFor((r) => r.rcpt[0] === 'ops@example.com');
    expect(fresh.problems).to.deep.equal([]);
    await fresh.context.close();
  });
});
