/**
 * What an Actions job's token (GITEA_TOKEN of a running task, the `gitea-actions` pseudo-user)
 * reaches: its own run's repository (API, git over HTTP, LFS), and nothing at account level. Every
 * account-level write answers 403 with Gitea's body and changes nothing; another repository
 * answers 404 as in Gitea; the web forms never take the token.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { startWorld, type World, type TestUser } from '../helpers/world';
import { apiRepo, GitTool, waitFor } from '../helpers/refs';
import { ConformanceRunner } from '../helpers/actions-runner';
import { WebClient } from '../helpers/web';
import { LfsClient, oidOf } from '../helpers/lfs';
import { sshKeygen } from '../helpers/keys';
import { count } from '../helpers/db';
import { RunnerResult, type TaskMsg } from '../../src/api/runner-proto';

const REFUSED = 'the token of an Actions job only reaches its own repository';

describe('actions job token reach', () => {
  let w: World;
  let alice: TestUser;
  let g: GitTool;
  let runner: ConformanceRunner;
  let task: TaskMsg;
  let token: string;
  const as = (method: string, p: string, body?: unknown) => w.raw(method, p, body, { token });

  /** Row counts of the tables an account-level write would touch. */
  const accountState = async () => {
    const tables = ['repository', 'users', 'org_user', 'public_key', 'gpg_key', 'webhook', 'secret', 'action_variable', 'follow', 'star', 'watch', 'email_address', 'user_blocking', 'access_token', 'action_runner_token'];
    const out: Record<string, number> = {};
    for (const t of tables) out[t] = await count(w.server, `SELECT COUNT(*) AS n FROM ${t}`);
    return out;
  };

  before(async () => {
    w = await startWorld();
    alice = await w.user('alice');
    g = new GitTool(w);
    const reg = await w.raw('POST', '/user/actions/runners/registration-token', undefined, { token: alice.token });
    runner = await ConformanceRunner.register(w.server.url, reg.body.token, { name: 'reach', labels: ['ubuntu-latest'] });
    await apiRepo(w, alice, 'ci');
    await apiRepo(w, alice, 'other');
    expect((await w.raw('POST', '/orgs', { username: 'acme' }, { token: alice.token })).status).to.equal(201);
    const dir = await g.clone(alice, 'alice', 'ci');
    fs.mkdirSync(path.join(dir, '.gitea/workflows'), { recursive: true });
    fs.writeFileSync(path.join(dir, '.gitea/workflows/ci.yml'), 'on:\n  push:\n    branches: [main]\njobs:\n  hold:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo held\n');
    await g.ok(['add', '-A'], dir);
    await g.ok(['commit', '-q', '-m', 'workflow'], dir);
    await g.ok(['push', '-q', 'origin', 'HEAD:main'], dir);
    await waitFor('a run', async () => (await w.raw('GET', '/repos/alice/ci/actions/runs', undefined, { token: alice.token })).body.total_count === 1);
    // the task is fetched and left running: its token is live until the runner reports the end
    await waitFor('a task', async () => !!(task = (await runner.fetch())!));
    token = task.secrets.GITEA_TOKEN;
    expect(token).to.match(/^[0-9a-f]{40}$/);
  });
  after(async () => {
    if (task) expect((await runner.execute(task)).result).to.equal(RunnerResult.Success);
    await w.stop();
  });

  it('refuses every account-level write with 403 and changes nothing', async () => {
    const before = await accountState();
    const pub = sshKeygen('ed25519').pub;
    const writes: [string, string, unknown][] = [
      ['POST', '/user/repos', { name: 'pseudo-repo' }],
      ['POST', '/orgs', { username: 'pseudo-org' }],
      ['POST', '/orgs/acme/repos', { name: 'org-repo' }],
      ['POST', '/user/keys', { title: 'k', key: pub }],
      ['POST', '/user/hooks', { type: 'gitea', config: { url: 'http://127.0.0.1:9/', content_type: 'json' }, events: ['push'], active: true }],
      ['PUT', '/user/actions/secrets/S', { data: 'x' }],
      ['POST', '/user/actions/variables/V', { value: 'x' }],
      ['PUT', '/user/following/alice', undefined],
      ['PUT', '/user/starred/alice/ci', undefined],
      ['PATCH', '/user/settings', { full_name: 'pseudo' }],
      ['POST', '/user/emails', { emails: ['pseudo@example.com'] }],
      ['PUT', '/user/blocks/alice', undefined],
      ['POST', '/user/actions/runners/registration-token', undefined],
      ['POST', '/users/gitea-actions/tokens', { name: 't', scopes: ['all'] }],
      ['POST', '/repos/alice/ci/forks', {}],
      ['POST', '/repos/alice/ci/generate', { owner: 'alice', name: 'from-template', git_content: true }],
      ['PUT', '/repos/alice/ci/subscription', undefined],
      ['PUT', '/notifications', undefined],
    ];
    for (const [method, p, body] of writes) {
      const r = await as(method, p, body);
      expect([r.status, r.body?.message], `${method} ${p}`).to.deep.equal([403, REFUSED]);
      expect(r.body.url, `${method} ${p}`).to.match(/\/api\/swagger$/);
    }
    expect(await accountState()).to.deep.equal(before);
  });

  it('refuses reads of the calling account and its runner registration token (a GET that makes one)', async () => {
    const before = await accountState();
    for (const p of ['/user', '/user/repos', '/user/actions/runners/registration-token', '/notifications']) {
      const r = await as('GET', p);
      expect([r.status, r.body?.message], p).to.deep.equal([403, REFUSED]);
    }
    expect(await accountState()).to.deep.equal(before);
    // public reads stay open, as to any signed-in caller
    expect((await as('GET', '/version')).status).to.equal(200);
    expect((await as('GET', '/users/alice')).body.login).to.equal('alice');
    expect((await as('POST', '/markdown', { Text: '*hi*' })).status).to.equal(200);
  });

  it('answers 404 for another repository, through the API, git and LFS, and changes nothing there', async () => {
    const issues = await count(w.server, 'SELECT COUNT(*) AS n FROM issue');
    for (const [method, p, body] of [
      ['POST', '/repos/alice/other/issues', { title: 'elsewhere' }],
      ['POST', '/repos/alice/other/contents/x.txt', { content: Buffer.from('x').toString('base64') }],
      ['GET', '/repos/alice/other', undefined],
    ] as [string, string, unknown][]) {
      expect((await as(method, p, body)).status, `${method} ${p}`).to.equal(404);
    }
    expect(await count(w.server, 'SELECT COUNT(*) AS n FROM issue')).to.equal(issues);
    const before = await g.serverRefs('alice', 'other');
    const dir = await g.clone(alice, 'alice', 'other');
    await g.commit(dir, 'x.txt', 'x');
    const host = new URL(w.server.url).host;
    const push = await g.run(['push', `http://x-access-token:${token}@${host}/alice/other.git`, 'HEAD:refs/heads/from-job'], dir);
    expect(push.code).to.not.equal(0);
    expect(await g.serverRefs('alice', 'other')).to.equal(before);
    const obj = Buffer.from('lfs elsewhere');
    const lfs = await new LfsClient(w.server).batch('alice/other', 'upload', [{ oid: oidOf(obj), size: obj.length }], { token });
    expect(lfs.status).to.equal(404);
  });

  it('still works on its own repository: issue, file, contents, git push and LFS', async () => {
    const issue = await as('POST', '/repos/alice/ci/issues', { title: 'from the job' });
    expect([issue.status, issue.body.user?.login]).to.deep.equal([201, 'gitea-actions']);
    // why: on another branch, since a push to main starts a new run of the workflow, which cancels this task (and ends its token)
    const file = await as('POST', '/repos/alice/ci/contents/made-by-job.txt', { content: Buffer.from('hello').toString('base64'), message: 'from the job', new_branch: 'job-files' });
    expect(file.status, file.text).to.equal(201);
    const read = await as('GET', '/repos/alice/ci/contents/made-by-job.txt?ref=job-files');
    expect(Buffer.from(read.body.content, 'base64').toString()).to.equal('hello');
    const dir = await g.clone(alice, 'alice', 'ci');
    const head = await g.commit(dir, 'pushed.txt', 'pushed');
    const host = new URL(w.server.url).host;
    await g.ok(['push', '-q', `http://x-access-token:${token}@${host}/alice/ci.git`, 'HEAD:refs/heads/from-job'], dir);
    expect(await g.serverRef('alice', 'ci', 'refs/heads/from-job')).to.equal(head);
    const obj = Buffer.from('lfs of the job');
    const lfs = await new LfsClient(w.server).batch('alice/ci', 'upload', [{ oid: oidOf(obj), size: obj.length }], { token });
    expect(lfs.status).to.equal(200);
    expect(lfs.body.objects[0].actions.upload.href).to.be.a('string');
    // and writes that need more than write access stay refused in its own repository
    const hook = await as('POST', '/repos/alice/ci/hooks', { type: 'gitea', config: { url: 'http://127.0.0.1:9/', content_type: 'json' }, events: ['push'], active: true });
    expect(hook.status).to.equal(403);
  });

  it('is no session on the web: a form sent with the token creates nothing', async () => {
    const before = await accountState();
    const web = new WebClient(w);
    await web.get('/user/login');
    for (const [p, fields] of [['/repo/create', { owner: 'gitea-actions', repo_name: 'web-made' }], ['/org/create', { org_name: 'web-org', visibility: 'public' }]] as const) {
      const body = new URLSearchParams({ ...fields, _csrf: web.csrf });
      const r = await web.request('POST', p, { body: body.toString(), headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: new URL(w.server.rootUrl).origin, Authorization: `token ${token}` } });
      // the token signs nobody in: the form sends the anonymous caller to the sign-in page
      expect([r.status, r.location], p).to.deep.equal([303, `${w.server.url}user/login?redirect_to=${encodeURIComponent(p)}`]);
    }
    expect(await accountState()).to.deep.equal(before);
  });
});
