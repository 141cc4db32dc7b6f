/**
 * The dashboard's overviews in a real browser: `/issues`, `/pulls` and `/milestones` with labels,
 * assignees, a merged and a draft pull request and milestones in progress, kept as screenshots at
 * 1280 and 375 px, with no horizontal scroll at 375 px, and passing axe with no serious or
 * critical violation. The filter links, the state toggle and the search form are followed by
 * clicking them.
 */
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { startWorld, type World, type TestUser } from '../helpers/world';
import { apiRepo, waitFor } from '../helpers/refs';
import { launchBrowser, look, watchedPage, type WatchedPage } from '../helpers/browser';

describe('dashboard overviews in a browser', () => {
  let w: World;
  let alice: TestUser;
  let bob: TestUser;
  let browser: Browser;
  let wp: WatchedPage;
  const url = (p = '') => `${w.server.rootUrl}${p}`;
  const ok = async (method: string, p: string, body: unknown, u: TestUser = alice) => {
    const r = await w.raw(method, p, body, { token: u.token });
    expect(r.status, `${method} ${p}: ${r.text}`).to.be.within(200, 299);
    return r.body as Record<string, unknown>;
  };
  const pull = async (branch: string, title: string) => {
    await ok('POST', `/repos/alice/web-app/contents/${branch}.txt`, { content: Buffer.from(`${branch}\n`).toString('base64'), new_branch: branch, message: `Add ${branch}` });
    return Number((await ok('POST', '/repos/alice/web-app/pulls', { head: branch, base: 'main', title })).number);
  };


  before(async () => {
    w = await startWorld();
    [alice, bob] = [await w.user('alice'), await w.user('bob')];
    await apiRepo(w, alice, 'web-app');
    await apiRepo(w, alice, 'a-repository-with-a-rather-long-name-for-narrow-screens');
    await ok('PUT', '/repos/alice/web-app/collaborators/bob', { permission: 'write' });
    const label = async (name: string, color: string, exclusive = false) => Number((await ok('POST', '/repos/alice/web-app/labels', { name, color, exclusive })).id);
    const [bug, docs, high] = [await label('bug', '#d73a4a'), await label('documentation', '#0075ca'), await label('priority/high', '#fbca04', true)];
    const v1 = Number((await ok('POST', '/repos/alice/web-app/milestones', { title: 'Version 1.0', due_on: '2031-05-01T00:00:00Z' })).id);
    const late = Number((await ok('POST', '/repos/alice/web-app/milestones', { title: 'Spring clean-up', due_on: '2020-03-01T00:00:00Z' })).id);
    await ok('POST', '/repos/alice/a-repository-with-a-rather-long-name-for-narrow-screens/milestones', { title: 'A milestone whose title goes on and on to test wrapping on a phone' });
    const issue = async (o: Record<string, unknown>, u: TestUser = alice) => Number((await ok('POST', '/repos/alice/web-app/issues', o, u)).number);
    await issue({ title: 'The start page crashes when the configuration file is missing entirely', labels: [bug, high], assignees: ['bob', 'alice'], milestone: v1 });
    const n2 = await issue({ title: 'Explain the <setup> steps', labels: [docs], milestone: v1 }, bob);
    await ok('POST', `/repos/alice/web-app/issues/${n2}/comments`, { body: 'I can take this.' });
    await ok('POST', `/repos/alice/web-app/issues/${n2}/comments`, { body: 'Thanks @bob' });
    const n3 = await issue({ title: 'Remove the old scripts', milestone: late });
    await ok('PATCH', `/repos/alice/web-app/issues/${n3}`, { state: 'closed' });
    const merged = await pull('speedup', 'Speed up the start page');
    await waitFor('the pull request checked', async () => (await ok('GET', `/repos/alice/web-app/pulls/${merged}`, undefined)).mergeable === true);
    await ok('POST', `/repos/alice/web-app/pulls/${merged}/merge`, { Do: 'merge' });
    await pull('draft', 'WIP: Try a new layout');
    const asked = await pull('review-me', 'Tidy the configuration loader');
    await ok('POST', `/repos/alice/web-app/pulls/${asked}/requested_reviewers`, { reviewers: ['bob'] });

    browser = await launchBrowser();
    wp = await watchedPage(browser);
    await wp.page.setViewportSize({ width: 1280, height: 800 });
    await wp.page.goto(url('user/login'));
    await wp.page.fill('input[name=user_name]', alice.name);
    await wp.page.fill('input[name=password]', alice.password);
    await Promise.all([wp.page.waitForURL(url()), wp.page.click('form[action$="/user/login"] button[type=submit]')]);
  });
  after(async () => {
    await browser?.close();
    await w?.stop();
  });
  afterEach(function () {
    expect(wp.problems, this.currentTest?.title).to.deep.equal([]);
  });

  it('lists issues, follows a filter, the closed toggle and a search', async () => {
    const page = wp.page;
    await page.click('header a[href="/issues"]');
    await page.waitForURL(url('issues'));
    expect(await page.locator('.overview-item').count()).to.equal(2);
    await look(page, 'dashboard-issues');
    await Promise.all([page.waitForURL(/type=created_by/), page.click('.overview-filter:has-text("Created by you")')]);
    expect(await page.locator('.overview-item .overview-link').allTextContents()).to.deep.equal(['The start page crashes when the configuration file is missing entirely']);
    await Promise.all([page.waitForURL(/state=closed/), page.click('.overview-states a:has-text("Closed")')]);
    expect(await page.locator('.overview-item .overview-link').allTextContents()).to.deep.equal(['Remove the old scripts']);
    await page.goto(url('issues'));
    await page.fill('.overview-search input[name=q]', 'explain');
    await Promise.all([page.waitForURL(/q=explain/), page.click('.overview-search button[type=submit]')]);
    expect(await page.locator('.overview-item .overview-link').allTextContents()).to.deep.equal(['Explain the <setup> steps']);
  });

  it('lists pull requests: open, draft and merged', async () => {
    const page = wp.page;
    await page.goto(url('pulls'));
    expect(await page.locator('.overview-item').count()).to.equal(2);
    expect(await page.locator('.overview-state.tone-draft').count()).to.equal(1);
    await look(page, 'dashboard-pulls');
    await page.goto(url('pulls?state=closed'));
    expect(await page.locator('.overview-state.tone-merged').count()).to.equal(1);
    await look(page, 'dashboard-pulls-closed');
  });

  it('lists milestones with their progress, and chooses a repository', async () => {
    const page = wp.page;
    await page.click('header a[href="/milestones"]');
    await page.waitForURL(url('milestones'));
    expect(await page.locator('.milestone-row').count()).to.equal(3);
    expect(await page.locator('.milestone-row .overdue').count()).to.equal(1);
    await look(page, 'dashboard-milestones');
    await Promise.all([page.waitForURL(/repos=/), page.click('.overview-filter:has-text("alice/web-app")')]);
    expect(await page.locator('.overview-milestone-title').allTextContents()).to.deep.equal([' Spring clean-up', ' Version 1.0']);
  });
});
