/**
 * Actions end to end: workflows pushed with the git CLI run on the conformance runner (binary
 * protobuf): needs, matrix, outputs, secrets, logs in order, commit statuses, a failing step,
 * rerun, cancel, dispatch with inputs, disabled workflows, and a broken workflow file; read back
 * through the REST API.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { startWorld, type World, type TestUser } from '../helpers/world';
import { apiRepo, GitTool, waitFor } from '../helpers/refs';
import { ConformanceRunner } from '../helpers/actions-runner';
import { RunnerResult } from '../../src/api/runner-proto';
import { sql } from '../helpers/db';

const CI = `name: CI
on:
  push:
    branches: [main]
jobs:
  build:
    runs-on: ubuntu-latest
    strategy:
      matrix:
        n: [1, 2]
    outputs:
      word: \${{ steps.make.outputs.word }}
    steps:
      - name: make
        id: make
        run: |
          echo "building \${{ matrix.n }}"
          echo "word=hello-\${{ matrix.n }}" >> "$GITHUB_OUTPUT"
  test:
    runs-on: ubuntu-latest
    needs: build
    steps:
      - run: echo "got \${{ needs.build.outputs.word }} with \${{ secrets.DEPLOY }} and \${{ vars.COLOR }}"
      - run: echo second step
`;

describe('actions runs', () => {
  let w: World;
  let alice: TestUser;
  let g: GitTool;
  let runner: ConformanceRunner;
  const call = (method: string, p: string, body?: unknown, u: TestUser = alice) => w.raw(method, p, body, { token: u.token });

  /** A new repository of alice's (`setup` runs once it exists) with these workflow files pushed to main; returns the pushed commit. */
  async function pushWorkflows(repo: string, files: Record<string, string>, setup?: () => Promise<void>): Promise<string> {
    await apiRepo(w, alice, repo);
    await setup?.();
    const dir = await g.clone(alice, 'alice', repo);
    for (const [name, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
      fs.writeFileSync(path.join(dir, name), text);
    }
    await g.ok(['add', '-A'], dir);
    await g.ok(['commit', '-q', '-m', `workflows of ${repo}\n\nbody`], dir);
    await g.ok(['push', '-q', 'origin', 'HEAD:main'], dir);
    return g.ok(['rev-parse', 'HEAD'], dir);
  }

  const runsOf = async (repo: string) => (await call('GET', `/repos/alice/${repo}/actions/runs`)).body;
  const waitRuns = (repo: string, n: number) => waitFor(`${n} runs in ${repo}`, async () => (await runsOf(repo)).total_count >= n);

  before(async () => {
    w = await startWorld({ env: { FORGE__WEBHOOK__ALLOWED_HOST_LIST: 'loopback' } });
    alice = await w.user('alice');
    g = new GitTool(w);
    const reg = await call('POST', '/user/actions/runners/registration-token');
    expect(reg.status).to.equal(200);
    runner = await ConformanceRunner.register(w.server.url, reg.body.token, { name: 'conformance', labels: ['ubuntu-latest'] });
  });
  after(() => w.stop());

  it('runs a pushed workflow: a matrix job, then the job that needs it with its outputs, secrets masked, statuses on the commit', async () => {
    expect((await call('PUT', '/user/actions/secrets/DEPLOY', { data: 'sesame-123' })).status).to.equal(201);
    expect((await call('POST', '/user/actions/variables/COLOR', { value: 'teal' })).status).to.equal(201);
    const sha = await pushWorkflows('ci', { '.gitea/workflows/ci.yml': CI });
    await waitRuns('ci', 1);
    const outcomes = await runner.drain();
    expect(outcomes.map((o) => o.result)).to.deep.equal([RunnerResult.Success, RunnerResult.Success, RunnerResult.Success]);
    const testLog = outcomes[2].log.join('\n');
    expect(testLog).to.contain('got hello-');
    expect(testLog).to.contain('with *** and teal');
    expect(testLog).to.not.contain('sesame-123');

    const runs = await runsOf('ci');
    expect(runs.total_count).to.equal(1);
    const run = runs.workflow_runs[0];
    expect(run).to.include({ status: 'completed', conclusion: 'success', event: 'push', run_number: 1, head_sha: sha, head_branch: 'main', display_title: 'workflows of ci', path: 'ci.yml@refs/heads/main' });
    expect(run.html_url).to.equal(`${w.server.url}alice/ci/actions/runs/1`);
    expect((await call('GET', `/repos/alice/ci/actions/runs/${run.id}`)).body.id).to.equal(run.id);

    const jobs = (await call('GET', `/repos/alice/ci/actions/runs/${run.id}/jobs`)).body;
    expect(jobs.total_count).to.equal(3);
    const byName = Object.fromEntries(jobs.jobs.map((j: { name: string }) => [j.name, j]));
    expect(Object.keys(byName).sort()).to.deep.equal(['build (1)', 'build (2)', 'test']);
    expect(byName.test).to.include({ status: 'completed', conclusion: 'success', runner_name: 'conformance', head_sha: sha, run_id: run.id });
    expect(byName.test.url).to.equal(`${w.server.api}/repos/alice/ci/actions/jobs/${byName.test.id}`);
    expect(byName.test.steps.map((s: { name: string; conclusion: string }) => [s.name, s.conclusion])).to.deep.equal([
      ['echo "got ${{ needs.build.outputs.word }} with ${{ secrets.DEPLOY }} and ${{ vars.COLOR }}"', 'success'], ['echo second step', 'success'],
    ]);

    // the log comes back in the order it was sent, in Gitea's line format
    const log = await call('GET', `/repos/alice/ci/actions/jobs/${byName.test.id}/logs`);
    expect(log.status).to.equal(200);
    expect(log.headers.get('content-type')).to.equal('text/plain; charset=utf-8');
    const lines = log.text.trimEnd().split('\n');
    expect(lines.map((l: string) => l.replace(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{7}Z /, ''))).to.deep.equal(runner.logs.get(outcomes[2].taskId));
    expect(lines.every((l: string) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{7}Z /.test(l))).to.equal(true);

    // every job reported a commit status; the combined state is success
    const statuses = (await call('GET', `/repos/alice/ci/commits/${sha}/status`)).body;
    expect(statuses.state).to.equal('success');
    expect(statuses.statuses.map((s: { context: string }) => s.context).sort()).to.deep.equal(['CI / build (1) (push)', 'CI / build (2) (push)', 'CI / test (push)']);
    expect(statuses.statuses[0].target_url).to.match(/\/alice\/ci\/actions\/runs\/1\/jobs\/\d$/);

    const tasks = (await call('GET', '/repos/alice/ci/actions/tasks')).body;
    expect(tasks.total_count).to.equal(3);
    expect(tasks.workflow_runs[0]).to.include({ status: 'success', workflow_id: 'ci.yml', run_number: 1, event: 'push', head_branch: 'main' });

    const wfs = (await call('GET', '/repos/alice/ci/actions/workflows')).body;
    expect(wfs.total_count).to.equal(1);
    expect(wfs.workflows[0]).to.include({ id: 'ci.yml', name: 'CI', path: '.gitea/workflows/ci.yml', state: 'active' });
  });

  it('fails the job of a failing step and the run; the job that needs it is skipped; a rerun runs it all again', async () => {
    await pushWorkflows('failing', {
      '.github/workflows/f.yaml': 'on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo before; exit 3\n      - run: echo never\n  b:\n    needs: a\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo no\n',
    });
    await waitRuns('failing', 1);
    const first = await runner.drain();
    expect(first.map((o) => o.result)).to.deep.equal([RunnerResult.Failure]);
    const [run] = (await runsOf('failing')).workflow_runs;
    expect([run.status, run.conclusion]).to.deep.equal(['completed', 'failure']);
    const jobs = (await call('GET', `/repos/alice/failing/actions/runs/${run.id}/jobs`)).body.jobs;
    expect(jobs.map((j: { name: string; conclusion: string }) => [j.name, j.conclusion])).to.deep.equal([['b', 'skipped'], ['a', 'failure']]);
    expect((await call('GET', `/repos/alice/failing/actions/jobs/${jobs[0].id}/logs`)).body.message).to.equal('job not started');
    // a run that is done cannot be cancelled; it can be run again
    expect((await call('POST', `/repos/alice/failing/actions/runs/${run.id}/cancel`)).status).to.equal(400);
    expect((await call('POST', `/repos/alice/failing/actions/runs/${run.id}/rerun`)).status).to.equal(204);
    expect((await call('GET', `/repos/alice/failing/actions/runs/${run.id}`)).body.status).to.equal('queued');
    const again = await runner.drain();
    expect(again.map((o) => o.result)).to.deep.equal([RunnerResult.Failure]);
    const rerunJobs = (await call('GET', `/repos/alice/failing/actions/runs/${run.id}/jobs`)).body.jobs;
    expect(rerunJobs.find((j: { name: string }) => j.name === 'a').run_attempt).to.equal(2);
    // deleting it takes its jobs and tasks along
    expect((await call('DELETE', `/repos/alice/failing/actions/runs/${run.id}`)).status).to.equal(204);
    expect((await call('GET', `/repos/alice/failing/actions/runs/${run.id}`)).status).to.equal(404);
    expect(await sql(w.server, `SELECT id FROM action_run_job WHERE run_id = ${run.id}`)).to.deep.equal([]);
  });

  it('cancels a running job: the runner hears it at its next report and stops', async () => {
    await pushWorkflows('slow', { '.gitea/workflows/slow.yml': 'on: [push]\njobs:\n  wait:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo start; sleep 60\n' });
    await waitRuns('slow', 1);
    const [run] = (await runsOf('slow')).workflow_runs;
    const running = runner.drain();
    await waitFor('the job to run', async () => (await call('GET', `/repos/alice/slow/actions/runs/${run.id}`)).body.status === 'in_progress');
    expect((await call('POST', `/repos/alice/slow/actions/runs/${run.id}/cancel`)).status).to.equal(204);
    const [outcome] = await running;
    expect(outcome.result).to.equal(RunnerResult.Cancelled);
    const after = (await call('GET', `/repos/alice/slow/actions/runs/${run.id}`)).body;
    expect([after.status, after.conclusion]).to.deep.equal(['completed', 'cancelled']);
  });

  it('dispatches a workflow with inputs; refuses a missing ref, an unknown workflow and a disabled one', async () => {
    const wf = 'name: Deploy\non:\n  workflow_dispatch:\n    inputs:\n      target:\n        default: staging\n      level:\n        default: "1"\njobs:\n  go:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo "to ${{ inputs.target }} at ${{ inputs.level }}"\n';
    await pushWorkflows('deploy', { '.gitea/workflows/deploy.yml': wf });
    const bad: [string, unknown, number][] = [
      ['deploy.yml', { inputs: {} }, 422], ['deploy.yml', { ref: '' }, 422], ['nope.yml', { ref: 'main' }, 404], ['deploy.yml', { ref: 'no-such-branch' }, 404],
    ];
    for (const [id, body, status] of bad) expect((await call('POST', `/repos/alice/deploy/actions/workflows/${id}/dispatches`, body)).status, JSON.stringify(body)).to.equal(status);
    expect((await call('PUT', '/repos/alice/deploy/actions/workflows/deploy.yml/disable')).status).to.equal(204);
    expect((await call('GET', '/repos/alice/deploy/actions/workflows/deploy.yml')).body.state).to.equal('disabled_manually');
    const refused = await call('POST', '/repos/alice/deploy/actions/workflows/deploy.yml/dispatches', { ref: 'main' });
    expect([refused.status, refused.body.message]).to.deep.equal([403, 'workflow is disabled']);
    expect((await runsOf('deploy')).total_count).to.equal(0);
    expect((await call('PUT', '/repos/alice/deploy/actions/workflows/deploy.yml/enable')).status).to.equal(204);

    const ok = await call('POST', '/repos/alice/deploy/actions/workflows/deploy.yml/dispatches', { ref: 'main', inputs: { target: 'production', extra: 'dropped' } });
    expect(ok.status, ok.text).to.equal(204);
    const [run] = (await runsOf('deploy')).workflow_runs;
    expect(run).to.include({ event: 'workflow_dispatch', status: 'queued' });
    const [outcome] = await runner.drain();
    expect(outcome.log.join('\n')).to.contain('to production at 1');
    // a dispatch run reports no commit status (as Gitea)
    expect((await call('GET', `/repos/alice/deploy/commits/${run.head_sha}/statuses`)).body).to.deep.equal([]);
  });

  it('turns each workflow file that does not parse into a failed run that shows the error', async () => {
    const bad = 'on: push\njobs:\n  a:\n    runs-on: [x\n';
    await pushWorkflows('broken', { '.gitea/workflows/bad.yml': bad, '.gitea/workflows/worse.yml': bad });
    await waitRuns('broken', 2);
    const runs = (await runsOf('broken')).workflow_runs;
    expect(runs.map((r: { path: string }) => r.path).sort()).to.deep.equal(['bad.yml@refs/heads/main', 'worse.yml@refs/heads/main']);
    for (const run of runs) {
      expect([run.status, run.conclusion]).to.deep.equal(['completed', 'failure']);
      const [job] = (await call('GET', `/repos/alice/broken/actions/runs/${run.id}/jobs`)).body.jobs;
      const log = await call('GET', `/repos/alice/broken/actions/jobs/${job.id}/logs`);
      expect(log.text).to.contain(`Invalid workflow file .gitea/workflows/${run.path.split('@')[0]}`);
    }
  });

  it('refuses a bad status filter and hides runs from those who cannot read the repository', async () => {
    const bad = await call('GET', '/repos/alice/ci/actions/runs?status=sleeping');
    expect([bad.status, bad.body.message]).to.deep.equal([400, 'invalid status: sleeping']);
    expect((await call('GET', '/repos/alice/ci/actions/runs?status=success')).body.total_count).to.equal(1);
    expect((await call('GET', '/repos/alice/ci/actions/runs?status=failure')).body.total_count).to.equal(0);
    const bob = await w.user('bob');
    expect((await call('PATCH', '/repos/alice/ci', { private: true })).status).to.equal(200);
    expect((await call('GET', '/repos/alice/ci/actions/runs', undefined, bob)).status).to.equal(404);
    expect((await w.raw('GET', '/repos/alice/ci/actions/runs')).status).to.equal(404);
    const [run] = (await runsOf('ci')).workflow_runs;
    expect((await call('POST', `/repos/alice/ci/actions/runs/${run.id}/rerun`, undefined, bob)).status).to.equal(404);
  });

  it('gives each job a token for its own repository (API and git, as gitea-actions) that ends with the task', async () => {
    const tokenFile = path.join(os.tmpdir(), `forge-job-token-${process.pid}`);
    const host = new URL(w.server.url).host;
    await apiRepo(w, alice, 'elsewhere', { private: true });
    const job = `on:
  push:
    branches: [main]
jobs:
  use:
    runs-on: ubuntu-latest
    steps:
      - run: |
          printf %s "\${{ secrets.GITEA_TOKEN }}" > ${tokenFile}
          call() { curl -s -o /dev/null -w "%{http_code}" -H "Authorization: token \${{ secrets.GITEA_TOKEN }}" "$@"; }
          echo "own $(call \${{ github.api_url }}/repos/alice/tokens)"
          echo "elsewhere $(call \${{ github.api_url }}/repos/alice/elsewhere)"
          echo "issue $(call -X POST -H 'Content-Type: application/json' -d '{"title":"from a job"}' \${{ github.api_url }}/repos/alice/tokens/issues)"
          git clone -q "http://x-access-token:\${{ secrets.GITEA_TOKEN }}@${host}/alice/tokens.git" work
          cd work
          git -c user.name=ci -c user.email=ci@example.com commit -q --allow-empty -m "from the job"
          git push -q origin HEAD:refs/heads/from-job && echo pushed
          git clone -q "http://x-access-token:\${{ secrets.GITEA_TOKEN }}@${host}/alice/elsewhere.git" ../other 2>/dev/null || echo "no clone elsewhere"
`;
    await pushWorkflows('tokens', { '.gitea/workflows/use.yml': job });
    await waitRuns('tokens', 1);
    const [outcome] = await runner.drain();
    expect(outcome.result, outcome.log.join('\n')).to.equal(RunnerResult.Success);
    expect(outcome.log.filter((l) => /^(own|elsewhere|issue|pushed|no clone)/.test(l))).to.deep.equal([
      'own 200', 'elsewhere 404', 'issue 201', 'pushed', 'no clone elsewhere',
    ]);
    const issue = (await call('GET', '/repos/alice/tokens/issues?state=all')).body[0];
    expect([issue.title, issue.user.login]).to.deep.equal(['from a job', 'gitea-actions']);
    expect((await call('GET', '/repos/alice/tokens/branches/from-job')).status).to.equal(200);
    // the task is over: its token opens nothing
    const token = fs.readFileSync(tokenFile, 'utf8');
    fs.rmSync(tokenFile);
    expect((await w.raw('GET', '/repos/alice/tokens', undefined, { token })).status).to.equal(401);
  });

  it('emits workflow_run and workflow_job events as the run and its jobs move', async () => {
    await pushWorkflows('hooked', { '.gitea/workflows/h.yml': 'name: Hooked\non: push\njobs:\n  only:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo hi\n' }, async () => {
      const hook = await call('POST', '/repos/alice/hooked/hooks', { type: 'gitea', active: true, events: ['workflow_run', 'workflow_job'], config: { url: 'http://127.0.0.1:9/', content_type: 'json' } });
      expect(hook.status, hook.text).to.equal(201);
      expect(hook.body.events.sort()).to.deep.equal(['workflow_job', 'workflow_run']);
    });
    await waitRuns('hooked', 1);
    await runner.drain();
    const tasks = await sql(w.server, "SELECT event_type, payload_content FROM hook_task ORDER BY id");
    const of = (type: string) => tasks.filter((t) => t.event_type === type).map((t) => JSON.parse(t.payload_content));
    expect(of('workflow_run').map((p) => [p.action, p.workflow_run.status, p.workflow.name])).to.deep.equal([
      ['requested', 'queued', 'Hooked'], ['in_progress', 'in_progress', 'Hooked'], ['completed', 'completed', 'Hooked'],
    ]);
    const jobs = of('workflow_job');
    expect(jobs.map((p) => p.action)).to.deep.equal(['queued', 'in_progress', 'completed']);
    expect(jobs[2].workflow_job).to.include({ name: 'only', conclusion: 'success', runner_name: 'conformance' });
    expect(jobs[2].workflow_job.url).to.match(/\/api\/v1\/repos\/alice\/hooked\/actions\/jobs\/\d+$/);
    expect(jobs[2]).to.include.keys('repository', 'sender');
    expect(jobs[2].sender.login).to.equal('alice');
  });
});
