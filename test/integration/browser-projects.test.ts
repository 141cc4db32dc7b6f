/**
 * Project boards in a real browser (Debian's Chromium), as a Gitea user plans with one: a board made
 * from the basic kanban template; three issues put on it from their sidebars; one card dragged to
 * Done, two reordered by dragging, one moved with the card's menu from the keyboard alone; the
 * order still there after a reload, a closed issue's card shown as closed; then the repository's projects turned off in its settings
 * (owner projects only), and the Projects tab and the sidebar's repository projects gone while the
 * owner's project stays. Every page passes the accessibility check and fits 375 px, the board
 * scrolling sideways within itself.
 */
import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { startWorld, type World, type TestUser } from '../helpers/world';
import { apiRepo } from '../helpers/refs';
import { launchBrowser, look, screenshot, watchedPage, type WatchedPage } from '../helpers/browser';

describe('project boards in a browser', function () {
  this.timeout(120_000);
  let w: World;
  let alice: TestUser;
  let browser: Browser;
  let wp: WatchedPage;
  let page: Page;
  let boardUrl = '';
  const ids: number[] = [];
  const url = (p = '') => `${w.server.rootUrl}${p}`;

  /** Each column's title and card issue ids, in order, as the page shows them. */
  const columns = (p: Page) => p.$$eval('.project-column', (cols) => cols.map((c) => ({
    title: c.querySelector('.project-column-title')!.textContent!.trim(),
    cards: [...c.querySelectorAll('.project-card')].map((x) => Number(x.getAttribute('data-issue'))),
  })));
  const cardsOf = async (title: string) => (await columns(page)).find((c) => c.title === title)!.cards;
  /** Drag a card onto `target` and wait for the board to save the new order. */
  const drag = async (card: number, target: string, position?: { x: number; y: number }) => {
    const saved = page.waitForResponse((r) => r.request().method() === 'POST' && r.url().endsWith('/move'));
    await page.locator(`#card-${card}`).dragTo(page.locator(target), position ? { targetPosition: position } : {});
    expect((await saved).status()).to.equal(200);
  };

  before(async () => {
    w = await startWorld();
    alice = await w.user('alice');
    await apiRepo(w, alice, 'board');
    const bug = (await w.raw('POST', '/repos/alice/board/labels', { name: 'bug', color: '#d73a4a' }, { token: alice.token })).body.id;
    for (const title of ['Write the docs', 'Fix the login bug', 'Ship the release']) {
      ids.push((await w.raw('POST', '/repos/alice/board/issues', { title, labels: title.includes('bug') ? [bug] : [] }, { token: alice.token })).body.id);
    }
    browser = await launchBrowser();
    wp = await watchedPage(browser);
    page = wp.page;
    await page.goto(url('user/login'));
    await page.fill('input[name=user_name]', alice.name);
    await page.fill('input[name=password]', alice.password);
    await page.click('form[action$="/user/login"] button[type=submit]');
    await page.waitForURL(url());
  });
  after(async () => {
    await browser?.close();
    await w?.stop();
  });
  afterEach(function () {
    expect(wp.problems, this.currentTest?.title).to.deep.equal([]);
  });

  it('makes a board from the basic kanban template', async () => {
    await page.goto(url('alice/board'));
    await page.click('nav.tabs >> text=Projects');
    await page.waitForURL(url('alice/board/projects'));
    await look(page, 'projects-list-empty');
    await page.click('a.new-project');
    await look(page, 'project-new');
    await page.fill('input[name=title]', 'Release 1.0');
    await page.fill('textarea[name=content]', 'What ships in **1.0**.');
    await page.check('input[name=template_type][value="1"]');
    await page.click('.project-form button[type=submit]');
    await page.waitForURL(/\/alice\/board\/projects\/\d+$/);
    boardUrl = page.url();
    expect((await columns(page)).map((c) => c.title)).to.deep.equal(['Backlog', 'To Do', 'In Progress', 'Done']);
    expect(await page.locator('.project-desc strong').textContent()).to.equal('1.0');
  });

  it('puts three issues on the board from their sidebars', async () => {
    for (const n of [1, 2, 3]) {
      await page.goto(url(`alice/board/issues/${n}`));
      await page.selectOption('select[name=target]', { label: 'Release 1.0: Backlog (default)' });
      await page.click('form.sidebar-project button[type=submit]');
      await page.locator('.flash.success', { hasText: 'The project is saved.' }).waitFor();
    }
    await look(page, 'issue-sidebar-project');
    expect(await page.locator('.event-project').textContent()).to.include('added this to the project "Release 1.0"');
    await page.goto(boardUrl);
    expect(await cardsOf('Backlog')).to.deep.equal(ids);
    await look(page, 'project-board');
  });

  it('drags a card to Done, reorders two, moves one with the keyboard, and keeps the order after a reload', async () => {
    await drag(ids[0], '.project-column:has(h2:text-is("Done")) .project-cards');
    expect(await cardsOf('Done')).to.deep.equal([ids[0]]);
    expect(await page.locator('.project-column:has(h2:text-is("Done")) .column-count').textContent()).to.equal('1');
    // the third card dropped on the top edge of the second: above it
    await drag(ids[2], `#card-${ids[1]}`, { x: 20, y: 3 });
    expect(await cardsOf('Backlog')).to.deep.equal([ids[2], ids[1]]);
    // the "Move to" menu without a pointer: open it and choose a column from the keyboard
    await page.locator(`#card-${ids[1]} .card-move summary`).focus();
    await page.keyboard.press('Enter');
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement.name')).to.equal('column');
    await page.keyboard.type('In Progress');
    await screenshot(page, 'project-card-menu');
    await page.keyboard.press('Tab');
    await Promise.all([page.waitForURL(boardUrl), page.keyboard.press('Enter')]);
    await page.locator('.flash.success', { hasText: 'The card is moved.' }).waitFor();
    const expected = [
      { title: 'Backlog', cards: [ids[2]] }, { title: 'To Do', cards: [] }, { title: 'In Progress', cards: [ids[1]] }, { title: 'Done', cards: [ids[0]] },
    ];
    expect(await columns(page)).to.deep.equal(expected);
    // a closed issue's card stays where it is, shown as closed
    expect((await w.raw('PATCH', '/repos/alice/board/issues/1', { state: 'closed' }, { token: alice.token })).status).to.equal(201);
    await page.reload();
    expect(await columns(page)).to.deep.equal(expected);
    expect(await page.locator(`#card-${ids[0]}.closed .card-closed`).textContent()).to.equal('Closed');
    expect(await page.locator(`#card-${ids[1]} .issue-label`).textContent()).to.equal('bug');
    // narrow: the page fits the screen, and the board scrolls sideways within itself
    await look(page, 'project-board-moved');
    await page.setViewportSize({ width: 375, height: 800 });
    expect(await page.$eval('.project-board', (b) => b.scrollWidth > b.clientWidth)).to.equal(true);
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(url('alice/board/issues/1'));
    expect(await page.locator('.event-project_board').textContent()).to.include('moved this to "Done" in the project "Release 1.0"');
  });

  it("turns the repository's projects off: its tab and sidebar choices go, the owner's project stays", async () => {
    await page.goto(url('alice/-/projects/new'));
    await page.fill('input[name=title]', "Alice's year");
    await page.click('.project-form button[type=submit]');
    await page.waitForURL(/\/alice\/-\/projects\/\d+$/);
    await look(page, 'project-owner-board');
    await page.goto(url('alice/board/settings'));
    await page.selectOption('select[name=projects_mode]', 'owner');
    await page.click('form.repo-options button[type=submit]');
    await page.locator('.flash.success').waitFor();
    await page.goto(url('alice/board'));
    expect(await page.locator('nav.tabs a[href$="/alice/board/projects"]').count()).to.equal(0);
    await page.goto(url('alice/board/issues/2'));
    const options = await page.$$eval('select[name=target] option', (os) => os.map((o) => o.textContent!.trim()));
    expect(options).to.include("Alice's year: Uncategorized (default)");
    expect(options.some((o) => o.startsWith('Release 1.0'))).to.equal(false);
    await look(page, 'issue-sidebar-owner-only');
    await page.goto(url('alice/-/projects'));
    expect(await page.locator('.project-row a', { hasText: "Alice's year" }).count()).to.equal(1);
    await look(page, 'projects-owner-list');
  });
});
