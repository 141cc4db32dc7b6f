/**
 * The labels and milestones pages in a real browser: a writer creates a label and a milestone from
 * the forms and sees them drawn; each page is kept as a screenshot at 1280 and 375 px, with no
 * horizontal scroll at 375 px, and passes axe with no serious or critical violation.
 */
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { startWorld, type World, type TestUser } from '../helpers/world';
import { launchBrowser, look, watchedPage, type WatchedPage } from '../helpers/browser';

describe('labels and milestones pages in a browser', () => {
  let w: World;
  let alice: TestUser;
  let browser: Browser;
  let pa: WatchedPage;
  const url = (p = '') => `${w.server.rootUrl}${p}`;
  const api = (method: string, p: string, body?: unknown) => w.raw(method, `/repos/alice/app${p}`, body, { token: alice.token });


  before(async () => {
    w = await startWorld();
    alice = await w.user('alice');
    expect((await w.raw('POST', '/user/repos', { name: 'app', auto_init: true }, { token: alice.token })).status).to.equal(201);
    const bug = (await api('POST', '/labels', { name: 'bug', color: '#d73a4a', description: 'Something does not work as it should' })).body as { id: number };
    await api('POST', '/labels', { name: 'priority/a-rather-long-scope-name-that-must-wrap', color: '#fbca04', exclusive: true, description: 'A scoped label whose name is long enough to test the narrow layout of the page' });
    await api('POST', '/labels', { name: 'docs', color: '#0e8a16' });
    const m = (await api('POST', '/milestones', { title: 'Version 1.0', description: 'The first release: **stable** API and a [changelog](https://example.com).', due_on: '2001-01-01T23:59:59Z' })).body as { id: number };
    await api('POST', '/milestones', { title: 'Version 2.0', due_on: '2099-06-30T23:59:59Z' });
    for (const title of ['First', 'Second', 'Third']) await api('POST', '/issues', { title, labels: [bug.id], milestone: m.id });
    expect((await api('PATCH', '/issues/1', { state: 'closed' })).status).to.equal(201);
    browser = await launchBrowser();
    pa = await watchedPage(browser);
    await pa.page.setViewportSize({ width: 1280, height: 800 });
    await pa.page.goto(url('user/login'));
    await pa.page.fill('input[name=user_name]', alice.name);
    await pa.page.fill('input[name=password]', alice.password);
    await Promise.all([pa.page.waitForURL(url()), pa.page.click('form[action$="/user/login"] button[type=submit]')]);
  });
  after(async () => {
    await browser?.close();
    await w?.stop();
  });
  afterEach(() => { expect(pa.problems).to.deep.equal([]); });

  it('creates and edits a label from the labels page', async () => {
    const { page } = pa;
    await page.goto(url('alice/app/labels'));
    await look(page, 'labels');
    await page.click('details.new-label-menu summary');
    await page.fill('details.new-label-menu input[name=name]', 'kind/feature');
    await page.fill('details.new-label-menu input[name=description]', 'Something new');
    await page.fill('details.new-label-menu input[name=color]', '#5319e7');
    await page.check('details.new-label-menu input[name=exclusive]');
    await look(page, 'labels-new-form');
    await Promise.all([page.waitForURL(url('alice/app/labels')), page.click('details.new-label-menu button[type=submit]')]);
    expect(await page.locator('.flash.success').textContent()).to.include('is created');
    const made = page.locator('.label-row', { hasText: 'Something new' });
    expect(await made.locator('.scope').textContent()).to.equal('kind');
    // why: the colour comes from the page's nonce'd style block (no inline style passes the CSP).
    expect(await page.evaluate('getComputedStyle(document.querySelector(".label-row .tag.lc-5319e7")).backgroundColor')).to.equal('rgb(83, 25, 231)');
    await made.locator('details.label-edit summary').click();
    await made.locator('details.label-delete summary').click();
    await look(page, 'labels-edit');
    const labels = (await api('GET', '/labels')).body as { name: string; color: string; exclusive: boolean }[];
    expect(labels.find((l) => l.name === 'kind/feature')).to.include({ color: '5319e7', exclusive: true });
  });

  it('creates and closes a milestone from the milestones page', async () => {
    const { page } = pa;
    await page.goto(url('alice/app/milestones'));
    expect(await page.locator('.milestone-due.overdue').count()).to.equal(1);
    expect(await page.locator('progress').first().getAttribute('value')).to.equal('33');
    await look(page, 'milestones');
    await page.click('details.new-milestone-menu summary');
    await page.fill('details.new-milestone-menu input[name=title]', 'Version 1.1');
    await page.fill('details.new-milestone-menu textarea[name=content]', 'Fixes only.');
    await page.fill('details.new-milestone-menu input[name=deadline]', '2098-03-04');
    await look(page, 'milestones-new-form');
    await Promise.all([page.waitForURL(url('alice/app/milestones')), page.click('details.new-milestone-menu button[type=submit]')]);
    const made = page.locator('.milestone', { hasText: 'Version 1.1' });
    expect(await made.locator('relative-time').getAttribute('datetime')).to.equal('2098-03-04T23:59:59.000Z');
    await Promise.all([page.waitForURL(/\/milestones/), made.locator('button:has-text("Close")').click()]);
    await page.goto(url('alice/app/milestones?state=closed'));
    expect(await page.locator('.milestone-title').allTextContents()).to.deep.equal([' Version 1.1']);
    await page.locator('.milestone details.milestone-edit summary').click();
    await look(page, 'milestones-closed');
  });
});
