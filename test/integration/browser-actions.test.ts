/**
 * The Actions pages in a real browser, with a workflow pushed by git and run by the conformance
 * runner: the run page opened while its job runs shows the step's lines as the runner reports them,
 * with no reload (the step waits on a gate the test opens once the first line is on screen), ANSI
 * colours drawn as classes; then Rerun starts a second attempt, watched to its end the same way.
 * The Actions tab and the run page pass axe and fit 375 px.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { startWorld, type World, type TestUser } from '../helpers/world';
import { apiRepo, GitTool, waitFor } from '../helpers/refs';
import { ConformanceRunner } from '../helpers/actions-runner';
import { launchBrowser, look, watchedPage, type WatchedPage } from '../helpers/browser';

describe('actions pages in a browser', () => {
  let w: World;
  let alice: TestUser;
  let browser: Browser;
  let pa: WatchedPage;
  let runner: ConformanceRunner;
  let g: GitTool;
  const gate = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'forge-gate-')), 'open');
  const url = (p = '') => `${w.server.rootUrl}${p}`;
  const call = (method: string, p: string, body?: unknown) => w.raw(method, p, body, { token: alice.token });
  const workflow = `name: Build
on: push
jobs:
  build:
    runs-on: ubuntu-latest
    steps:
      - name: talk slowly
        run: |
          printf '\\033[32mstarting\\033[0m the build\\n'
          while [ ! -f ${gate} ]; do sleep 0.1; done
          echo second-line
          sleep 1
          echo done-line
`;

  before(async () => {
    w = await startWorld();
    alice = await w.user('alice');
    g = new GitTool(w);
    await apiRepo(w, alice, 'app');
    const dir = await g.clone(alice, 'alice', 'app');
    fs.mkdirSync(path.join(dir, '.gitea/workflows'), { recursive: true });
    fs.writeFileSync(path.join(dir, '.gitea/workflows/build.yml'), workflow);
    await g.ok(['add', '-A'], dir);
    await g.ok(['commit', '-q', '-m', 'Build on every push'], dir);
    await g.ok(['push', '-q', 'origin', 'HEAD:main'], dir);
    const reg = await call('POST', '/user/actions/runners/registration-token');
    runner = await ConformanceRunner.register(w.server.url, reg.body.token, { name: 'browser', labels: ['ubuntu-latest'] });
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

  /** Run the job on the runner while the page watches: the first line, then the gate, then the rest. */
  async function watchAttempt(attempt: number): Promise<void> {
    const { page } = pa;
    fs.rmSync(gate, { force: true });
    const drained = runner.drain();
    await waitFor('the job to run', async () => {
      const jobs = (await call('GET', '/repos/alice/app/actions/jobs')).body.jobs as { status: string; run_attempt: number }[];
      return jobs.some((j) => j.status === 'in_progress' && j.run_attempt === attempt);
    });
    if (attempt === 1) await page.goto(url('alice/app/actions/runs/1'));
    // why: a marker on the window survives only as long as the document does: it proves no reload.
    await page.evaluate('window.__sameDocument = true');
    const log = page.locator('.job-step[data-step="1"] .step-log');
    await log.locator('.log-line', { hasText: 'starting the build' }).waitFor();
    expect(await log.locator('.log-line', { hasText: 'done-line' }).count()).to.equal(0);
    expect(await page.locator('.job-head .action-status').getAttribute('data-status')).to.equal('running');
    fs.writeFileSync(gate, '');
    await log.locator('.log-line', { hasText: 'second-line' }).waitFor();
    await log.locator('.log-line', { hasText: 'done-line' }).waitFor();
    await page.locator('.job-head .action-status[data-status="success"]').waitFor();
    await drained;
    expect(await page.evaluate('window.__sameDocument')).to.equal(true);
    expect(await log.locator('.ansi-green-fg').first().textContent()).to.equal('starting');
    expect(await page.evaluate('getComputedStyle(document.querySelector(".step-log .ansi-green-fg")).color')).to.equal('rgb(63, 185, 80)');
    expect(await page.locator('.job-attempt-n').textContent()).to.equal(String(attempt));
    // the lines are each there once, in order
    const texts = await log.locator('.log-text').allTextContents();
    expect(texts.filter((t) => /starting|second-line|done-line/.test(t))).to.deep.equal(['starting the build', 'second-line', 'done-line']);
  }

  it('watches a running job live, then reruns it and watches the new attempt', async () => {
    const { page } = pa;
    await waitFor('the pushed run', async () => (await call('GET', '/repos/alice/app/actions/runs')).body.total_count >= 1);
    await watchAttempt(1);
    await page.reload();
    await look(page, 'actions-run');
    await Promise.all([page.waitForURL(url('alice/app/actions/runs/1')), page.click('button.run-rerun')]);
    expect(await page.locator('.flash.success').textContent()).to.include('starts again');
    await watchAttempt(2);
  });

  it('lists the run on the Actions tab and opens a folded step on demand', async () => {
    const { page } = pa;
    await page.goto(url('alice/app/actions'));
    expect(await page.locator('.actions-run-title').allTextContents()).to.deep.equal(['Build on every push']);
    await look(page, 'actions-list');
    await page.click('.actions-run-title');
    const step = page.locator('.job-step[data-step="1"]');
    expect(await step.getAttribute('open')).to.equal(null);
    await step.locator('summary').click();
    await step.locator('.log-line', { hasText: 'done-line' }).waitFor();
    expect(await step.locator('.log-line').count()).to.equal(3);
    expect(await step.locator('.step-earlier').isVisible()).to.equal(false);
    await look(page, 'actions-run-log');
  });

  it('brings a long step\'s last lines when opened, and the earlier ones on demand', async () => {
    const { page } = pa;
    const dir = await g.clone(alice, 'alice', 'app');
    fs.writeFileSync(path.join(dir, '.gitea/workflows/long.yml'), 'name: Long\non: push\njobs:\n  count:\n    runs-on: ubuntu-latest\n    steps:\n      - name: count\n        run: seq 1 450 | sed "s/^/row /"\n');
    await g.ok(['add', '-A'], dir);
    await g.ok(['commit', '-q', '-m', 'Count to 450'], dir);
    await g.ok(['push', '-q', 'origin', 'HEAD:main'], dir);
    // the push starts Build again (its gate is open now) and Long
    await waitFor('the new runs', async () => (await call('GET', '/repos/alice/app/actions/runs')).body.total_count === 3);
    await runner.drain();
    const long = ((await call('GET', '/repos/alice/app/actions/runs')).body.workflow_runs as { path: string; html_url: string }[]).find((r) => r.path.startsWith('long.yml'))!;
    await page.goto(long.html_url);
    const step = page.locator('.job-step[data-step="1"]');
    await step.locator('summary').click();
    await step.locator('.log-line', { hasText: 'row 450' }).waitFor();
    expect(await step.locator('.log-line').count()).to.equal(200);
    expect(await step.locator('.log-num').first().textContent()).to.equal('251');
    await step.locator('.step-earlier').click();
    await step.locator('.log-text', { hasText: /^row 1$/ }).waitFor();
    expect(await step.locator('.log-line').count()).to.equal(450);
    expect((await step.locator('.log-num').allTextContents()).map(Number)).to.deep.equal(Array.from({ length: 450 }, (_, i) => i + 1));
    expect(await step.locator('.step-earlier').isVisible()).to.equal(false);
  });

  it('starts over on a job run again elsewhere while its page is open (the other job still running)', async () => {
    const { page } = pa;
    const gate2 = `${gate}-2`;
    const dir = await g.clone(alice, 'alice', 'app');
    fs.writeFileSync(path.join(dir, '.gitea/workflows/pair.yml'), `name: Pair\non: push\njobs:\n  quick:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo quick-line\n  slow:\n    runs-on: ubuntu-latest\n    steps:\n      - run: while [ ! -f ${gate2} ]; do sleep 0.1; done\n`);
    await g.ok(['add', '-A'], dir);
    await g.ok(['commit', '-q', '-m', 'Two jobs'], dir);
    await g.ok(['push', '-q', 'origin', 'HEAD:main'], dir);
    await waitFor('the pair run', async () => ((await call('GET', '/repos/alice/app/actions/runs')).body.workflow_runs as { path: string }[]).some((r) => r.path.startsWith('pair.yml')));
    const pair = ((await call('GET', '/repos/alice/app/actions/runs')).body.workflow_runs as { id: number; path: string }[]).find((r) => r.path.startsWith('pair.yml'))!;
    const reg = await call('POST', '/user/actions/runners/registration-token');
    const [second, third] = await Promise.all(['second', 'third'].map((name) => ConformanceRunner.register(w.server.url, reg.body.token, { name, labels: ['ubuntu-latest'] })));
    const drains = [runner.drain(), second.drain()];
    const jobsOf = async () => (await call('GET', `/repos/alice/app/actions/runs/${pair.id}/jobs`)).body.jobs as { id: number; name: string; status: string; conclusion?: string; run_attempt: number; html_url: string }[];
    await waitFor('quick done, slow running', async () => {
      const jobs = await jobsOf();
      return jobs.find((j) => j.name === 'quick')?.conclusion === 'success' && jobs.find((j) => j.name === 'slow')?.status === 'in_progress';
    });
    const quick = (await jobsOf()).find((j) => j.name === 'quick')!;
    await page.goto(quick.html_url);
    expect(await page.locator('.run-view').getAttribute('data-live')).to.equal('true');
    await page.evaluate('window.__sameDocument = true');
    expect((await call('POST', `/repos/alice/app/actions/jobs/${quick.id}/rerun`)).status).to.be.oneOf([200, 201, 204]);
    await third.drain();
    await page.locator('.job-attempt-n', { hasText: '2' }).waitFor();
    expect(await page.evaluate('window.__sameDocument')).to.equal(undefined);
    await page.locator('.job-head .action-status[data-status="success"]').waitFor();
    fs.writeFileSync(gate2, '');
    await Promise.all(drains);
  });

  it('keeps the Actions tab and a run\'s log readable in the dark theme', async () => {
    const { page } = pa;
    await page.goto(url('user/settings/appearance'));
    await page.check('input[name=theme][value=gitea-dark]');
    await Promise.all([page.waitForURL(url('user/settings/appearance')), page.click('form.theme-form button[type=submit]')]);
    expect(await page.getAttribute('html', 'data-theme')).to.equal('gitea-dark');
    await page.goto(url('alice/app/actions'));
    await look(page, 'dark-actions-list');
    await page.goto(url('alice/app/actions/runs/1'));
    await page.locator('.job-step[data-step="1"] summary').click();
    await page.locator('.job-step[data-step="1"] .log-line', { hasText: 'done-line' }).waitFor();
    await look(page, 'dark-actions-run');
  });
});
