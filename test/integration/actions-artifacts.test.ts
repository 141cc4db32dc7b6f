/**
 * Artifacts, v4: a job uploads a directory with @actions/artifact (the library of
 * upload-artifact@v4: parallel blocks, a block list, finalize with the sha256) and the job that
 * needs it downloads and checks it; the REST API lists, gets, redirects to a signed zip download
 * and deletes; the artifact service refuses what it must; the cleanup (`POST /admin/cron/cleanup_actions`)
 * expires artifacts past their retention and removes old logs.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { startWorld, type World, type TestUser } from '../helpers/world';
import { apiRepo, GitTool, waitFor } from '../helpers/refs';
import { ConformanceRunner } from '../helpers/actions-runner';
import { RunnerResult, type TaskMsg } from '../../src/api/runner-proto';
import { sql } from '../helpers/db';

const CLIENT = path.join(__dirname, '../helpers/artifact-client.js');
const SERVICE = 'twirp/github.actions.results.api.v1.ArtifactService';

// 17 MB of random bytes: three 8 MB blocks, sent at once and in any order.
const WORKFLOW = `name: Art
on: push
jobs:
  make:
    runs-on: ubuntu-latest
    steps:
      - run: |
          mkdir -p out/sub
          echo "hello artifact" > out/a.txt
          head -c 17000000 /dev/urandom > out/sub/big.bin
          sha256sum out/sub/big.bin | cut -d' ' -f1 > out/big.sha
          node ${CLIENT} upload report out
  use:
    needs: make
    runs-on: ubuntu-latest
    steps:
      - run: |
          node ${CLIENT} download report got
          cat got/a.txt
          test "$(sha256sum got/sub/big.bin | cut -d' ' -f1)" = "$(cat got/big.sha)" && echo "big file intact"
`;

/** A signed URL with the first character of its signature replaced by another one (never by itself). */
const tamper = (u: string) => u.replace(/sig=(.)/, (_, c: string) => `sig=${c === 'A' ? 'B' : 'A'}`);

describe('actions artifacts', () => {
  let w: World;
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;
  let g: GitTool;
  let runner: ConformanceRunner;
  const call = (method: string, p: string, body?: unknown, u: TestUser = alice) => w.raw(method, p, body, { token: u.token });

  async function pushWorkflow(repo: string, text: string): Promise<string> {
    const dir = await g.clone(alice, 'alice', repo);
    fs.mkdirSync(path.join(dir, '.gitea/workflows'), { recursive: true });
    fs.writeFileSync(path.join(dir, '.gitea/workflows/art.yml'), text);
    await g.ok(['add', '-A'], dir);
    await g.ok(['commit', '-q', '-m', 'artifacts'], dir);
    await g.ok(['push', '-q', 'origin', 'HEAD:main'], dir);
    return g.ok(['rev-parse', 'HEAD'], dir);
  }

  /** Call the artifact service as a job does. */
  const twirp = async (method: string, body: unknown, token?: string) => {
    const res = await fetch(`${w.server.url}${SERVICE}/${method}`, {
      method: 'POST', body: JSON.stringify(body), headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    });
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    return { status: res.status, body: (await res.json()) as any };
  };
  const artifactFiles = () => {
    const root = path.join(w.server.dataDir, 'actions_artifacts');
    const walk = (d: string): string[] => (fs.existsSync(d) ? fs.readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(d, e.name)) : [path.join(d, e.name)])) : []);
    return walk(root);
  };

  before(async () => {
    w = await startWorld();
    [alice, bob, carol] = [await w.user('alice'), await w.user('bob'), await w.user('carol')];
    g = new GitTool(w);
    await apiRepo(w, alice, 'art', { private: true });
    expect((await call('PUT', '/repos/alice/art/collaborators/bob', { permission: 'read' })).status).to.equal(204);
    const reg = await call('POST', '/repos/alice/art/actions/runners/registration-token');
    runner = await ConformanceRunner.register(w.server.url, reg.body.token, { name: 'art-runner', labels: ['ubuntu-latest'] });
  });
  after(() => w.stop());

  it('uploads from one job and downloads in the job that needs it; the REST API lists, gets, serves the zip and deletes', async () => {
    const sha = await pushWorkflow('art', WORKFLOW);
    await waitFor('the run', async () => (await call('GET', '/repos/alice/art/actions/runs')).body.total_count === 1);
    const outcomes = await runner.drain();
    expect(outcomes.map((o) => o.result), outcomes.map((o) => o.log.join('\n')).join('\n----\n')).to.deep.equal([RunnerResult.Success, RunnerResult.Success]);
    expect(outcomes[0].log.join('\n')).to.match(/uploaded report as \d+: \d+ bytes/);
    expect(outcomes[1].log).to.include.members(['hello artifact', 'big file intact']);
    const run = (await call('GET', '/repos/alice/art/actions/runs')).body.workflow_runs[0];

    const list = await call('GET', '/repos/alice/art/actions/artifacts');
    expect(list.status).to.equal(200);
    expect(list.body.total_count).to.equal(1);
    const art = list.body.artifacts[0];
    expect(art).to.include({ name: 'report', expired: false, url: `${w.server.api}/repos/alice/art/actions/artifacts/${art.id}` });
    expect(art.archive_download_url).to.equal(`${art.url}/zip`);
    expect(art.size_in_bytes).to.be.greaterThan(17_000_000);
    expect(art.workflow_run).to.include({ id: run.id, head_sha: sha });
    // the instance's retention, 90 days by default
    expect(Date.parse(art.expires_at) - Date.parse(art.created_at)).to.be.closeTo(90 * 86400_000, 120_000);
    expect((await call('GET', `/repos/alice/art/actions/runs/${run.id}/artifacts`)).body.total_count).to.equal(1);
    expect((await call('GET', `/repos/alice/art/actions/runs/${run.id}/artifacts?name=other`)).body.total_count).to.equal(0);
    expect((await call('GET', `/repos/alice/art/actions/artifacts?name=report`)).body.artifacts[0].id).to.equal(art.id);
    expect((await call('GET', `/repos/alice/art/actions/artifacts/${art.id}`, undefined, bob)).body.name).to.equal('report');
    // a private repository's artifacts are hidden from strangers like the repository
    expect((await call('GET', `/repos/alice/art/actions/artifacts/${art.id}`, undefined, carol)).status).to.equal(404);
    expect((await call('GET', '/repos/alice/art/actions/artifacts/999999')).status).to.equal(404);

    // the zip: a redirect to a signed URL that needs no credentials
    const zip = await call('GET', `/repos/alice/art/actions/artifacts/${art.id}/zip`, undefined, bob);
    expect(zip.status).to.equal(302);
    const signed = zip.headers.get('location')!;
    expect(signed).to.match(new RegExp(`^${w.server.url}api/v1/repos/alice/art/actions/artifacts/${art.id}/zip/raw\\?sig=[\\w-]+&expires=\\d+$`));
    const raw = await fetch(signed);
    expect(raw.status).to.equal(200);
    expect(raw.headers.get('content-disposition')).to.contain('report.zip');
    const bytes = Buffer.from(await raw.arrayBuffer());
    expect(bytes.length).to.equal(art.size_in_bytes);
    expect(bytes.subarray(0, 2).toString()).to.equal('PK');
    expect(bytes.includes(Buffer.from('hello artifact'))).to.equal(true);
    const tampered = await w.raw('GET', `//${tamper(signed.slice(w.server.url.length))}`);
    expect(tampered.status).to.equal(401);
    expect(tampered.body.message).to.equal('Error unauthorized');
    const stretched = await w.raw('GET', `//${signed.slice(w.server.url.length).replace(/expires=\d+/, 'expires=9999999999')}`);
    expect(stretched.status).to.equal(401);

    // deleting: not for readers; a writer's delete removes the row from listings and the file from disk
    expect((await call('DELETE', `/repos/alice/art/actions/artifacts/${art.id}`, undefined, bob)).status).to.equal(403);
    expect((await call('GET', `/repos/alice/art/actions/artifacts/${art.id}`)).status).to.equal(200);
    expect(artifactFiles()).to.have.length(1);
    expect((await call('DELETE', `/repos/alice/art/actions/artifacts/${art.id}`)).status).to.equal(204);
    expect((await call('GET', `/repos/alice/art/actions/artifacts/${art.id}`)).status).to.equal(404);
    expect((await call('DELETE', `/repos/alice/art/actions/artifacts/${art.id}`)).status).to.equal(404);
    expect((await call('GET', '/repos/alice/art/actions/artifacts')).body.total_count).to.equal(0);
    expect((await fetch(signed)).status).to.equal(404);
    expect(artifactFiles()).to.deep.equal([]);
  });

  describe('the artifact service refuses', () => {
    let task: TaskMsg;
    let token: string;
    let runId: string;

    before(async () => {
      await pushWorkflow('art', `name: Hold\non: push\njobs:\n  hold:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo held\n`);
      await waitFor('a task', async () => !!(task = (await runner.fetch())!));
      token = String((task.context as Record<string, unknown>).gitea_runtime_token);
      runId = String((task.context as Record<string, unknown>).run_id);
    });

    it('calls without a valid runtime token, for another run, with bad names, and uploads that do not add up; nothing is stored', async () => {
      const ids = { workflow_run_backend_id: runId, workflow_job_run_backend_id: '1' };
      expect(await twirp('ListArtifacts', ids)).to.deep.include({ status: 401, body: { code: 'unauthenticated', msg: 'a Bearer runtime token is required' } });
      expect((await twirp('ListArtifacts', ids, `${token.slice(0, -2)}xx`)).status).to.equal(401);
      expect((await twirp('ListArtifacts', ids, 'not.a.jwt')).status).to.equal(401);
      expect(await twirp('CreateArtifact', { ...ids, workflow_run_backend_id: '999', name: 'x', version: 4 }, token))
        .to.deep.include({ status: 400, body: { code: 'invalid_argument', msg: 'run-id does not match' } });
      for (const name of ['', 'a/b', '..', 'x'.repeat(256)]) {
        expect((await twirp('CreateArtifact', { ...ids, name, version: 4 }, token)).status, name).to.equal(400);
      }
      expect((await twirp('NoSuchMethod', ids, token)).status).to.equal(404);

      // a block list naming a block never sent, then a wrong hash: finalize fails and nothing is listed
      const created = await twirp('CreateArtifact', { ...ids, name: 'partial', version: 4 }, token);
      expect(created.status).to.equal(200);
      const url: string = created.body.signedUploadUrl;
      expect(url).to.match(new RegExp(`^${w.server.url}${SERVICE}/UploadArtifact\\?sig=`));
      const put = (u: string, body: string) => fetch(u, { method: 'PUT', body });
      expect((await put(`${url}&comp=block&blockid=b1`, 'first part ')).status).to.equal(201);
      expect((await put(`${tamper(url)}&comp=block&blockid=b2`, 'x')).status).to.equal(401);
      expect((await put(`${url}&comp=nonsense`, 'x')).status).to.equal(400);
      expect((await put(`${url}&comp=blocklist`, '<?xml version="1.0"?><BlockList><Latest>b1</Latest><Latest>b2</Latest></BlockList>')).status).to.equal(201);
      const missing = await twirp('FinalizeArtifact', { ...ids, name: 'partial', size: '11' }, token);
      expect(missing).to.deep.include({ status: 400, body: { code: 'invalid_argument', msg: 'block 2 of 2 of the block list was never uploaded' } });
      expect((await put(`${url}&comp=block&blockid=b2`, 'second')).status).to.equal(201);
      const wrongHash = await twirp('FinalizeArtifact', { ...ids, name: 'partial', size: '17', hash: `sha256:${'0'.repeat(64)}` }, token);
      expect(wrongHash.status).to.equal(400);
      expect(wrongHash.body.msg).to.contain(crypto.createHash('sha256').update('first part second').digest('hex'));
      expect((await twirp('ListArtifacts', ids, token)).body).to.deep.equal({ artifacts: [] });
      expect((await twirp('GetSignedArtifactURL', { ...ids, name: 'partial' }, token)).status).to.equal(404);

      // the same upload with the client's true size and hash is accepted (the parts were kept)
      const body = 'first part second';
      expect((await put(`${url}&comp=block&blockid=b1`, 'first part ')).status).to.equal(201);
      expect((await put(`${url}&comp=block&blockid=b2`, 'second')).status).to.equal(201);
      expect((await put(`${url}&comp=blocklist`, '<BlockList><Latest>b1</Latest><Latest>b2</Latest></BlockList>')).status).to.equal(201);
      const done = await twirp('FinalizeArtifact', { ...ids, name: 'partial', size: '17', hash: `sha256:${crypto.createHash('sha256').update(body).digest('hex')}` }, token);
      expect(done.status).to.equal(200);
      expect(done.body.ok).to.equal(true);
      const listed = (await twirp('ListArtifacts', ids, token)).body.artifacts;
      expect(listed).to.have.length(1);
      expect(listed[0]).to.include({ name: 'partial', size: '17', databaseId: done.body.artifactId });
      const dl = (await twirp('GetSignedArtifactURL', { ...ids, name: 'partial' }, token)).body.signedUrl;
      expect(await (await fetch(dl)).text()).to.equal(body);

      // once the task is over its token opens nothing
      await runner.execute(task);
      expect((await twirp('ListArtifacts', ids, token)).status).to.equal(401);
      expect((await fetch(dl)).status).to.equal(401);
    });
  });

  // why: after the refusals, whose upload it expires.
  describe('the cleanup', () => {
    it('the cleanup expires artifacts past their retention and removes logs past LOG_RETENTION_DAYS (admin cron)', async () => {
      const arts = (await call('GET', '/repos/alice/art/actions/artifacts?name=partial')).body.artifacts;
      expect(arts).to.have.length(1);
      const id = arts[0].id;
      const jobs = (await call('GET', `/repos/alice/art/actions/runs/${arts[0].workflow_run.id}/jobs`)).body.jobs;
      expect((await call('GET', `/repos/alice/art/actions/jobs/${jobs[0].id}/logs`)).status).to.equal(200);

      // non-admins may neither list nor run the tasks; an unknown task is 404
      expect((await call('GET', '/admin/cron')).status).to.equal(403);
      expect((await call('POST', '/admin/cron/cleanup_actions')).status).to.equal(403);
      expect((await call('POST', '/admin/cron/no_such_task', undefined, w.admin)).status).to.equal(404);

      // nothing is due yet: a run changes nothing
      expect((await call('POST', '/admin/cron/cleanup_actions', undefined, w.admin)).status).to.equal(204);
      expect((await call('GET', `/repos/alice/art/actions/artifacts/${id}`)).body.expired).to.equal(false);

      await sql(w.server, 'UPDATE action_artifact SET expired = 1000 WHERE id = $1', [id]);
      await sql(w.server, 'UPDATE action_task SET stopped = 1000 WHERE id = (SELECT task_id FROM action_run_job WHERE id = $1)', [jobs[0].id]);
      expect((await call('POST', '/admin/cron/cleanup_actions', undefined, w.admin)).status).to.equal(204);
      const expired = await call('GET', `/repos/alice/art/actions/artifacts/${id}`);
      expect(expired.body.expired).to.equal(true);
      expect((await call('GET', '/repos/alice/art/actions/artifacts')).body.artifacts.map((a: { id: number }) => a.id)).to.include(id);
      const zip = await call('GET', `/repos/alice/art/actions/artifacts/${id}/zip`);
      expect(zip.status).to.equal(404);
      expect(zip.body.message).to.equal('Artifact has expired');
      expect(artifactFiles()).to.deep.equal([]);
      const log = await call('GET', `/repos/alice/art/actions/jobs/${jobs[0].id}/logs`);
      expect(log.status).to.equal(404);
      expect(log.body.message).to.equal('logs have been cleaned up');

      const crons = await call('GET', '/admin/cron', undefined, w.admin);
      expect(crons.status).to.equal(200);
      const names = crons.body.map((c: { name: string }) => c.name);
      expect(names).to.include.members(['cleanup_actions', 'cleanup_hook_task_table']);
      const cleanup = crons.body.find((c: { name: string }) => c.name === 'cleanup_actions');
      // why: the counts are the answering worker's own, and with two workers it may not be the one that ran it
      expect(cleanup.schedule).to.equal('@every 1h');
      expect(cleanup.exec_times).to.be.a('number');
    });
  });
});
