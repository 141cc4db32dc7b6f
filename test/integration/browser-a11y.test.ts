/**
 * The main pages a team uses, in Chromium, each at 1280 and 375 px: no horizontal scroll at 375
 * px and no accessibility violation of impact serious or critical (axe), signed in and signed
 * out. Screenshots are kept.
 */
import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { startWorld, type World, type TestUser } from '../helpers/world';
import { GitTool } from '../helpers/refs';
import { launchBrowser, pageProblems, watchedPage, type WatchedPage } from '../helpers/browser';

describe('the main pages in a browser: narrow screens and accessibility', () => {
  let w: World;
  let alice: TestUser;
  let browser: Browser;
  let wp: WatchedPage;
  const url = (p = '') => `${w.server.rootUrl}${p}`;

  /** The page's problems (pageProblems), or why it would not load. */
  async function check(page: Page, path: string, name: string): Promise<string[]> {
    const res = await page.goto(url(path));
    return [...(!res || res.status() >= 500 ? [`${path}: status ${res?.status()}`] : []), ...(await pageProblems(page, `a11y-${name}`))];
  }

  before(async () => {
    w = await startWorld();
    alice = await w.user('alice');
    expect((await w.raw('POST', '/user/repos', { name: 'app', auto_init: true, readme: 'Default', description: 'The app' }, { token: alice.token })).status).to.equal(201);
    const g = new GitTool(w);
    const dir = await g.clone(alice, 'alice', 'app');
    await g.commit(dir, 'main.ts', 'export const answer: number = 42; // the answer\n', 'Add the answer');
    await g.ok(['push', '-q', 'origin', 'HEAD:main'], dir);
    await g.ok(['checkout', '-q', '-b', 'topic'], dir);
    await g.commit(dir, 'main.ts', 'export const answer: number = 43;\n', 'Change the answer');
    await g.ok(['push', '-q', 'origin', 'topic'], dir);
    await w.raw('POST', '/repos/alice/app/labels', { name: 'kind/bug', color: '#ee0701', exclusive: true }, { token: alice.token });
    await w.raw('POST', '/repos/alice/app/issues', { title: 'The answer is wrong', body: 'See `main.ts`.\n\n- [ ] check\n', labels: [1] }, { token: alice.token });
    await w.raw('POST', '/repos/alice/app/pulls', { title: 'Change the answer', head: 'topic', base: 'main' }, { token: alice.token });
    expect((await w.raw('POST', '/orgs', { username: 'acme' }, { token: alice.token })).status).to.equal(201);
    browser = await launchBrowser();
    wp = await watchedPage(browser);
  });
  after(async () => {
    await browser?.close();
    await w?.stop();
  });
  afterEach(function () {
    expect(wp.problems, this.currentTest?.title).to.deep.equal([]);
  });

  it('signed out: home, explore, sign-in, a profile, a repository, a file, the history, an issue and a missing page', async () => {
    const pages: [string, string][] = [['', 'home-anon'], ['explore/repos', 'explore'], ['user/login', 'login'], ['alice', 'profile'], ['alice/app', 'repo-anon'],
      ['alice/app/src/branch/main/main.ts', 'file'], ['alice/app/commits/branch/main', 'commits'], ['alice/app/issues/1', 'issue-anon'], ['alice/app/no/such/page', 'not-found']];
    const problems: string[] = [];
    for (const [p, name] of pages) problems.push(...(await check(wp.page, p, name)));
    expect(problems).to.deep.equal([]);
  });

  it('signed in: dashboard, repository, issues, pull requests, blame, commit, branches, settings (an organization\'s too) and notifications', async () => {
    const page = wp.page;
    await page.goto(url('user/login'));
    await page.fill('input[name=user_name]', 'alice');
    await page.fill('input[name=password]', alice.password);
    await Promise.all([page.waitForURL(url()), page.click('form[action$="/user/login"] button[type=submit]')]);
    const pages: [string, string][] = [['', 'dashboard'], ['alice/app', 'repo'], ['alice/app/issues', 'issues'], ['alice/app/issues/1', 'issue'],
      ['alice/app/pulls', 'pulls'], ['alice/app/pulls/2', 'pull'], ['alice/app/pulls/2/files', 'pull-files'], ['alice/app/blame/branch/main/main.ts', 'blame'],
      ['alice/app/branches', 'branches'], ['alice/app/activity', 'activity'], ['alice/app/settings', 'settings'], ['alice/app/settings/keys', 'deploy-keys'],
      ['notifications', 'notifications'], ['user/settings', 'user-settings'], ['repo/create', 'repo-create'], ['org/acme/settings', 'org-settings']];
    const problems: string[] = [];
    for (const [p, name] of pages) problems.push(...(await check(page, p, name)));
    expect(problems).to.deep.equal([]);
  });
});
