/**
 * The Actions pages over HTTP, with workflows pushed by git and run by the conformance runner: the
 * Actions tab (workflows with a broken file's error, runs, filters), a run's page at the `html_url`
 * the API gives and its statuses' `target_url`, lines escaped and ANSI colours as classes, the live
 * fetch's per-step cursors (only new lines, while the runner reports and once the log is archived),
 * Disable/Enable and Run workflow with inputs, and every refusal: anonymous and unrelated users on a
 * private repository, the unit off, and a reader's POSTs, each changing nothing.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { create } from '@bufbuild/protobuf';
import { startWorld, type World, type TestUser } from '../helpers/world';
import { apiRepo, GitTool, waitFor } from '../helpers/refs';
import { ConformanceRunner } from '../helpers/actions-runner';
import { WebClient } from '../helpers/web';
import { RunnerResult, runnerMessage } from '../../src/api/runner-proto';

const CI = `name: CI
on:
  push:
    branches: [main]
jobs:
  build:
    runs-on: ubuntu-latest
    steps:
      - name: colour
        run: printf '\\033[31mred\\033[0m plain\\n'
      - name: count
        run: seq 1 500 | sed 's/^/n /'
`;
const FAIL = `name: Fail
on: push
jobs:
  check:
    runs-on: ubuntu-latest
    steps:
      - name: breaks
        run: |
          echo '<b>bold</b><script>alert(1)</script>'
          printf '\\033[1;32mgreen\\033[0m\\n'
          exit 3
`;
const DEPLOY = `name: Deploy
on:
  workflow_dispatch:
    inputs:
      target:
        description: Where to
        default: staging
      level:
        type: choice
        options: [low, high]
        default: low
      dry:
        type: boolean
        default: true
jobs:
  go:
    runs-on: ubuntu-latest
    steps:
      - run: echo "to \${{ inputs.target }} at \${{ inputs.level }} dry \${{ inputs.dry }}"
`;
const BROKEN = 'on: [push\njobs: {}\n';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

describe('actions pages', () => {
  let w: World;
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;
  let g: GitTool;
  let runner: ConformanceRunner;
  let web: WebClient;
  let reader: WebClient;
  const call = (method: string, p: string, body?: unknown, u: TestUser = alice) => w.raw(method, p, body, { token: u.token });
  const runs = async (repo: string) => (await call('GET', `/repos/alice/${repo}/actions/runs`)).body as { total_count: number; workflow_runs: Any[] };

  async function push(repo: string, files: Record<string, string>): Promise<string> {
    const dir = await g.clone(alice, 'alice', repo);
    for (const [name, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
      fs.writeFileSync(path.join(dir, name), text);
    }
    await g.ok(['add', '-A'], dir);
    await g.ok(['commit', '-q', '-m', `Add the workflows of ${repo}\n\nbody text`], dir);
    await g.ok(['push', '-q', 'origin', 'HEAD:main'], dir);
    return g.ok(['rev-parse', 'HEAD'], dir);
  }

  before(async () => {
    w = await startWorld();
    alice = await w.user('alice');
    bob = await w.user('bob');
    carol = await w.user('carol');
    g = new GitTool(w);
    const reg = await call('POST', '/user/actions/runners/registration-token');
    runner = await ConformanceRunner.register(w.server.url, reg.body.token, { name: 'pages', labels: ['ubuntu-latest'] });
    await apiRepo(w, alice, 'ci');
    expect((await call('PUT', '/repos/alice/ci/collaborators/bob', { permission: 'read' })).status).to.equal(204);
    await push('ci', { '.gitea/workflows/ci.yml': CI, '.gitea/workflows/fail.yml': FAIL, '.gitea/workflows/deploy.yml': DEPLOY, '.gitea/workflows/broken.yml': BROKEN });
    await waitFor('the pushed runs', async () => (await runs('ci')).total_count >= 3);
    await runner.drain();
    web = await WebClient.signedIn(w, alice);
    reader = await WebClient.signedIn(w, bob);
  });
  after(() => w.stop());

  it('lists the workflows (a broken one with its error) and the runs, with the tab in the header', async () => {
    const res = await web.get('alice/ci/actions');
    expect(res.status).to.equal(200);
    expect(res.text).to.include('href="/alice/ci/actions"');
    for (const id of ['ci.yml', 'fail.yml', 'deploy.yml', 'broken.yml']) expect(res.text).to.include(`>${id}</a>`);
    expect(res.text).to.match(/actions-workflow-error[^>]*>[\s\S]*?Invalid workflow/);
    const titles = [...res.text.matchAll(/class="actions-run-title" href="([^"]+)">([^<]*)</g)].map((m) => [m[1], m[2]]);
    expect(titles).to.have.length(3);
    expect(titles.every(([, t]) => t === 'Add the workflows of ci')).to.equal(true);
    expect(res.text).to.include('<strong>ci.yml</strong> #');
    expect(res.text).to.include('class="action-status status-failure"');
  });

  it('filters the runs by workflow, status, actor and event', async () => {
    const count = async (q: string) => [...(await web.get(`alice/ci/actions?${q}`)).text.matchAll(/class="actions-run-title"/g)].length;
    expect(await count('workflow=ci.yml')).to.equal(1);
    expect(await count('status=failure')).to.equal(2);
    expect(await count('status=success')).to.equal(1);
    expect(await count('workflow=fail.yml&status=success')).to.equal(0);
    expect(await count('actor=alice')).to.equal(3);
    expect(await count('actor=nobody-here')).to.equal(0);
    expect(await count('event=push')).to.equal(3);
    expect(await count('event=workflow_dispatch')).to.equal(0);
    // an unknown status word is no filter, not an error page
    expect(await count('status=bogus')).to.equal(3);
  });

  it('serves a run at the html_url the API gives, and its commit statuses link to the job page', async () => {
    const ci = (await runs('ci')).workflow_runs.find((r: Any) => r.path.startsWith('ci.yml'));
    const url = new URL(ci.html_url);
    const page = await web.get(url.pathname.slice(1));
    expect(page.status).to.equal(200);
    expect(page.text).to.include('Add the workflows of ci');
    expect(page.text).to.match(/class="step-name">colour</);
    expect(page.text).to.match(/class="step-name">count</);
    expect(page.text).to.include('Set up job');
    expect(page.text).to.include('Complete job');
    const jobs = (await call('GET', `/repos/alice/ci/actions/runs/${ci.id}/jobs`)).body.jobs as Any[];
    expect((await web.get(new URL(jobs[0].html_url).pathname.slice(1))).status).to.equal(200);
    const statuses = (await call('GET', `/repos/alice/ci/commits/${ci.head_sha}/statuses`)).body as Any[];
    const mine = statuses.find((s: Any) => s.context.startsWith('CI / build'));
    expect(mine.target_url).to.equal(`/alice/ci/actions/runs/${ci.run_number}/jobs/0`);
    expect((await web.get(mine.target_url.slice(1))).status).to.equal(200);
    expect((await web.get(`alice/ci/actions/runs/${ci.run_number}/jobs/7`)).status).to.equal(404);
    expect((await web.get('alice/ci/actions/runs/999')).status).to.equal(404);
  });

  it('escapes the log and draws ANSI colours as classes; a failed step is open with its lines', async () => {
    const fail = (await runs('ci')).workflow_runs.find((r: Any) => r.path.startsWith('fail.yml'));
    const page = await web.get(new URL(fail.html_url).pathname.slice(1));
    expect(page.text).to.include('&lt;b&gt;bold&lt;/b&gt;&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(page.text).not.to.include('<script>alert(1)');
    expect(page.text).to.include('<span class="ansi-green-fg ansi-bold">green</span>');
    expect(page.text).to.match(/<details class="job-step" data-step="1"[^>]* open>/);
  });

  it('answers the live fetch with only the lines after each cursor', async () => {
    const ci = (await runs('ci')).workflow_runs.find((r: Any) => r.path.startsWith('ci.yml'));
    const at = `alice/ci/actions/runs/${ci.run_number}/jobs/0`;
    await web.get(at);
    const fetchLines = async (cursors: unknown[]) => {
      const res = await web.json(at, { logCursors: cursors });
      expect(res.status, res.text).to.equal(200);
      return JSON.parse(res.text) as { state: Any; logs: { step: number; cursor: number; lines: { n: number; segs: [string, string][] }[] }[] };
    };
    const all = await fetchLines([{ step: 2, cursor: 0 }, { step: 1, cursor: 0 }]);
    expect(all.state.job.done).to.equal(true);
    expect(all.state.job.sections.map((s: Any) => s.name)).to.deep.equal(['Set up job', 'colour', 'count', 'Complete job']);
    const count = all.logs.find((l) => l.step === 2)!;
    expect(count.lines).to.have.length(500);
    expect(count.lines[0]).to.deep.include({ n: 1, segs: [['', 'n 1']] });
    expect(all.logs.find((l) => l.step === 1)!.lines[0].segs).to.deep.equal([['ansi-red-fg', 'red'], ['', ' plain']]);
    const tail = await fetchLines([{ step: 2, cursor: 490 }]);
    expect(tail.logs[0].lines.map((l) => l.n)).to.deep.equal([491, 492, 493, 494, 495, 496, 497, 498, 499, 500]);
    expect((await fetchLines([{ step: 2, cursor: 500 }])).logs[0].lines).to.deep.equal([]);
    expect((await fetchLines([{ step: 2, cursor: 100, limit: 3 }])).logs[0].lines.map((l) => l.n)).to.deep.equal([101, 102, 103]);
    // a fetch without the CSRF token, or from another site, is refused
    const forged = await web.request('POST', at, { body: '{"logCursors":[]}', headers: { 'Content-Type': 'application/json', Origin: new URL(w.server.rootUrl).origin } });
    expect(forged.status).to.equal(403);
  });

  it('streams a running job: each fetch brings only the rows the runner appended since the cursor', async () => {
    await apiRepo(w, alice, 'live');
    await push('live', { '.gitea/workflows/live.yml': 'on: push\njobs:\n  j:\n    runs-on: ubuntu-latest\n    steps:\n      - name: talk\n        run: echo hi\n' });
    await waitFor('the live run', async () => (await runs('live')).total_count >= 1);
    let task: Any;
    await waitFor('the live task', async () => !!(task = await runner.fetch(3000)));
    const row = (content: string) => ({ time: timestampFromDate(new Date()), content });
    const state = (steps: Any[], result = RunnerResult.Unspecified) => create(runnerMessage('TaskState'), {
      id: task.id, result, startedAt: timestampFromDate(new Date()), ...(result ? { stoppedAt: timestampFromDate(new Date()) } : {}), steps,
    } as Any);
    await runner.client.updateLog({ taskId: task.id, index: 0n, rows: [row('setting up')], noMore: false }, runner.call());
    await runner.client.updateTask({ state: state([{ id: 0n, logIndex: 1n, logLength: 0n, startedAt: timestampFromDate(new Date()) }]), outputs: {} }, runner.call());
    await runner.client.updateLog({ taskId: task.id, index: 1n, rows: [row('first'), row('\x1b[33msecond\x1b[0m')], noMore: false }, runner.call());
    const at = 'alice/live/actions/runs/1/jobs/0';
    const page = await web.get(at);
    expect(page.text).to.include('data-live="true"');
    expect(page.text).to.match(/<details class="job-step" data-step="1"[^>]* open>/);
    expect(page.text).to.include('<span class="ansi-yellow-fg">second</span>');
    const ask = async (cursor: number) => JSON.parse((await web.json(at, { logCursors: [{ step: 1, cursor }] })).text) as Any;
    const first = await ask(0);
    expect(first.state.job.done).to.equal(false);
    expect(first.logs[0].lines.map((l: Any) => l.segs.map((s: Any) => s[1]).join(''))).to.deep.equal(['first', 'second']);
    // a reader cannot cancel it: 403 page, still running
    await reader.get(at);
    const refused = await reader.form(`alice/live/actions/runs/1/cancel`, {});
    expect(refused.status).to.equal(403);
    expect(refused.text).to.include('Access denied');
    expect((await runs('live')).workflow_runs[0].status).to.equal('in_progress');
    await runner.client.updateLog({ taskId: task.id, index: 3n, rows: [row('third')], noMore: false }, runner.call());
    const next = await ask(2);
    expect(next.logs[0].lines.map((l: Any) => [l.n, l.segs[0][1]])).to.deep.equal([[3, 'third']]);
    expect((await ask(3)).logs[0].lines).to.deep.equal([]);
    // the end: the last rows archived with the log; the cursor reads on from the compressed file
    await runner.client.updateLog({ taskId: task.id, index: 4n, rows: [row('fourth'), row('done')], noMore: true }, runner.call());
    await runner.client.updateTask({ state: state([{ id: 0n, result: RunnerResult.Success, logIndex: 1n, logLength: 4n, startedAt: timestampFromDate(new Date()), stoppedAt: timestampFromDate(new Date()) }], RunnerResult.Success), outputs: {} }, runner.call());
    const last = await ask(3);
    expect(last.state.job.done).to.equal(true);
    expect(last.logs[0].lines.map((l: Any) => l.segs[0][1])).to.deep.equal(['fourth']);
    expect(last.state.job.sections.map((s: Any) => [s.name, s.total])).to.deep.equal([['Set up job', 1], ['talk', 4], ['Complete job', 1]]);
  });

  it('disables and enables a workflow, and runs one with its inputs from the form', async () => {
    const list = await web.get('alice/ci/actions?workflow=deploy.yml');
    expect(list.text).to.include('name="inputs.target" value="staging"');
    expect(list.text).to.match(/<option value="low" selected>low<\/option>/);
    expect(list.text).to.include('name="inputs.dry" value="true" checked');
    const state = async () => (await call('GET', '/repos/alice/ci/actions/workflows/deploy.yml')).body.state;
    expect((await web.form('alice/ci/actions/disable?workflow=deploy.yml', {})).status).to.equal(303);
    expect(await state()).to.equal('disabled_manually');
    const disabled = await web.get('alice/ci/actions?workflow=deploy.yml');
    expect(disabled.text).to.include('Enable workflow');
    expect(disabled.text).not.to.include('run-workflow-form');
    expect((await web.form('alice/ci/actions/enable?workflow=deploy.yml', {})).status).to.equal(303);
    expect(await state()).to.equal('active');
    const before = (await runs('ci')).total_count;
    await web.get('alice/ci/actions?workflow=deploy.yml');
    const res = await web.form('alice/ci/actions/run?workflow=deploy.yml', { ref: 'main', 'inputs.target': 'prod', 'inputs.level': 'high' });
    expect(res.status).to.equal(303);
    expect(res.location).to.equal('/alice/ci/actions?workflow=deploy.yml');
    expect((await web.get('alice/ci/actions?workflow=deploy.yml')).text).to.include('is queued to run');
    expect((await runs('ci')).total_count).to.equal(before + 1);
    const done = await runner.drain();
    expect(done.flatMap((d) => d.log)).to.include('to prod at high dry false');
    expect((await web.get('alice/ci/actions?event=workflow_dispatch')).text.match(/class="actions-run-title"/g)).to.have.length(1);
    // a ref that does not exist is refused on the page, and nothing runs
    await web.get('alice/ci/actions?workflow=deploy.yml');
    await web.form('alice/ci/actions/run?workflow=deploy.yml', { ref: 'no-such-branch' });
    expect((await web.get('alice/ci/actions?workflow=deploy.yml')).text).to.include('doesn&#39;t exist');
    expect((await runs('ci')).total_count).to.equal(before + 1);
  });

  it('reruns a run and a job for a writer; a reader gets no buttons and is refused with nothing changed', async () => {
    const ci = (await runs('ci')).workflow_runs.find((r: Any) => r.path.startsWith('ci.yml'));
    const at = `alice/ci/actions/runs/${ci.run_number}`;
    const mine = await reader.get(at);
    expect(mine.status).to.equal(200);
    for (const cls of ['run-rerun', 'job-rerun', 'run-cancel']) expect(mine.text).not.to.include(cls);
    expect((await reader.get('alice/ci/actions?workflow=deploy.yml')).text).not.to.include('Disable workflow');
    const snapshot = async () => JSON.stringify([(await runs('ci')).workflow_runs.map((r: Any) => [r.id, r.status, r.conclusion]), (await call('GET', '/repos/alice/ci/actions/workflows')).body.workflows.map((x: Any) => x.state)]);
    const was = await snapshot();
    await reader.get('alice/ci/actions');
    for (const p of [`${at}/rerun`, `${at}/jobs/0/rerun`, `${at}/cancel`, `${at}/approve`, 'alice/ci/actions/disable?workflow=ci.yml', 'alice/ci/actions/run?workflow=deploy.yml']) {
      const res = await reader.form(p, { ref: 'main' });
      expect(res.status, p).to.equal(403);
      expect(res.text, p).to.include('Access denied');
    }
    expect(await snapshot()).to.equal(was);
    // the writer reruns the job, then the whole run
    const page = await web.get(at);
    expect(page.text).to.include('run-rerun');
    expect((await web.form(`${at}/jobs/0/rerun`, {})).location).to.equal(`/${at}/jobs/0`);
    expect((await call('GET', `/repos/alice/ci/actions/runs/${ci.id}`)).body.status).to.equal('queued');
    await runner.drain();
    const again = await web.get(`${at}/jobs/0`);
    expect(again.text).to.match(/job-attempt-n">2</);
    await web.form(`${at}/rerun`, {});
    await runner.drain();
    expect((await web.get(`${at}/jobs/0`)).text).to.match(/job-attempt-n">3</);
  });

  it('links a pull request\'s checks to the job page that set them, and never to another site by a bare path', async () => {
    await apiRepo(w, alice, 'pr');
    await push('pr', { '.gitea/workflows/check.yml': 'name: Check\non: pull_request\njobs:\n  lint:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo linted\n' });
    const dir = await g.clone(alice, 'alice', 'pr');
    await g.ok(['checkout', '-q', '-b', 'topic'], dir);
    const head = await g.commit(dir, 'file.txt', 'change\n', 'Change a file');
    await g.ok(['push', '-q', 'origin', 'topic'], dir);
    const pull = await call('POST', '/repos/alice/pr/pulls', { head: 'topic', base: 'main', title: 'Change' });
    expect(pull.status).to.equal(201);
    await waitFor('the pull request run', async () => (await runs('pr')).total_count >= 1);
    await runner.drain();
    const page = await web.get(`alice/pr/pulls/${pull.body.number}`);
    expect(page.text).to.match(/<strong>Check \/ lint \(pull_request\)<\/strong>[^<]*<span class="muted">[^<]*<\/span> <a href="\/alice\/pr\/actions\/runs\/1\/jobs\/0"/);
    expect((await web.get('alice/pr/actions/runs/1/jobs/0')).status).to.equal(200);
    // a status whose target is another host written as a bare path gets no link
    expect((await call('POST', `/repos/alice/pr/statuses/${head}`, { state: 'success', context: 'evil', target_url: '//evil.example.com/x' })).status).to.equal(201);
    expect((await web.get(`alice/pr/pulls/${pull.body.number}`)).text).not.to.include('evil.example.com');
  });

  it('offers Approve on a fork\'s pull request run to writers only; a refused approval changes nothing', async () => {
    expect((await call('POST', '/repos/alice/pr/forks', {}, carol)).status).to.equal(202);
    const dir = await g.clone(carol, 'carol', 'pr');
    await g.ok(['checkout', '-q', '-b', 'from-fork'], dir);
    await g.ok(['config', 'user.email', 'carol@example.com'], dir);
    await g.commit(dir, 'fork.txt', 'fork\n', 'Fork work');
    await g.ok(['push', '-q', 'origin', 'from-fork'], dir);
    expect((await call('POST', '/repos/alice/pr/pulls', { head: 'carol:from-fork', base: 'main', title: 'From a fork' }, carol)).status).to.equal(201);
    await waitFor('the fork run', async () => (await call('GET', '/repos/alice/pr/actions/runs?status=action_required')).body.total_count === 1);
    const [blocked] = (await call('GET', '/repos/alice/pr/actions/runs?status=action_required')).body.workflow_runs;
    const at = new URL(blocked.html_url).pathname.slice(1);
    const stranger = await WebClient.signedIn(w, carol);
    const seen = await stranger.get(at);
    expect(seen.text).to.include('waits for a writer');
    expect(seen.text).not.to.include('run-approve');
    const refused = await stranger.form(`${at}/approve`, {});
    expect(refused.status).to.equal(403);
    expect((await call('GET', '/repos/alice/pr/actions/runs?status=action_required')).body.total_count).to.equal(1);
    expect((await web.get(at)).text).to.include('run-approve');
    const ok = await web.form(`${at}/approve`, {});
    expect(ok.status).to.equal(303);
    expect((await web.get(at)).text).to.include('The run is approved');
    expect((await call('GET', '/repos/alice/pr/actions/runs?status=action_required')).body.total_count).to.equal(0);
    await runner.drain();
    expect((await call('GET', `/repos/alice/pr/actions/runs/${blocked.id}`)).body.conclusion).to.equal('success');
  });

  it('lists a run\'s artifacts with links that download them', async () => {
    const client = path.join(__dirname, '../helpers/artifact-client.js');
    await apiRepo(w, alice, 'art');
    await push('art', { '.gitea/workflows/art.yml': `on: push\njobs:\n  make:\n    runs-on: ubuntu-latest\n    steps:\n      - run: |\n          mkdir out && echo hello > out/a.txt\n          node ${client} upload report out\n` });
    await waitFor('the artifact run', async () => (await runs('art')).total_count >= 1);
    await runner.drain();
    const page = await web.get('alice/art/actions/runs/1');
    expect(page.text).to.include('href="/alice/art/actions/runs/1/artifacts/report"');
    const link = await web.get('alice/art/actions/runs/1/artifacts/report');
    expect(link.status).to.equal(302);
    const zip = await fetch(link.location!);
    expect(zip.status).to.equal(200);
    expect(Buffer.from(await zip.arrayBuffer()).subarray(0, 2).toString()).to.equal('PK');
    expect((await web.get('alice/art/actions/runs/1/artifacts/nothing')).status).to.equal(404);
  });

  it('hides a private repository\'s Actions from anonymous and unrelated users, and a disabled unit from everyone', async () => {
    await apiRepo(w, alice, 'secret', { auto_init: true, private: true });
    await push('secret', { '.gitea/workflows/ci.yml': CI });
    await waitFor('the secret run', async () => (await runs('secret')).total_count >= 1);
    const anon = new WebClient(w);
    const stranger = await WebClient.signedIn(w, carol);
    for (const c of [anon, stranger]) {
      for (const p of ['alice/secret/actions', 'alice/secret/actions/runs/1', 'alice/secret/actions/runs/1/jobs/0', 'alice/secret/actions/runs/1/jobs/0/logs']) {
        const res = await c.get(p);
        expect(res.status, p).to.equal(404);
        expect(res.text).to.include('Page not found');
      }
    }
    expect((await web.get('alice/secret/actions/runs/1')).status).to.equal(200);
    await runner.drain();
    expect((await call('PATCH', '/repos/alice/secret', { has_actions: false })).status).to.equal(200);
    const home = await web.get('alice/secret');
    expect(home.text).not.to.include('href="/alice/secret/actions"');
    expect((await web.get('alice/secret/actions')).status).to.equal(404);
    expect((await web.get('alice/secret/actions/runs/1')).status).to.equal(404);
    await web.get('alice/secret');
    expect((await web.json('alice/secret/actions/runs/1/jobs/0', { logCursors: [] })).status).to.equal(404);
    expect((await web.form('alice/secret/actions/runs/1/rerun', {})).status).to.equal(404);
    expect((await call('PATCH', '/repos/alice/secret', { has_actions: true })).status).to.equal(200);
    expect((await runs('secret')).workflow_runs[0].status).to.equal('completed');
  });
});
