/**
 * Events that start workflows besides pushes: issues (with their types), comments, releases,
 * branch creation and deletion, the completion of another workflow, and pull requests — from the
 * same repository and from a fork, where `pull_request` gets no secrets and `pull_request_target`
 * (the base's workflow) does. Run on the conformance runner, read back through the REST API.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { startWorld, type World, type TestUser } from '../helpers/world';
import { apiRepo, GitTool, waitFor } from '../helpers/refs';
import { ConformanceRunner } from '../helpers/actions-runner';
import { sql } from '../helpers/db';

const job = (line: string) => `jobs:\n  run:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo "${line}"\n`;

describe('actions triggers', () => {
  let w: World;
  let alice: TestUser;
  let bob: TestUser;
  let g: GitTool;
  let runner: ConformanceRunner;
  const call = (method: string, p: string, body?: unknown, u: TestUser = alice) => w.raw(method, p, body, { token: u.token });
  const runsOf = async (repo: string) => (await call('GET', `/repos/alice/${repo}/actions/runs?limit=50`)).body.workflow_runs as { path: string; event: string; id: number; head_sha: string }[];
  const summary = async (repo: string) => (await runsOf(repo)).map((r) => `${r.path.split('@')[0]}:${r.event}`).sort();

  /** Commit files to a working copy and push it to `branch`. */
  async function commitPush(dir: string, files: Record<string, string>, branch: string, message = 'change'): Promise<string> {
    for (const [name, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
      fs.writeFileSync(path.join(dir, name), text);
    }
    await g.ok(['add', '-A'], dir);
    await g.ok(['commit', '-q', '-m', message], dir);
    await g.ok(['push', '-q', 'origin', `HEAD:${branch}`], dir);
    return g.ok(['rev-parse', 'HEAD'], dir);
  }

  before(async () => {
    w = await startWorld();
    [alice, bob] = [await w.user('alice'), await w.user('bob')];
    g = new GitTool(w);
    const reg = await call('POST', '/admin/actions/runners/registration-token', undefined, w.admin);
    runner = await ConformanceRunner.register(w.server.url, reg.body.token, { name: 'global', labels: ['ubuntu-latest'] });
  });
  after(() => w.stop());

  it('runs workflows on issues of the listed types, comments, releases, branch creation and deletion, and another workflow finishing', async () => {
    await apiRepo(w, alice, 'events');
    const dir = await g.clone(alice, 'alice', 'events');
    await commitPush(dir, {
      '.gitea/workflows/issues.yml': `name: Issues\non:\n  issues:\n    types: [opened, labeled]\n${job('issue ${{ github.event.issue.number }} ${{ github.event.action }}')}`,
      '.gitea/workflows/comment.yml': `on: issue_comment\n${job('comment ${{ github.event.comment.body }}')}`,
      '.gitea/workflows/release.yml': `on:\n  release:\n    types: [published]\n${job('release ${{ github.event.release.tag_name }}')}`,
      '.gitea/workflows/create.yml': `on: create\n${job('created ${{ github.event.ref }}')}`,
      '.gitea/workflows/delete.yml': `on: delete\n${job('deleted ${{ github.event.ref }}')}`,
      '.gitea/workflows/after.yml': `on:\n  workflow_run:\n    workflows: [Issues]\n    types: [completed]\n${job('after ${{ github.event.workflow_run.display_title }}')}`,
    }, 'main', 'add workflows');

    const issue = await call('POST', '/repos/alice/events/issues', { title: 'broken thing' });
    expect(issue.status).to.equal(201);
    await waitFor('the issue run', async () => (await summary('events')).includes('issues.yml:issues'));
    const first = await runner.drain();
    // the run that its end starts comes from the outbox: wait for it, then run it
    await waitFor('the run after it', async () => (await summary('events')).includes('after.yml:workflow_run'));
    first.push(...await runner.drain());
    expect(first.map((o) => o.log.find((l) => l.startsWith('issue ') || l.startsWith('after ')))).to.deep.equal([`issue ${issue.body.number} opened`, 'after add workflows']);

    // an edit is not a listed type; a label is
    expect((await call('PATCH', `/repos/alice/events/issues/${issue.body.number}`, { title: 'renamed' })).status).to.equal(201);
    const label = await call('POST', '/repos/alice/events/labels', { name: 'bug', color: '#ff0000' });
    expect((await call('POST', `/repos/alice/events/issues/${issue.body.number}/labels`, { labels: [label.body.id] })).status).to.equal(200);
    expect((await call('POST', `/repos/alice/events/issues/${issue.body.number}/comments`, { body: 'me too' })).status).to.equal(201);
    expect((await call('POST', '/repos/alice/events/releases', { tag_name: 'v1.0', name: 'one' })).status).to.equal(201);
    await g.ok(['push', '-q', 'origin', 'HEAD:refs/heads/topic'], dir);
    await g.ok(['push', '-q', 'origin', ':refs/heads/topic'], dir);
    await waitFor('the runs of the events', async () => (await runsOf('events')).length >= 8);
    const outcomes = await runner.drain();
    await waitFor('the run after the label run', async () => (await runsOf('events')).length === 9);
    outcomes.push(...await runner.drain());
    const logs = outcomes.flatMap((o) => o.log.filter((l) => /^(issue|comment|release|created|deleted|after) /.test(l)));
    expect(logs.sort()).to.deep.equal([
      'after add workflows', 'comment me too', 'created topic', 'created v1.0', 'deleted topic', `issue ${issue.body.number} label_updated`, 'release v1.0',
    ].sort());
    expect(await summary('events')).to.deep.equal([
      'after.yml:workflow_run', 'after.yml:workflow_run', 'comment.yml:issue_comment', 'create.yml:create', 'create.yml:create', 'delete.yml:delete',
      'issues.yml:issues', 'issues.yml:issues', 'release.yml:release',
    ]);
  });

  it('runs pull_request workflows of the head, without secrets for a fork, and pull_request_target workflows of the base, with them', async () => {
    await apiRepo(w, alice, 'prs');
    expect((await call('PUT', '/repos/alice/prs/actions/secrets/SEEN', { data: 'open-sesame' })).status).to.equal(201);
    const dir = await g.clone(alice, 'alice', 'prs');
    await commitPush(dir, {
      '.gitea/workflows/pr.yml': `name: PR\non:\n  pull_request:\n    branches: [main]\n${job('pr secret=[${{ secrets.SEEN }}]')}`,
      '.gitea/workflows/target.yml': `on: pull_request_target\n${job('target secret=[${{ secrets.SEEN }}]')}`,
    }, 'main', 'pr workflows');

    // from a branch of the repository
    await g.ok(['checkout', '-q', '-b', 'feature'], dir);
    const head = await commitPush(dir, { 'a.txt': 'a' }, 'feature', 'feature work');
    expect((await call('POST', '/repos/alice/prs/pulls', { head: 'feature', base: 'main', title: 'same repo' })).status).to.equal(201);
    await waitFor('the pull request runs', async () => (await runsOf('prs')).length === 2);
    const own = (await runner.drain()).map((o) => o.log.find((l) => /secret=/.test(l))).sort();
    expect(own).to.deep.equal(['pr secret=[***]', 'target secret=[***]']);
    const prRun = (await runsOf('prs')).find((r) => r.path.startsWith('pr.yml'))!;
    expect(prRun).to.include({ event: 'pull_request', head_sha: head });
    const status = (await call('GET', `/repos/alice/prs/commits/${head}/status`)).body;
    expect(status.statuses.map((s: { context: string; status: string }) => [s.context, s.status]).sort()).to.deep.equal([
      ['PR / run (pull_request)', 'success'], ['target.yml / run (pull_request_target)', 'success'],
    ]);

    // from a fork: the head's workflow runs without the secret, the base's with it
    expect((await call('POST', '/repos/alice/prs/forks', {}, bob)).status).to.equal(202);
    const forkDir = await g.clone(bob, 'bob', 'prs');
    await g.ok(['config', 'user.email', 'bob@example.com'], forkDir);
    await commitPush(forkDir, {
      'b.txt': 'b', '.gitea/workflows/pr.yml': `name: PR\non: pull_request\n${job('fork pr secret=[${{ secrets.SEEN }}]')}`,
    }, 'from-fork', 'fork work');
    const opened = await call('POST', '/repos/alice/prs/pulls', { head: 'bob:from-fork', base: 'main', title: 'from a fork' }, bob);
    expect(opened.status, opened.text).to.equal(201);
    await waitFor('the fork pull request runs', async () => (await runsOf('prs')).length === 4);
    // the base's workflow runs at once; the fork's waits until a writer approves it (bob's first run here)
    const secretLines = async () => (await runner.drain()).map((o) => o.log.find((l) => /secret=/.test(l))).sort();
    expect(await secretLines()).to.deep.equal(['target secret=[***]']);
    const [blocked] = (await call('GET', '/repos/alice/prs/actions/runs?status=action_required')).body.workflow_runs;
    expect(blocked).to.include({ event: 'pull_request', path: 'pr.yml@refs/pull/2/head' });
    const byBob = await call('POST', `/repos/alice/prs/actions/runs/${blocked.id}/approve`, undefined, bob);
    expect(byBob.status, byBob.text).to.equal(403);
    expect((await call('GET', '/repos/alice/prs/actions/runs?status=action_required')).body.total_count).to.equal(1);
    expect((await call('POST', `/repos/alice/prs/actions/runs/${blocked.id}/approve`)).status).to.equal(204);
    expect((await call('POST', `/repos/alice/prs/actions/runs/${blocked.id}/approve`)).status).to.equal(400);
    expect(await secretLines()).to.deep.equal(['fork pr secret=[]']);
    // approved once, bob's next runs here go without approval
    await commitPush(forkDir, { 'c.txt': 'c' }, 'from-fork', 'more fork work');
    await waitFor('the synchronized runs', async () => (await runsOf('prs')).length === 6);
    expect(await secretLines()).to.deep.equal(['fork pr secret=[]', 'target secret=[***]']);
  });

  it('lists runs and jobs across repositories: all for the site admin, the user\'s own, an organization\'s for its owners', async () => {
    const all = (await call('GET', '/admin/actions/runs?limit=50', undefined, w.admin)).body;
    const mine = (await call('GET', '/user/actions/runs?limit=50')).body;
    expect(all.total_count).to.be.greaterThan(10);
    expect(mine.total_count).to.equal(all.total_count);
    expect(mine.workflow_runs[0].html_url).to.match(/\/alice\/(events|prs)\/actions\/runs\/\d+$/);
    expect((await call('GET', '/user/actions/runs', undefined, bob)).body.total_count).to.equal(0);
    const failed = (await call('GET', '/user/actions/jobs?status=success&limit=50')).body;
    expect(failed.total_count).to.be.greaterThan(0);
    expect(failed.jobs.every((j: { conclusion: string }) => j.conclusion === 'success')).to.equal(true);
    expect((await call('GET', '/admin/actions/jobs')).status).to.equal(403);
    expect((await call('POST', '/orgs', { username: 'crew' })).status).to.equal(201);
    expect((await call('GET', '/orgs/crew/actions/runs')).body).to.deep.equal({ workflow_runs: [], total_count: 0 });
    expect((await call('GET', '/orgs/crew/actions/jobs', undefined, bob)).status).to.equal(403);
  });

  it('fires a scheduled workflow once when it is due, and moves its next time on', async () => {
    await apiRepo(w, alice, 'cron');
    const dir = await g.clone(alice, 'alice', 'cron');
    await commitPush(dir, { '.gitea/workflows/nightly.yml': `on:\n  schedule:\n    - cron: '*/5 * * * *'\n${job('scheduled')}` }, 'main', 'nightly');
    const repoId = (await call('GET', '/repos/alice/cron')).body.id;
    await waitFor('the schedule', async () => (await sql(w.server, `SELECT id FROM action_schedule WHERE repo_id = ${repoId}`)).length === 1);
    const [before] = await sql(w.server, `SELECT id, spec, next FROM action_schedule WHERE repo_id = ${repoId}`);
    expect(before.spec).to.equal('*/5 * * * *');
    expect(Number(before.next) % 300).to.equal(0);
    expect(await summary('cron')).to.deep.equal([]);
    // make it due now; every worker looks, one fires it
    await sql(w.server, `UPDATE action_schedule SET next = ${Math.floor(Date.now() / 1000) - 60} WHERE id = ${before.id}`);
    await waitFor('the scheduled run', async () => (await summary('cron')).length === 1);
    expect(await summary('cron')).to.deep.equal(['nightly.yml:schedule']);
    const [after] = await sql(w.server, `SELECT next FROM action_schedule WHERE id = ${before.id}`);
    expect(Number(after.next)).to.be.greaterThan(Date.now() / 1000);
    const [outcome] = await runner.drain();
    expect(outcome.log).to.include('scheduled');
    expect(await summary('cron')).to.deep.equal(['nightly.yml:schedule']);
  });
});
