/**
 * Code review in a real browser, two users at once: alice pushes a branch with git, compares it,
 * opens the pull request from the compare page (titled from its single commit); bob comments on
 * two lines from the gutter into a pending review and requests changes; alice replies and
 * resolves; bob approves; alice merges. Each page is kept as a screenshot at 1280 and 375 px, with
 * no horizontal scroll at 375 px, and passes axe with no serious or critical violation.
 */
import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { startWorld, type World, type TestUser } from '../helpers/world';
import { GitTool } from '../helpers/refs';
import { launchBrowser, look, watchedPage, type WatchedPage } from '../helpers/browser';

describe('code review in a browser, by two users', () => {
  let w: World;
  let alice: TestUser;
  let bob: TestUser;
  let browser: Browser;
  let pa: WatchedPage;
  let pb: WatchedPage;
  const url = (p = '') => `${w.server.rootUrl}${p}`;
  const api = (method: string, p: string, body?: unknown) => w.raw(method, `/repos/alice/app${p}`, body, { token: alice.token });

  async function signIn(page: Page, u: TestUser): Promise<void> {
    await page.goto(url('user/login'));
    await page.fill('input[name=user_name]', u.name);
    await page.fill('input[name=password]', u.password);
    await Promise.all([page.waitForURL(url()), page.click('form[action$="/user/login"] button[type=submit]')]);
  }


  before(async () => {
    w = await startWorld();
    [alice, bob] = [await w.user('alice'), await w.user('bob')];
    expect((await w.raw('POST', '/user/repos', { name: 'app', auto_init: true, readme: 'Default' }, { token: alice.token })).status).to.equal(201);
    expect((await api('PUT', '/collaborators/bob', { permission: 'write' })).status).to.equal(204);
    browser = await launchBrowser();
    [pa, pb] = [await watchedPage(browser), await watchedPage(browser)];
    await pa.page.setViewportSize({ width: 1280, height: 800 });
    await pb.page.setViewportSize({ width: 1280, height: 800 });
    await signIn(pa.page, alice);
    await signIn(pb.page, bob);
  });
  after(async () => {
    await browser?.close();
    await w?.stop();
  });
  afterEach(function () {
    expect([...pa.problems, ...pb.problems], this.currentTest?.title).to.deep.equal([]);
  });

  it('pushes a branch, compares it and opens the pull request from the compare page', async () => {
    const g = new GitTool(w);
    const dir = await g.clone(alice, 'alice', 'app');
    await g.commit(dir, 'calc.ts', Array.from({ length: 12 }, (_, i) => `export const c${i} = ${i};`).join('\n') + '\n', 'Add the constants');
    await g.ok(['push', '-q', 'origin', 'HEAD:main'], dir);
    await g.ok(['checkout', '-q', '-b', 'tune'], dir);
    await g.commit(dir, 'calc.ts', Array.from({ length: 12 }, (_, i) => `export const c${i} = ${i === 3 || i === 9 ? i * 10 : i};`).join('\n') + '\n', 'Tune two constants\n\nThree and nine were off by a factor of ten.');
    await g.ok(['push', '-q', 'origin', 'tune'], dir);

    const page = pa.page;
    await page.goto(url('alice/app'));
    await page.goto(url('alice/app/compare/main...tune'));
    expect(await page.locator('.compare-count').textContent()).to.include('1 commit');
    expect(await page.locator('.diff-file').count()).to.equal(1);
    await look(page, 'review-compare');
    await page.click('details.new-pull summary');
    expect(await page.inputValue('.new-pull-form input[name=title]')).to.equal('Tune two constants');
    expect(await page.inputValue('.new-pull-form textarea[name=content]')).to.equal('Three and nine were off by a factor of ten.');
    await Promise.all([page.waitForURL(url('alice/app/pulls/1')), page.click('.new-pull-form button[type=submit]')]);
    expect(await page.locator('.state-label.open').count()).to.equal(1);
    const pr = await api('GET', '/pulls/1');
    expect(pr.body).to.deep.include({ title: 'Tune two constants', body: 'Three and nine were off by a factor of ten.' });
    expect(pr.body.head.ref).to.equal('tune');
  });

  it('lets bob comment on two lines into a pending review and request changes', async () => {
    const page = pb.page;
    await page.goto(url('alice/app/pulls/1/files'));
    for (const [line, text, button] of [[4, 'Why thirty?', 'Start a review'], [10, 'And ninety?', 'Add review comment']] as const) {
      const row = page.locator(`tr:has(td.num.n:text-is("${line}"))`);
      await row.locator('td.line').hover();
      await row.locator('button.add-line-comment').click();
      await page.fill('tr.comment-form-row textarea[name=content]', text);
      await Promise.all([page.waitForEvent('load'), page.click(`tr.comment-form-row button:text-is("${button}")`)]);
    }
    // only bob sees the pending comments
    expect(await page.locator('.thread .badge:text-is("Pending")').count()).to.equal(2);
    expect(await page.locator('.pending-count').textContent()).to.equal('2');
    await pa.page.goto(url('alice/app/pulls/1/files'));
    expect(await pa.page.locator('.thread').count()).to.equal(0);

    await page.fill('.review-form textarea[name=content]', 'Two constants look wrong.');
    await page.check('.review-form input[value=REQUEST_CHANGES]');
    await Promise.all([page.waitForURL(url('alice/app/pulls/1')), page.click('.review-form button[type=submit]')]);
    expect(await page.locator('.review-changes .event-line').textContent()).to.include('requested changes');
    expect(await page.locator('.review-changes .thread').count()).to.equal(2);
    const reviews = (await api('GET', '/pulls/1/reviews')).body as { state: string; comments_count: number }[];
    expect(reviews.map((r) => [r.state, r.comments_count])).to.deep.equal([['REQUEST_CHANGES', 2]]);
  });

  it('lets alice reply in a thread and resolve it, on the lines of Files changed', async () => {
    const page = pa.page;
    await page.goto(url('alice/app/pulls/1/files'));
    const threads = page.locator('tr.thread-row .thread');
    expect(await threads.count()).to.equal(2);
    // the first thread sits right under the line it is about
    expect(await page.locator('tr:has(td.num.n:text-is("4")) + tr.thread-row').count()).to.equal(1);
    await look(page, 'review-files');
    const first = threads.first();
    await first.locator('summary:has-text("Reply")').click();
    await first.locator('textarea[name=content]').fill('It was a typo: see the **spec**.');
    await Promise.all([page.waitForEvent('load'), first.locator('.reply-form button[type=submit]').click()]);
    expect(await page.locator('tr.thread-row .thread').first().locator('.thread-comment').count()).to.equal(2);
    await Promise.all([page.waitForEvent('load'), page.locator('tr.thread-row .thread').first().locator('.resolve-form button').click()]);
    expect(await page.locator('.thread.resolved .resolved-note').textContent()).to.include('alice marked this conversation as resolved');
    await page.goto(url('alice/app/pulls/1'));
    await look(page, 'review-conversation');
    expect(await page.locator('.reviewer.review-changes .name').textContent()).to.equal('bob');
  });

  it('lets bob approve, and alice merge with a named style', async () => {
    await pb.page.goto(url('alice/app/pulls/1/files'));
    await pb.page.fill('.review-form textarea[name=content]', 'Thanks, fine now.');
    await pb.page.check('.review-form input[value=APPROVED]');
    await Promise.all([pb.page.waitForURL(url('alice/app/pulls/1')), pb.page.click('.review-form button[type=submit]')]);

    const page = pa.page;
    for (let i = 0; i < 100 && !(await api('GET', '/pulls/1')).body.mergeable; i++) await page.waitForTimeout(100);
    await page.goto(url('alice/app/pulls/1'));
    expect(await page.locator('.reviewer.review-approved .name').textContent()).to.equal('bob');
    expect(await page.locator('.merge-box label:has(input[value=squash])').textContent()).to.include('Create squash commit');
    await page.check('.merge-box input[value=squash]');
    await Promise.all([page.waitForEvent('load'), page.click('.merge-box button[type=submit]')]);
    expect(await page.locator('.merge-done').textContent()).to.include('Pull request successfully merged.');
    expect(await page.locator('.state-label.merged').textContent()).to.include('Merged');
    expect(await page.locator('.issue-meta').textContent()).to.not.include('wants to merge');
    await look(page, 'review-merged');
    expect((await api('GET', '/pulls/1')).body.merged).to.equal(true);
  });
});
