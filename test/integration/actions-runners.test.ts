/**
 * Actions runners: registration tokens and runners through the REST API at each scope, and the
 * runner protocol's refusals (a wrong registration token, a runner of another scope, a deleted
 * runner, a task the runner does not hold, a gap in log rows, an oversized log), each a clear
 * error that changes nothing; FetchTask woken by a push while it waits; the JSON encoding, gRPC-Web,
 * compressed calls and malformed messages; and ephemeral runners.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { Code, createClient } from '@connectrpc/connect';
import { compressionGzip, createConnectTransport, createGrpcWebTransport } from '@connectrpc/connect-node';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { startWorld, type World, type TestUser } from '../helpers/world';
import { apiRepo, GitTool, waitFor } from '../helpers/refs';
import { ConformanceRunner, codeOf, type RpcClient } from '../helpers/actions-runner';
import { RunnerResult, RunnerService } from '../../src/api/runner-proto';
import { count, sql } from '../helpers/db';

const ONE_JOB = 'on: push\njobs:\n  one:\n    runs-on: linux\n    steps:\n      - run: echo one\n';

describe('actions runners', () => {
  let w: World;
  let alice: TestUser;
  let bob: TestUser;
  let g: GitTool;
  const call = (method: string, p: string, body?: unknown, u: TestUser = alice) => w.raw(method, p, body, { token: u.token });
  const token = async (scope: string, u: TestUser = alice) => (await call('GET', `${scope}/actions/runners/registration-token`, undefined, u)).body.token as string;

  async function push(repo: string, file: string, text: string): Promise<void> {
    const dir = await g.clone(alice, 'alice', repo);
    fs.mkdirSync(path.join(dir, '.gitea/workflows'), { recursive: true });
    fs.writeFileSync(path.join(dir, '.gitea/workflows', file), text);
    await g.ok(['add', '-A'], dir);
    await g.ok(['commit', '-q', '-m', `add ${file}`], dir);
    await g.ok(['push', '-q', 'origin', 'HEAD:main'], dir);
  }
  const runsOf = async (repo: string) => (await call('GET', `/repos/alice/${repo}/actions/runs`)).body;

  before(async () => {
    w = await startWorld({ env: { FORGE__ACTIONS__MAX_LOG_SIZE: '2048' } });
    [alice, bob] = [await w.user('alice'), await w.user('bob')];
    g = new GitTool(w);
    await apiRepo(w, alice, 'one');
    await apiRepo(w, alice, 'two');
    expect((await call('POST', '/orgs', { username: 'guild' })).status).to.equal(201);
  });
  after(() => w.stop());

  it('hands out one registration token per scope until a new one is made, to the owners of the scope only', async () => {
    const first = await token('/repos/alice/one');
    expect(first).to.match(/^[A-Za-z0-9]{40}$/);
    expect(await token('/repos/alice/one')).to.equal(first);
    const made = await call('POST', '/repos/alice/one/actions/runners/registration-token');
    expect([made.status, made.body.token]).to.deep.equal([200, first]);
    const scopes = [await token('/repos/alice/two'), await token('/orgs/guild'), await token('/user'), (await call('GET', '/admin/runners/registration-token', undefined, w.admin)).body.token];
    expect(new Set([first, ...scopes]).size).to.equal(5);
    expect((await call('GET', '/repos/alice/one/actions/runners/registration-token', undefined, bob)).status).to.equal(403);
    expect((await call('GET', '/orgs/guild/actions/runners/registration-token', undefined, bob)).status).to.equal(403);
    expect((await call('POST', '/admin/actions/runners/registration-token')).status).to.equal(403);
    expect((await w.raw('GET', '/user/actions/runners/registration-token')).status).to.equal(401);
  });

  it('refuses a registration with an unknown token or no name, and stores no runner', async () => {
    const { runner } = ConformanceRunner.client(w.server.url);
    expect(await codeOf(runner.register({ name: 'r', token: 'x'.repeat(40), labels: ['linux'] }))).to.equal(Code.Unauthenticated);
    expect(await codeOf(runner.register({ name: '', token: await token('/repos/alice/one'), labels: ['linux'] }))).to.equal(Code.InvalidArgument);
    expect(await count(w.server, 'SELECT COUNT(*) AS n FROM action_runner')).to.equal(0);
  });

  it('serves a runner only its own scope: REST lists it there and answers 404 elsewhere; it gets no job of another repository', async () => {
    const r = await ConformanceRunner.register(w.server.url, await token('/repos/alice/one'), { name: 'one-runner', labels: ['linux'] });
    const listed = (await call('GET', '/repos/alice/one/actions/runners')).body;
    expect(listed.total_count).to.equal(1);
    expect(listed.runners[0]).to.deep.equal({ id: r.id, name: 'one-runner', status: 'online', busy: false, ephemeral: false, labels: [{ id: 0, name: 'linux', type: 'custom' }] });
    expect((await call('GET', '/repos/alice/two/actions/runners')).body.total_count).to.equal(0);
    const other = await call('GET', `/repos/alice/two/actions/runners/${r.id}`);
    expect([other.status, other.body.message]).to.deep.equal([404, 'No permission to access this runner']);
    expect((await call('GET', '/admin/actions/runners', undefined, w.admin)).body.total_count).to.equal(1);

    await push('two', 'two.yml', ONE_JOB);
    await waitFor('the run of two', async () => (await runsOf('two')).total_count === 1);
    expect(await r.drain(500)).to.deep.equal([]);
    expect((await runsOf('two')).workflow_runs[0].status).to.equal('queued');
  });

  it('wakes a waiting FetchTask when a push makes a job ready, and refuses what the runner has no right to do', async () => {
    const r = await ConformanceRunner.register(w.server.url, await token('/repos/alice/one'), { name: 'waiter', labels: ['linux'] });
    // a first call with version 0 is answered at once with the current version; the next one waits
    expect(await r.fetch()).to.equal(undefined);
    const waiting = r.fetch(20_000);
    await push('one', 'one.yml', ONE_JOB);
    const task = await waiting;
    expect(task, 'the waiting call got the job').to.not.equal(undefined);
    const taskId = task!.id;

    // another runner may neither report on the task nor write its log
    const stranger = await ConformanceRunner.register(w.server.url, await token('/repos/alice/one'), { name: 'stranger', labels: ['linux'] });
    expect(await codeOf(stranger.client.updateTask({ state: { id: taskId, result: RunnerResult.Success } }, stranger.call()))).to.equal(Code.PermissionDenied);
    expect(await codeOf(stranger.client.updateLog({ taskId, index: 0n, rows: [{ content: 'x' }] }, stranger.call()))).to.equal(Code.PermissionDenied);
    expect(await codeOf(r.client.updateTask({ state: { id: 999_999n, result: RunnerResult.Success } }, r.call()))).to.equal(Code.NotFound);
    // log rows must follow on without a gap, and the log has a size limit (2 KiB here)
    const row = (content: string) => ({ time: timestampFromDate(new Date()), content });
    expect(Number((await r.client.updateLog({ taskId, index: 0n, rows: [row('a'), row('b')] }, r.call())).ackIndex)).to.equal(2);
    expect(Number((await r.client.updateLog({ taskId, index: 1n, rows: [row('b'), row('c')] }, r.call())).ackIndex)).to.equal(3);
    expect(await codeOf(r.client.updateLog({ taskId, index: 5n, rows: [row('gap')] }, r.call()))).to.equal(Code.InvalidArgument);
    expect(await codeOf(r.client.updateLog({ taskId, index: 3n, rows: [row('x'.repeat(3000))] }, r.call()))).to.equal(Code.ResourceExhausted);
    const [stored] = await sql(w.server, `SELECT status, log_length FROM action_task WHERE id = ${taskId}`);
    expect([Number(stored.status), Number(stored.log_length)]).to.deep.equal([6, 3]);

    // a report without news answers that the task goes on; outputs are acknowledged by key (the first value stays)
    const beat = await r.client.updateTask({ state: { id: taskId } }, r.call());
    expect([beat.state.result, beat.sentOutputs]).to.deep.equal([RunnerResult.Unspecified, []]);
    const sent = await r.client.updateTask({ state: { id: taskId }, outputs: { b: '2', a: '1' } }, r.call());
    expect([...sent.sentOutputs].sort()).to.deep.equal(['a', 'b']);
    const more = await r.client.updateTask({ state: { id: taskId }, outputs: { a: 'changed', c: '3', ['k'.repeat(256)]: 'key too long' } }, r.call());
    expect([...more.sentOutputs].sort()).to.deep.equal(['a', 'b', 'c']);
    const outs = await sql(w.server, `SELECT output_key, output_value FROM action_task_output WHERE task_id = ${taskId} ORDER BY output_key`);
    expect(outs.map((o) => [o.output_key, o.output_value])).to.deep.equal([['a', '1'], ['b', '2'], ['c', '3']]);

    // the runner finishes it; then its deletion (twice: 404) locks it out
    await r.client.updateLog({ taskId, index: 3n, rows: [], noMore: true }, r.call());
    const done = await r.client.updateTask({ state: { id: taskId, result: RunnerResult.Success, stoppedAt: timestampFromDate(new Date()) } }, r.call());
    expect(done.state.result).to.equal(RunnerResult.Success);
    // a report after the end changes nothing and answers the final result
    const late = await r.client.updateTask({ state: { id: taskId, result: RunnerResult.Failure } }, r.call());
    expect(late.state.result).to.equal(RunnerResult.Success);
    const [run] = (await runsOf('one')).workflow_runs;
    expect(run.conclusion).to.equal('success');
    const log = await call('GET', `/repos/alice/one/actions/jobs/${(await call('GET', `/repos/alice/one/actions/runs/${run.id}/jobs`)).body.jobs[0].id}/logs`);
    expect(log.text.split('\n').filter(Boolean).map((l: string) => l.slice(29))).to.deep.equal(['a', 'b', 'c']);
    expect(await codeOf(r.client.updateLog({ taskId, index: 3n, rows: [row('late')] }, r.call()))).to.equal(Code.AlreadyExists);

    expect((await call('DELETE', `/repos/alice/one/actions/runners/${r.id}`)).status).to.equal(204);
    const again = await call('DELETE', `/repos/alice/one/actions/runners/${r.id}`);
    expect([again.status, again.body.message]).to.deep.equal([404, 'Runner not found']);
    expect(await codeOf(r.fetch())).to.equal(Code.Unauthenticated);
    expect(await codeOf(ConformanceRunner.attach(w.server.url, r.uuid, 'f'.repeat(40)).fetch())).to.equal(Code.Unauthenticated);
  });

  it('speaks JSON as well as binary protobuf, and deletes an ephemeral runner after its task', async () => {
    const r = await ConformanceRunner.register(w.server.url, await token('/user'), { name: 'json-eph', labels: ['linux'], json: true, ephemeral: true });
    await push('two', 'again.yml', ONE_JOB.replace('echo one', 'echo "in json"'));
    // the push runs both workflow files; the new run of two.yml cancels its older run, still queued
    await waitFor('the runs of the second push', async () => (await runsOf('two')).total_count === 3);
    expect((await runsOf('two')).workflow_runs.map((r: { conclusion?: string }) => r.conclusion ?? '')).to.deep.equal(['', '', 'cancelled']);
    // a user-scope runner serves every repository of the user; an ephemeral one runs one task and is gone
    const task = await r.fetch();
    expect(task).to.not.equal(undefined);
    expect((await r.execute(task!)).result).to.equal(RunnerResult.Success);
    expect((await call('GET', `/user/actions/runners/${r.id}`)).status).to.equal(404);
    expect(await codeOf(r.fetch())).to.equal(Code.Unauthenticated);
  });

  it('serves gRPC-Web and compressed Connect calls too, and refuses a malformed message, changing nothing', async () => {
    const r = await ConformanceRunner.register(w.server.url, await token('/user'), { name: 'forms', labels: ['forms'] });
    const base = `${w.server.url}api/actions`;
    const versionOf = async () => (await sql(w.server, `SELECT version FROM action_runner WHERE id = ${r.id}`))[0].version;
    // what act_runner does not send is served by connect-node behind the fast path
    const grpcWeb = createClient(RunnerService, createGrpcWebTransport({ baseUrl: base, httpVersion: '1.1' })) as unknown as RpcClient;
    expect((await grpcWeb.declare({ version: 'v0.2.13', labels: ['forms'] }, r.call())).runner.version).to.equal('v0.2.13');
    const gzipped = createClient(RunnerService, createConnectTransport({ baseUrl: base, httpVersion: '1.1', sendCompression: compressionGzip, compressMinBytes: 0 })) as unknown as RpcClient;
    expect((await gzipped.declare({ version: 'v0.2.14', labels: ['forms'] }, r.call())).runner.version).to.equal('v0.2.14');
    expect(await versionOf()).to.equal('v0.2.14');
    // a message that does not decode, in either encoding, is invalid_argument
    for (const [type, body] of [['application/proto', new Uint8Array([0x0a, 0xff])], ['application/json', '{"labels": 5}']] as const) {
      const res = await fetch(`${base}/runner.v1.RunnerService/Declare`, { method: 'POST', headers: { 'content-type': type, ...r.call().headers }, body });
      expect(res.status, type).to.equal(400);
      expect(res.headers.get('content-type')).to.equal('application/json');
      expect(((await res.json()) as { code: string }).code, type).to.equal('invalid_argument');
    }
    // a content type the protocol does not know is refused as connect does
    const plain = await fetch(`${base}/runner.v1.RunnerService/Declare`, { method: 'POST', headers: { 'content-type': 'text/plain', ...r.call().headers }, body: 'x' });
    expect(plain.status).to.equal(415);
    expect(await versionOf()).to.equal('v0.2.14');
  });

  it('takes the runners, tokens, runs and logs of a repository along when it is deleted', async () => {
    const repoId = (await call('GET', '/repos/alice/one')).body.id;
    const logs = await sql(w.server, `SELECT log_filename FROM action_task WHERE repo_id = ${repoId}`);
    expect(logs.length).to.be.greaterThan(0);
    expect((await call('DELETE', '/repos/alice/one')).status).to.equal(204);
    for (const [table, column] of [['action_runner', 'repo_id'], ['action_runner_token', 'repo_id'], ['action_run', 'repo_id'], ['action_run_job', 'repo_id'], ['action_task', 'repo_id'], ['action_task_step', 'repo_id']]) {
      expect(await count(w.server, `SELECT COUNT(*) AS n FROM ${table} WHERE ${column} = ${repoId}`), table).to.equal(0);
    }
    for (const l of logs) {
      expect(fs.existsSync(path.join(w.server.dataDir, 'actions_log', `${l.log_filename}.gz`)), l.log_filename).to.equal(false);
    }
  });
});
