/**
 * The site administration's system pages and the Actions settings pages in a real browser: the
 * administrator walks configuration, monitor, cron (Run now), emails, packages and the site's
 * runners (the token menu, a reset); a repository's owner walks its runners (one registered), adds
 * a secret and a variable, and reads them in the dark theme. Each page is kept as a screenshot at 1280 and 375 px, with no horizontal
 * scroll at 375 px, and passes axe with no serious or critical violation.
 */
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { startWorld, type World, type TestUser } from '../helpers/world';
import { apiRepo } from '../helpers/refs';
import { launchBrowser, look, watchedPage, type WatchedPage } from '../helpers/browser';
import { ConformanceRunner } from '../helpers/actions-runner';
import { sql } from '../helpers/db';

describe('site administration and actions settings in a browser', () => {
  let w: World;
  let alice: TestUser;
  let browser: Browser;
  let pa: WatchedPage;
  const url = (p = '') => `${w.server.rootUrl}${p}`;

  async function signIn(u: { name: string; password: string }): Promise<void> {
    await pa.context.clearCookies();
    await pa.page.goto(url('user/login'));
    await pa.page.fill('input[name=user_name]', u.name);
    await pa.page.fill('input[name=password]', u.password);
    await Promise.all([pa.page.waitForURL(url()), pa.page.click('form[action$="/user/login"] button[type=submit]')]);
  }

  before(async () => {
    w = await startWorld({ env: { FORGE__MAILER__ENABLED: 'true', FORGE__MAILER__PROTOCOL: 'dummy', FORGE__MAILER__FROM: 'forge@example.com' } });
    alice = await w.user('alice');
    await apiRepo(w, alice, 'app', { auto_init: true });
    const reg = (await w.raw('GET', '/repos/alice/app/actions/runners/registration-token', undefined, { token: alice.token })).body.token as string;
    await ConformanceRunner.register(w.server.url, reg, { name: 'build-box-with-a-rather-long-name', labels: ['ubuntu-latest', 'linux', 'docker', 'self-hosted'] });
    await sql(w.server, 'INSERT INTO notice (type, description, created_unix) VALUES ($1, $2, $3)', [2, `Cron task update_mirrors failed: ${'a long message without spaces '.replace(/ /g, '_').repeat(4)}`, 1700000000]);
    browser = await launchBrowser();
    pa = await watchedPage(browser);
    await pa.page.setViewportSize({ width: 1280, height: 800 });
  });
  after(async () => {
    await browser?.close();
    await w?.stop();
  });
  afterEach(() => { expect(pa.problems).to.deep.equal([]); });

  it('walks the administration\'s configuration, monitor, cron, emails, packages and runners', async () => {
    const { page } = pa;
    await signIn(w.admin);
    await page.goto(url('admin'));
    await page.click('nav.admin-tabs a:has-text("Configuration")');
    await page.locator('#mailer').waitFor();
    await look(page, 'admin-config');
    await page.click('nav.admin-tabs a:has-text("Monitor")');
    await page.locator('.uptime').waitFor();
    await look(page, 'admin-monitor');
    await page.click('nav.admin-tabs a:has-text("Cron tasks")');
    const runs = page.locator('tr[data-task="cleanup_sessions"] .cron-runs');
    const before = Number(await runs.textContent());
    await Promise.all([page.waitForURL(url('admin/cron')), page.click('tr[data-task="cleanup_sessions"] button')]);
    expect(await page.locator('.flash.success').textContent()).to.include('has run');
    // why: the counts are per process; with one worker the page after the redirect comes from the process that ran it.
    if (Number(process.env.FORGE_TEST_WORKERS ?? '1') === 1) expect(Number(await runs.textContent())).to.equal(before + 1);
    await look(page, 'admin-cron');
    await page.click('nav.admin-tabs a:has-text("System notices")');
    await page.check('tr.notice input[type=checkbox]');
    await look(page, 'admin-notices');
    await Promise.all([page.waitForURL(url('admin/notices')), page.click('text=Delete selected')]);
    expect(await page.locator('.flash.success').textContent()).to.equal('1 notice deleted.');
    await page.click('nav.admin-tabs a:has-text("Emails")');
    await page.fill('input[name=q]', 'alice');
    await Promise.all([page.waitForURL(/admin\/emails\?q=alice/), page.press('input[name=q]', 'Enter')]);
    expect(await page.locator('.email-address').allTextContents()).to.deep.equal([alice.email]);
    await look(page, 'admin-emails');
    await page.click('nav.admin-tabs a:has-text("Packages")');
    await page.locator('.package-filter').waitFor();
    await look(page, 'admin-packages');
    await page.click('nav.admin-tabs a:has-text("Runners")');
    const token = await page.inputValue('input.registration-token');
    await page.click('details.runner-token-menu summary');
    await look(page, 'admin-runners');
    await Promise.all([page.waitForURL(url('admin/actions/runners')), page.click('text=Reset registration token')]);
    expect(await page.locator('.flash.success').textContent()).to.include('registration token has been reset');
    expect(await page.inputValue('input.registration-token')).to.not.equal(token);
    expect(await page.locator('tr.runner .runner-scope').allTextContents()).to.deep.equal(['alice/app']);
  });

  it('walks a repository\'s runners, adds a secret and a variable', async () => {
    const { page } = pa;
    await signIn(alice);
    await page.goto(url('alice/app/settings'));
    await page.click('nav.settings-nav a:has-text("Actions")');
    await page.locator('tr.runner').waitFor();
    expect(await page.locator('tr.runner .runner-status').textContent()).to.equal('Idle');
    await look(page, 'repo-runners');
    await page.click('tr.runner a[aria-label^="Edit runner"]');
    await page.fill('textarea[name=description]', 'The build box under the desk');
    await Promise.all([page.waitForURL(/runners\/\d+$/), page.click('text=Update runner')]);
    expect(await page.inputValue('textarea[name=description]')).to.equal('The build box under the desk');
    await look(page, 'repo-runner-edit');
    await page.click('nav.actions-tabs a:has-text("Secrets")');
    await page.fill('form.add-secret input[name=name]', 'deploy_token');
    await page.fill('form.add-secret textarea[name=data]', 'hunter2');
    await Promise.all([page.waitForURL(url('alice/app/settings/actions/secrets')), page.click('form.add-secret button[type=submit]')]);
    expect(await page.locator('.secret-name').allTextContents()).to.deep.equal(['DEPLOY_TOKEN']);
    expect(await page.content()).to.not.include('hunter2');
    await look(page, 'repo-secrets');
    await page.click('nav.actions-tabs a:has-text("Variables")');
    await page.fill('form.add-variable input[name=name]', 'REGION');
    await page.fill('form.add-variable textarea[name=data]', 'eu-west');
    await Promise.all([page.waitForURL(url('alice/app/settings/actions/variables')), page.click('form.add-variable button[type=submit]')]);
    await page.click('details.variable-edit summary');
    await look(page, 'repo-variables');
    const got = await w.raw('GET', '/repos/alice/app/actions/variables/REGION', undefined, { token: alice.token });
    expect(got.body.data).to.equal('eu-west');
  });

  it('keeps the runners and secrets pages readable in the dark theme', async () => {
    const { page } = pa;
    await page.goto(url('user/settings/appearance'));
    await page.check('input[name=theme][value=gitea-dark]');
    await Promise.all([page.waitForURL(url('user/settings/appearance')), page.click('form.theme-form button[type=submit]')]);
    expect(await page.getAttribute('html', 'data-theme')).to.equal('gitea-dark');
    for (const [p, name] of [['alice/app/settings/actions/runners', 'dark-repo-runners'], ['alice/app/settings/actions/secrets', 'dark-repo-secrets'], ['user/settings/actions/variables', 'dark-user-variables']]) {
      await page.goto(url(p));
      await look(page, name);
    }
  });
});
