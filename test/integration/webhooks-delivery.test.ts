/**
 * Webhook deliveries end to end: events caused by real actions (git pushes over HTTP, issues and
 * comments through gitea-js, pull requests and reviews) reach a real receiver on 127.0.0.1 with
 * Gitea's payloads and headers, signed (checked with @octokit/webhooks-methods and by HMAC); a
 * failed delivery is retried with the same X-Gitea-Delivery; a hook's deliveries arrive in event
 * order; the history, the test delivery and replays work.
 */
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { startWorld, type World, type TestUser } from '../helpers/world';
import { apiRepo, GitTool, waitFor } from '../helpers/refs';
import { count, type Row } from '../helpers/db';

interface Received { headers: http.IncomingHttpHeaders; body: string; json: Row; path: string }

/** A receiver that records what it is sent and answers with the status `answer` chooses. */
class Receiver {
  readonly got: Received[] = [];
  answer: (r: Received) => number = () => 200;
  private server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (d: Buffer) => parts.push(d));
    req.on('end', () => {
      const body = Buffer.concat(parts).toString();
      const text = req.headers['content-type'] === 'application/x-www-form-urlencoded' ? decodeURIComponent(body.replace(/^payload=/, '')) : body;
      const r: Received = { headers: req.headers, body, json: JSON.parse(text) as Row, path: req.url ?? '' };
      const status = this.answer(r);
      if (status < 300) this.got.push(r);
      res.writeHead(status).end('ok');
    });
  });

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  /** Wait for a delivery that `match` picks. */
  async wait(what: string, match: (r: Received) => boolean): Promise<Received> {
    let hit: Received | undefined;
    await waitFor(what, async () => !!(hit = this.got.find(match)));
    return hit!;
  }
}

// why: the package is ECMAScript-module only; the tests compile to CommonJS.
const esm = new Function('m', 'return import(m)') as (m: string) => Promise<{ verify(secret: string, payload: string, signature: string): Promise<boolean> }>;

describe('webhooks: deliveries', () => {
  let w: World;
  let alice: TestUser;
  let bob: TestUser;
  let g: GitTool;
  const rx = new Receiver();
  let base = '';
  const secret = 'our little secret';
  const ev = (r: Received) => r.headers['x-gitea-event-type'];

  before(async () => {
    w = await startWorld({
      env: {
        FORGE__WEBHOOK__ALLOWED_HOST_LIST: 'loopback', FORGE__WEBHOOK__RETRY_FIRST_DELAY: '1',
        // why: the last test restarts the server to see finished deliveries pruned.
        FORGE__CRON_0X2E_CLEANUP_HOOK_TASK_TABLE__RUN_AT_START: 'true', FORGE__CRON_0X2E_CLEANUP_HOOK_TASK_TABLE__OLDER_THAN: '2s',
      },
    });
    [alice, bob] = [await w.user('alice'), await w.user('bob')];
    g = new GitTool(w);
    base = await rx.start();
    await apiRepo(w, alice, 'proj');
    expect((await w.raw('PUT', '/repos/alice/proj/collaborators/bob', { permission: 'write' }, { token: alice.token })).status).to.equal(204);
    const made = await w.raw('POST', '/repos/alice/proj/hooks', {
      type: 'gitea', config: { url: `${base}/all`, content_type: 'json', secret }, active: true,
      events: ['push', 'create', 'delete', 'issues', 'issue_comment', 'pull_request', 'pull_request_review_request', 'pull_request_review', 'release', 'status', 'wiki', 'fork', 'repository'],
    }, { token: alice.token });
    expect(made.status, made.text).to.equal(201);
  });
  after(async () => {
    await w.stop();
    await rx.stop();
  });

  it('delivers a push over HTTP with Gitea\'s payload, headers and signatures', async () => {
    const dir = await g.clone(alice, 'alice', 'proj');
    const sha = await g.commit(dir, 'a.txt', 'hello\n', 'add a.txt\n\nwith a body');
    const before = (await g.serverRef('alice', 'proj', 'refs/heads/main'))!;
    await g.ok(['push', '-q', 'origin', 'main'], dir);
    const r = await rx.wait('the push', (x) => ev(x) === 'push' && x.json.after === sha);
    const h = r.headers;
    expect([h['x-gitea-event'], h['x-gogs-event'], h['x-github-event'], h['x-gitea-hook-installation-target-type']]).to.deep.equal(['push', 'push', 'push', 'repository']);
    expect(h['x-gitea-delivery']).to.match(/^[0-9a-f-]{36}$/).and.equal(h['x-github-delivery']);
    const { verify } = await esm('@octokit/webhooks-methods');
    expect(await verify(secret, r.body, String(h['x-hub-signature-256']))).to.equal(true);
    expect(h['x-gitea-signature']).to.equal(crypto.createHmac('sha256', secret).update(r.body).digest('hex'));
    const p = r.json;
    expect(Object.keys(p)).to.deep.equal(['ref', 'before', 'after', 'compare_url', 'commits', 'total_commits', 'head_commit', 'repository', 'pusher', 'sender']);
    expect(p).to.deep.include({ ref: 'refs/heads/main', before, after: sha, total_commits: 1, compare_url: new URL(`alice/proj/compare/${before}...${sha}`, w.server.url).href });
    expect(p.commits).to.have.length(1);
    expect(p.commits[0]).to.deep.include({ id: sha, message: 'add a.txt\n\nwith a body\n', url: new URL(`alice/proj/commit/${sha}`, w.server.url).href, added: ['a.txt'], removed: [], modified: [], verification: null });
    expect(p.head_commit.id).to.equal(sha);
    expect([p.pusher.login, p.sender.login, p.repository.full_name]).to.deep.equal(['alice', 'alice', 'alice/proj']);
    expect(p.repository.permissions).to.deep.equal({ admin: true, push: true, pull: true });
    expect(p.sender.email).to.match(/@noreply\./);
  });

  it('sends create then push for a new branch, delete alone for a deleted one, and push then create for a tag', async () => {
    const dir = await g.clone(bob, 'alice', 'proj');
    await g.ok(['checkout', '-q', '-b', 'feature'], dir);
    const sha = await g.commit(dir, 'f.txt', 'f\n');
    await g.ok(['push', '-q', 'origin', 'feature'], dir);
    const push = await rx.wait('the branch push', (x) => ev(x) === 'push' && x.json.ref === 'refs/heads/feature');
    const create = await rx.wait('the branch creation', (x) => ev(x) === 'create' && x.json.ref === 'feature');
    expect(rx.got.indexOf(create)).to.be.below(rx.got.indexOf(push));
    expect(create.json).to.deep.include({ sha, ref_type: 'branch' });
    expect(create.json.repository.permissions).to.deep.equal({ admin: false, push: false, pull: false });
    expect(push.json.before).to.equal('0000000000000000000000000000000000000000');
    // why: as Gitea, a new branch's push lists up to 10 commits back from its tip (here the whole history).
    expect(push.json.total_commits).to.equal(3);
    expect(push.json.pusher.login).to.equal('bob');

    await g.ok(['tag', 'v1', sha], dir);
    await g.ok(['push', '-q', 'origin', 'v1'], dir);
    const tagPush = await rx.wait('the tag push', (x) => ev(x) === 'push' && x.json.ref === 'refs/tags/v1');
    const tagCreate = await rx.wait('the tag creation', (x) => ev(x) === 'create' && x.json.ref === 'v1');
    expect(rx.got.indexOf(tagPush)).to.be.below(rx.got.indexOf(tagCreate));
    expect([tagPush.json.total_commits, tagPush.json.commits, tagPush.json.head_commit.id, tagCreate.json.ref_type]).to.deep.equal([0, [], sha, 'tag']);

    const pushesBefore = rx.got.filter((x) => ev(x) === 'push').length;
    await g.ok(['push', '-q', 'origin', ':feature'], dir);
    const del = await rx.wait('the branch deletion', (x) => ev(x) === 'delete' && x.json.ref === 'feature');
    expect(del.json).to.deep.include({ ref_type: 'branch', pusher_type: 'user' });
    expect(rx.got.filter((x) => ev(x) === 'push').length).to.equal(pushesBefore);
  });

  it('delivers issue and comment events from gitea-js with the issue as the API shows it', async () => {
    const issue = (await bob.api.repos.issueCreateIssue('alice', 'proj', { title: 'Broken', body: 'it breaks' })).data;
    const opened = await rx.wait('issue opened', (x) => ev(x) === 'issues' && x.json.action === 'opened' && x.json.number === issue.number);
    expect(Object.keys(opened.json)).to.deep.equal(['action', 'number', 'issue', 'repository', 'sender', 'commit_id']);
    expect(opened.json.issue).to.deep.include({ id: issue.id, number: issue.number, title: 'Broken', body: 'it breaks', state: 'open' });
    expect(opened.json.sender.login).to.equal('bob');
    expect(opened.json.repository.permissions).to.deep.equal({ admin: false, push: true, pull: true });

    await bob.api.repos.issueEditIssue('alice', 'proj', issue.number!, { title: 'Really broken' });
    const edited = await rx.wait('issue edited', (x) => ev(x) === 'issues' && x.json.action === 'edited' && x.json.number === issue.number);
    expect(edited.json.changes).to.deep.equal({ title: { from: 'Broken' } });

    const comment = (await alice.api.repos.issueCreateComment('alice', 'proj', issue.number!, { body: 'looking' })).data;
    const said = await rx.wait('comment created', (x) => ev(x) === 'issue_comment' && x.json.action === 'created');
    expect(said.headers['x-gitea-event']).to.equal('issue_comment');
    expect(said.json.comment).to.deep.include({ id: comment.id, body: 'looking' });
    expect([said.json.is_pull, said.json.issue.number]).to.deep.equal([false, issue.number]);

    await alice.api.repos.issueEditIssue('alice', 'proj', issue.number!, { state: 'closed' });
    await rx.wait('issue closed', (x) => ev(x) === 'issues' && x.json.action === 'closed' && x.json.issue.state === 'closed');
  });

  it('delivers pull request events: opened, review requested, synchronized', async () => {
    const dir = await g.clone(bob, 'alice', 'proj');
    await g.ok(['checkout', '-q', '-b', 'topic'], dir);
    await g.commit(dir, 't.txt', 't\n');
    await g.ok(['push', '-q', 'origin', 'topic'], dir);
    const pr = (await bob.api.repos.repoCreatePullRequest('alice', 'proj', { title: 'Topic', head: 'topic', base: 'main', reviewers: ['alice'] })).data;
    const opened = await rx.wait('pull opened', (x) => ev(x) === 'pull_request' && x.json.action === 'opened' && x.json.number === pr.number);
    expect(Object.keys(opened.json)).to.deep.equal(['action', 'number', 'pull_request', 'requested_reviewer', 'repository', 'sender', 'commit_id', 'review']);
    expect(opened.json.pull_request).to.deep.include({ number: pr.number, title: 'Topic' });
    expect(opened.json.pull_request.head.ref).to.equal('topic');
    const asked = await rx.wait('review requested', (x) => ev(x) === 'pull_request_review_request' && x.json.number === pr.number);
    expect([asked.json.action, asked.json.requested_reviewer.login, asked.headers['x-gitea-event']]).to.deep.equal(['review_requested', 'alice', 'pull_request']);

    await g.commit(dir, 't2.txt', 't2\n');
    await g.ok(['push', '-q', 'origin', 'topic'], dir);
    const sync = await rx.wait('pull synchronized', (x) => ev(x) === 'pull_request_sync' && x.json.number === pr.number);
    expect([sync.json.action, sync.json.sender.login]).to.deep.equal(['synchronized', 'bob']);

    expect((await w.raw('POST', '/repos/alice/proj/branches', { new_branch_name: 'other', old_branch_name: 'main' }, { token: alice.token })).status).to.equal(201);
    expect((await w.raw('PATCH', `/repos/alice/proj/pulls/${pr.number}`, { base: 'other' }, { token: alice.token })).status).to.equal(201);
    const retargeted = await rx.wait('pull retargeted', (x) => ev(x) === 'pull_request' && x.json.action === 'edited' && x.json.number === pr.number);
    expect([retargeted.json.changes, retargeted.json.pull_request.base.ref]).to.deep.equal([{ ref: { from: 'main' } }, 'other']);
    expect((await w.raw('PATCH', `/repos/alice/proj/pulls/${pr.number}`, { base: 'main' }, { token: alice.token })).status).to.equal(201);

    await alice.api.repos.repoCreatePullReview('alice', 'proj', pr.number!, { event: 'APPROVED', body: 'fine' });
    const approved = await rx.wait('review approved', (x) => ev(x) === 'pull_request_review_approved' && x.json.number === pr.number);
    expect([approved.headers['x-gitea-event'], approved.json.action, approved.json.review, approved.json.requested_reviewer.login])
      .to.deep.equal(['pull_request_approved', 'reviewed', { type: 'pull_request_review_approved', content: 'fine' }, 'alice']);
    await waitFor('mergeable', async () => (await alice.api.repos.repoGetPullRequest('alice', 'proj', pr.number!)).data.mergeable === true);
    const merged = await w.raw('POST', `/repos/alice/proj/pulls/${pr.number}/merge`, { Do: 'merge' }, { token: alice.token });
    expect(merged.status, merged.text).to.equal(200);
    const closed = await rx.wait('pull merged', (x) => ev(x) === 'pull_request' && x.json.action === 'closed' && x.json.number === pr.number);
    expect([closed.json.pull_request.merged, closed.json.pull_request.state]).to.deep.equal([true, 'closed']);
  });

  it('delivers release, commit status, wiki and fork events, and repository events to the owner\'s hooks', async () => {
    const tip = (await g.serverRef('alice', 'proj', 'refs/heads/main'))!;
    const rel = await w.raw('POST', '/repos/alice/proj/releases', { tag_name: 'v9', name: 'Nine', body: 'notes' }, { token: alice.token });
    expect(rel.status, rel.text).to.equal(201);
    const published = await rx.wait('release published', (x) => ev(x) === 'release' && x.json.release?.tag_name === 'v9');
    expect(Object.keys(published.json)).to.deep.equal(['action', 'release', 'repository', 'sender']);
    expect([published.json.action, published.json.release.name, published.json.release.id]).to.deep.equal(['published', 'Nine', rel.body.id]);
    await w.raw('PATCH', `/repos/alice/proj/releases/${rel.body.id}`, { name: 'Nine!' }, { token: alice.token });
    await rx.wait('release updated', (x) => ev(x) === 'release' && x.json.action === 'updated' && x.json.release.name === 'Nine!');
    expect((await w.raw('DELETE', `/repos/alice/proj/releases/${rel.body.id}`, undefined, { token: alice.token })).status).to.equal(204);
    await rx.wait('release deleted', (x) => ev(x) === 'release' && x.json.action === 'deleted' && x.json.release.id === rel.body.id);

    const st = await w.raw('POST', `/repos/alice/proj/statuses/${tip}`, { state: 'success', context: 'ci/test', target_url: 'https://ci.example.com/1', description: 'ok' }, { token: alice.token });
    expect(st.status, st.text).to.equal(201);
    const status = await rx.wait('status', (x) => ev(x) === 'status' && x.json.sha === tip);
    expect(status.json).to.deep.include({ context: 'ci/test', state: 'success', target_url: 'https://ci.example.com/1', description: 'ok', id: st.body.id });
    expect(status.json.commit.id).to.equal(tip);

    const page = await w.raw('POST', '/repos/alice/proj/wiki/new', { title: 'Home', content_base64: Buffer.from('# hi').toString('base64'), message: 'first page' }, { token: alice.token });
    expect(page.status, page.text).to.equal(201);
    const wiki = await rx.wait('wiki page created', (x) => ev(x) === 'wiki');
    expect(wiki.json).to.deep.include({ action: 'created', page: 'Home', comment: 'first page' });

    const fork = await w.raw('POST', '/repos/alice/proj/forks', {}, { token: bob.token });
    expect(fork.status, fork.text).to.equal(202);
    const forked = await rx.wait('fork', (x) => ev(x) === 'fork');
    expect([forked.json.forkee.full_name, forked.json.repository.full_name, forked.json.sender.login]).to.deep.equal(['alice/proj', 'bob/proj', 'bob']);

    const userHook = await w.raw('POST', '/user/hooks', { type: 'gitea', config: { url: `${base}/user`, content_type: 'json' }, events: ['repository'], active: true }, { token: alice.token });
    expect(userHook.status, userHook.text).to.equal(201);
    await apiRepo(w, alice, 'second');
    const created = await rx.wait('repository created', (x) => x.path === '/user' && x.json.action === 'created');
    expect([created.json.repository.full_name, created.json.organization.login, created.json.repository.permissions.admin]).to.deep.equal(['alice/second', 'alice', true]);
    expect((await w.raw('DELETE', '/repos/alice/second', undefined, { token: alice.token })).status).to.equal(204);
    await rx.wait('repository deleted', (x) => x.path === '/user' && x.json.action === 'deleted' && x.json.repository.full_name === 'alice/second');
  });

  it('retries a failed delivery with the same X-Gitea-Delivery, keeps the history, and replays with a new one', async () => {
    let refused = 0;
    rx.answer = (r) => (ev(r) === 'issues' && r.json.issue?.title === 'Flaky' && refused++ < 1 ? 500 : 200);
    const seen: string[] = [];
    const prev = rx.answer;
    rx.answer = (r) => {
      if (r.json.issue?.title === 'Flaky') seen.push(String(r.headers['x-gitea-delivery']));
      return prev(r);
    };
    await alice.api.repos.issueCreateIssue('alice', 'proj', { title: 'Flaky' });
    const got = await rx.wait('the retried delivery', (x) => x.json.issue?.title === 'Flaky');
    rx.answer = () => 200;
    expect(seen).to.have.length(2);
    expect(new Set(seen).size).to.equal(1);
    const hook = (await w.raw('GET', '/repos/alice/proj/hooks', undefined, { token: alice.token })).body[0];
    const deliveryOf = async () => {
      const history = await w.raw('GET', `/repos/alice/proj/hooks/${hook.id}/deliveries?limit=50`, undefined, { token: alice.token });
      expect(history.status).to.equal(200);
      return (history.body as Row[]).find((t) => t.uuid === got.headers['x-gitea-delivery'])!;
    };
    // why: the receiver sees the request before the forge has read the answer and recorded it.
    await waitFor('the delivery recorded', async () => (await deliveryOf()).status !== 'pending');
    const task = await deliveryOf();
    expect(task).to.deep.include({ status: 'delivered', is_succeed: true, attempts: 2, event: 'issues' });
    expect(task.request.headers['X-Gitea-Delivery']).to.equal(task.uuid);
    expect(task.response.status).to.equal(200);
    expect((await w.raw('GET', `/repos/alice/proj/hooks/${hook.id}/deliveries`, undefined, { token: bob.token })).status).to.equal(403);

    const replay = await w.raw('POST', `/repos/alice/proj/hooks/${hook.id}/deliveries/${task.uuid}/replay`, undefined, { token: alice.token });
    expect(replay.status, replay.text).to.equal(201);
    expect(replay.body.uuid).to.not.equal(task.uuid);
    const again = await rx.wait('the replay', (x) => x.headers['x-gitea-delivery'] === replay.body.uuid);
    expect(again.body).to.equal(got.body);
    expect((await w.raw('POST', `/repos/alice/proj/hooks/${hook.id}/deliveries/nope/replay`, undefined, { token: alice.token })).status).to.equal(404);
  });

  it('delivers a hook\'s events in the order they happened', async () => {
    for (let i = 0; i < 15; i++) await w.raw('POST', '/repos/alice/proj/issues', { title: `order ${i}` }, { token: alice.token });
    await rx.wait('the last one', (x) => x.json.issue?.title === 'order 14' && x.json.action === 'opened');
    const titles = rx.got.filter((x) => String(x.json.issue?.title ?? '').startsWith('order ') && x.json.action === 'opened').map((x) => x.json.issue.title);
    expect(titles).to.deep.equal(Array.from({ length: 15 }, (_, i) => `order ${i}`));
  });

  it('sends a test push of the default branch tip, filtered like any push', async () => {
    const made = await w.raw('POST', '/repos/alice/proj/hooks', {
      type: 'gitea', config: { url: `${base}/test`, content_type: 'form', secret }, active: false, events: ['push'],
    }, { token: alice.token });
    const tip = (await g.serverRef('alice', 'proj', 'refs/heads/main'))!;
    const t = await w.raw('POST', `/repos/alice/proj/hooks/${made.body.id}/tests`, undefined, { token: alice.token });
    expect(t.status, t.text).to.equal(204);
    // why: as Gitea, an inactive hook gets the task, which is recorded without being sent.
    await waitFor('the test task recorded', async () => {
      const h = await w.raw('GET', `/repos/alice/proj/hooks/${made.body.id}/deliveries`, undefined, { token: alice.token });
      return h.body.length === 1 && h.body[0].status === 'failed';
    });
    await w.raw('PATCH', `/repos/alice/proj/hooks/${made.body.id}`, { active: true }, { token: alice.token });
    expect((await w.raw('POST', `/repos/alice/proj/hooks/${made.body.id}/tests`, undefined, { token: alice.token })).status).to.equal(204);
    const r = await rx.wait('the test push', (x) => x.path === '/test');
    expect(r.headers['content-type']).to.equal('application/x-www-form-urlencoded');
    expect(r.headers['x-gitea-signature']).to.equal(crypto.createHmac('sha256', secret).update(JSON.stringify(r.json, null, 2)).digest('hex'));
    expect(r.json).to.deep.include({ ref: 'refs/heads/main', before: tip, after: tip, total_commits: 1 });
    expect(r.json.head_commit.verification).to.include({ verified: false });
    expect(r.json.repository.permissions).to.deep.equal({ admin: false, push: false, pull: false });
    expect((await w.raw('POST', `/repos/alice/proj/hooks/${made.body.id}/tests?ref=nope`, undefined, { token: alice.token })).status).to.equal(404);
    expect((await w.raw('POST', '/repos/alice/proj/hooks/999999/tests', undefined, { token: alice.token })).status).to.equal(404);
  });

  it('prunes finished deliveries older than OLDER_THAN and keeps waiting ones', async () => {
    const delivered = await count(w.server, "SELECT COUNT(*) AS n FROM hook_task WHERE is_delivered = $1", [true]);
    expect(delivered).to.be.above(10);
    const hook = (await w.raw('POST', '/repos/alice/proj/hooks', { type: 'gitea', config: { url: 'http://127.0.0.1:9/down', content_type: 'json' }, events: ['issues'], active: true }, { token: alice.token })).body;
    await w.raw('POST', '/repos/alice/proj/issues', { title: 'waits' }, { token: alice.token });
    await new Promise((r) => setTimeout(r, 2100));
    await w.server.stop();
    await w.server.start();
    await waitFor('the pruning at start', async () => (await count(w.server, "SELECT COUNT(*) AS n FROM hook_task WHERE is_delivered = $1", [true])) === 0);
    expect(await count(w.server, 'SELECT COUNT(*) AS n FROM hook_task WHERE hook_id = $1 AND is_delivered = $2', [hook.id, false])).to.equal(1);
  });
});
