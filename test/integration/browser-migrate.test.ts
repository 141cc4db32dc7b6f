/**
 * A migration in a real browser: the "+" menu's New migration, the form filled in as a person
 * would (address, credentials, mirror with its interval), the mirror's home page saying where it
 * comes from, and a refused address shown on the form again with what was typed. Screenshots at
 * 1280 and 375 px, axe without serious or critical violations.
 */
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { startWorld, type World, type TestUser } from '../helpers/world';
import { apiRepo } from '../helpers/refs';
import { sql } from '../helpers/db';
import { launchBrowser, look, watchedPage, type WatchedPage } from '../helpers/browser';

describe('migrating in a browser', () => {
  let w: World;
  let alice: TestUser;
  let bob: TestUser;
  let browser: Browser;
  let wp: WatchedPage;
  const url = (p = '') => `${w.server.rootUrl}${p}`;

  before(async () => {
    w = await startWorld({ env: { FORGE__MIGRATIONS__ALLOW_LOCALNETWORKS: 'true' } });
    [alice, bob] = [await w.user('alice'), await w.user('bob')];
    await apiRepo(w, alice, 'upstream', { auto_init: true, private: true, description: 'the original' });
    browser = await launchBrowser();
    wp = await watchedPage(browser);
    await wp.page.setViewportSize({ width: 1280, height: 800 });
    await wp.page.goto(url('user/login'));
    await wp.page.fill('input[name=user_name]', bob.name);
    await wp.page.fill('input[name=password]', bob.password);
    await Promise.all([wp.page.waitForURL(url()), wp.page.click('form[action$="/user/login"] button[type=submit]')]);
  });
  after(async () => {
    await browser?.close();
    await w?.stop();
  });
  afterEach(function () {
    expect(wp.problems, this.currentTest?.title).to.deep.equal([]);
  });

  it('mirrors a private repository from the New migration form', async () => {
    const page = wp.page;
    await page.click('header summary[aria-label="Create…"]');
    await Promise.all([page.waitForURL(url('repo/migrate')), page.click('header a:has-text("New migration")')]);
    await look(page, 'migrate-form');
    await page.fill('input[name=clone_addr]', `${w.server.url}alice/upstream.git`);
    await page.fill('input[name=auth_username]', 'alice');
    await page.fill('input[name=auth_password]', alice.password);
    await page.fill('input[name=repo_name]', 'follower');
    await page.check('input[name=lfs]');
    await page.check('input[name=mirror]');
    await page.fill('input[name=mirror_interval]', '1h');
    await Promise.all([page.waitForURL(url('bob/follower')), page.click('form[action$="/repo/migrate"] button[type=submit]')]);
    expect(await page.locator('.forked-from').textContent()).to.match(/mirror of\s+http:\/\/127\.0\.0\.1:\d+\/alice\/upstream\.git\s+· last synced/);
    expect(await page.locator('main').textContent()).to.include('README.md');
    // why: a mirror follows its source; the editor's buttons are not offered.
    expect(await page.locator('a:has-text("New file")').count()).to.equal(0);
    await look(page, 'mirror-home');
    const repo = await w.raw('GET', '/repos/bob/follower', undefined, { token: bob.token });
    expect(repo.body).to.include({ mirror: true, mirror_interval: '1h0m0s' });
    const [mirror] = await sql(w.server, `SELECT lfs_enabled FROM mirror WHERE repo_id = ${Number(repo.body.id)}`);
    expect(!!mirror.lfs_enabled).to.equal(true);
  });

  it('sets the mirror\'s interval and adds a push mirror on the settings page, and pushes to it', async () => {
    const page = wp.page;
    await apiRepo(w, alice, 'copy-target', { auto_init: false });
    await page.goto(url('bob/follower/settings'));
    await page.fill('.mirror-settings input[name=mirror_interval]', '2h');
    await Promise.all([page.waitForURL(url('bob/follower/settings')), page.click('.mirror-settings button:has-text("Save mirror settings")')]);
    expect(await page.locator('.flash').first().textContent()).to.include('The mirror settings are saved.');
    expect(await page.inputValue('.mirror-settings input[name=mirror_interval]')).to.equal('2h0m0s');
    expect(await page.locator('.mirror-settings').textContent()).to.include('The next scheduled sync is');
    await page.fill('.mirror-settings input[name=remote_address]', `${w.server.url}alice/copy-target.git`);
    await page.fill('.mirror-settings input[name=remote_username]', 'alice');
    await page.fill('.mirror-settings input[name=remote_password]', alice.password);
    await Promise.all([page.waitForURL(url('bob/follower/settings')), page.click('.mirror-settings button:has-text("Add push mirror")')]);
    expect(await page.locator('.push-mirrors li').count()).to.equal(1);
    await Promise.all([page.waitForURL(url('bob/follower/settings')), page.click('.mirror-settings button:has-text("Push to every mirror now")')]);
    expect(await page.locator('.push-mirrors li').textContent()).to.not.include('never');
    const pushed = await w.raw('GET', '/repos/alice/copy-target/branches', undefined, { token: alice.token });
    expect(pushed.body.map((b: { name: string }) => b.name)).to.deep.equal(['main']);
    await look(page, 'mirror-settings');
    expect(await page.content()).to.not.include(alice.password);
  });

  it('migrates from a Gitea-compatible server with its issues when Issues is ticked', async () => {
    const page = wp.page;
    await apiRepo(w, alice, 'tracked', { auto_init: true });
    const made = await w.raw('POST', '/repos/alice/tracked/issues', { title: 'Brought along', body: 'from the source' }, { token: alice.token });
    expect(made.status, made.text).to.equal(201);
    await page.goto(url('repo/migrate'));
    await page.selectOption('select[name=service]', 'gitea');
    await page.fill('input[name=clone_addr]', `${w.server.url}alice/tracked.git`);
    await page.fill('input[name=repo_name]', 'tracked-copy');
    await page.check('input[name=issues]');
    await Promise.all([page.waitForURL(url('bob/tracked-copy')), page.click('form[action$="/repo/migrate"] button[type=submit]')]);
    await page.goto(url('bob/tracked-copy/issues'));
    expect(await page.locator('main').textContent()).to.include('Brought along');
  });

  it('shows a refused address on the form again, with what was typed and without the password', async () => {
    const page = wp.page;
    await page.goto(url('repo/migrate'));
    await page.fill('input[name=clone_addr]', 'ssh://git@example.com/x.git');
    await page.fill('input[name=auth_password]', 'typed-secret-1');
    await page.fill('input[name=repo_name]', 'never');
    await page.click('form[action$="/repo/migrate"] button[type=submit]');
    await page.waitForSelector('.flash.error');
    expect(await page.locator('main').textContent()).to.include('the provided url protocol is not allowed');
    expect(await page.inputValue('input[name=clone_addr]')).to.equal('ssh://git@example.com/x.git');
    expect(await page.inputValue('input[name=auth_password]')).to.equal('');
    await look(page, 'migrate-refused');
    expect((await w.raw('GET', '/repos/bob/never', undefined, { token: bob.token })).status).to.equal(404);
  });
});
