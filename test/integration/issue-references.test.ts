/**
 * Issue references and closing keywords, end to end: commits pushed with the git CLI, issues,
 * comments, pull requests and merges through the API (gitea-js and fetch), the timeline read back
 * as Gitea 1.24 shows it, the `issues` webhook at a real receiver, the issue page in the browser's
 * HTML. The server runs with `[repository.pull-request] CLOSE_KEYWORDS` changed: `fertig` closes,
 * `fixed` (a default) no longer does.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { apiRepo, GitTool, outboxSettled, waitFor } from '../helpers/refs';
import { count, insert, sql } from '../helpers/db';
import { startWorld, type TestUser, type World } from '../helpers/world';
import { WebClient } from '../helpers/web';
import { launchBrowser, screenshot, watchedPage } from '../helpers/browser';

/** A webhook receiver on 127.0.0.1 that keeps what it is sent. */
class Receiver {
  readonly got: { event: string; json: Record<string, unknown> }[] = [];
  private server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (d: Buffer) => parts.push(d));
    req.on('end', () => {
      this.got.push({ event: String(req.headers['x-gitea-event-type']), json: JSON.parse(Buffer.concat(parts).toString()) as Record<string, unknown> });
      res.writeHead(200).end('ok');
    });
  });

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

describe('issue references and closing keywords', () => {
  let w: World;
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;
  let dave: TestUser;
  let g: GitTool;
  let work: string;
  const rx = new Receiver();

  const api = (method: string, p: string, body: unknown, u: TestUser) => w.raw(method, p, body, { token: u.token });
  const newIssue = async (title: string, body = '', repo = 'alice/proj', who = alice): Promise<number> => {
    const r = await api('POST', `/repos/${repo}/issues`, { title, body }, who);
    expect(r.status, r.text).to.equal(201);
    return r.body.number as number;
  };
  const issue = async (n: number, repo = 'alice/proj', who = alice): Promise<Json> => (await api('GET', `/repos/${repo}/issues/${n}`, undefined, who)).body;
  const timeline = async (n: number, repo = 'alice/proj', who: TestUser | null = alice): Promise<Json[]> => {
    const r = await w.raw('GET', `/repos/${repo}/issues/${n}/timeline`, undefined, who ? { token: who.token } : {});
    // why: Gitea answers null for an empty timeline (tsoa sends it as 204).
    expect(r.status, r.text).to.be.oneOf([200, 204]);
    return (r.body ?? []) as Json[];
  };
  /** Commit with `message` on `branch` (made from origin/main when new) and push it as `who`. */
  const pushCommit = async (message: string, branch = 'main', who = carol, repo = 'alice/proj'): Promise<string> => {
    await g.ok(['fetch', '-q', g.url(who, ...(repo.split('/') as [string, string])), `+refs/heads/*:refs/remotes/${who.name}-${repo.replace('/', '-')}/*`], work);
    const remote = `${who.name}-${repo.replace('/', '-')}`;
    const exists = (await g.run(['rev-parse', '--verify', '--quiet', `${remote}/${branch}`], work)).code === 0;
    await g.ok(['checkout', '-q', '-B', branch, exists ? `${remote}/${branch}` : `${remote}/main`], work);
    const sha = await g.commit(work, `f-${Date.now()}-${Math.random().toString(36).slice(2)}.txt`, 'x\n', message);
    await g.ok(['push', '-q', g.url(who, ...(repo.split('/') as [string, string])), `HEAD:refs/heads/${branch}`], work);
    await outboxSettled(w);
    return sha;
  };

  before(async () => {
    w = await startWorld({
      env: {
        FORGE__WEBHOOK__ALLOWED_HOST_LIST: 'loopback',
        'FORGE__REPOSITORY_0X2E_PULL-REQUEST__CLOSE_KEYWORDS': 'close, closes, fix, fixes, resolves, Fertig',
      },
    });
    [alice, bob, carol, dave] = [await w.user('alice'), await w.user('bob'), await w.user('carol'), await w.user('dave')];
    g = new GitTool(w);
    await apiRepo(w, alice, 'proj');
    await apiRepo(w, alice, 'secret', { auto_init: true, private: true });
    await apiRepo(w, bob, 'public');
    expect((await api('PUT', '/repos/alice/proj/collaborators/carol', { permission: 'write' }, alice)).status).to.equal(204);
    work = await g.clone(alice, 'alice', 'proj');
    const hook = await api('POST', '/repos/alice/proj/hooks', { type: 'gitea', config: { url: await rx.start(), content_type: 'json' }, events: ['issues'], active: true }, alice);
    expect(hook.status, hook.text).to.equal(201);
  });

  after(async () => {
    await rx.stop();
    await w?.stop();
  });

  it('a commit pushed to the default branch with "Fixes #n" closes the issue, names the commit and sends the closed webhook', async () => {
    const n = await newIssue('Crash on save');
    const sha = await pushCommit(`Fix the crash\n\nFixes #${n}`);
    expect((await issue(n)).state).to.equal('closed');
    const tl = await timeline(n);
    const ref = tl.find((e) => e.type === 'commit_ref');
    expect(ref, JSON.stringify(tl)).to.include({ ref_commit_sha: sha, ref_action: 'none', ref_issue: null, ref_comment: null });
    expect(ref.user.login).to.equal('carol');
    expect(ref.body).to.equal(`<a href="/alice/proj/commit/${sha}">Fix the crash</a>`);
    const close = tl.find((e) => e.type === 'close');
    expect(close).to.include({ ref_commit_sha: sha });
    expect(close.user.login).to.equal('carol');
    const hit = await waitFor('the closed webhook', async () => rx.got.some((d) => d.event === 'issues' && d.json.action === 'closed' && (d.json.issue as Json).number === n))
      .then(() => rx.got.find((d) => d.json.action === 'closed' && (d.json.issue as Json).number === n)!);
    expect((hit.json.sender as Json).login).to.equal('carol');
  });

  it('on another branch only references the issue; the same commit reaching main later closes it, with one commit_ref', async () => {
    const n = await newIssue('Wrong result');
    const sha = await pushCommit(`Compute it right\n\nfixes #${n}`, 'topic-a');
    expect((await issue(n)).state).to.equal('open');
    expect((await timeline(n)).filter((e) => e.type === 'commit_ref').map((e) => e.ref_commit_sha)).to.deep.equal([sha]);
    // the same commit pushed to main (a fast-forward): no second reference, and now the close
    await g.ok(['push', '-q', g.url(carol, 'alice', 'proj'), `${sha}:refs/heads/main`], work);
    await outboxSettled(w);
    const tl = await timeline(n);
    expect(tl.filter((e) => e.type === 'commit_ref')).to.have.length(1);
    expect(tl.filter((e) => e.type === 'close').map((e) => e.ref_commit_sha)).to.deep.equal([sha]);
    expect((await issue(n)).state).to.equal('closed');
  });

  it('"Reopens #n" reopens a closed issue, the reopen entry naming the commit', async () => {
    const n = await newIssue('Flaky test');
    expect((await api('PATCH', `/repos/alice/proj/issues/${n}`, { state: 'closed' }, alice)).status).to.equal(201);
    const sha = await pushCommit(`It came back\n\nReopens #${n}`);
    expect((await issue(n)).state).to.equal('open');
    expect((await timeline(n)).find((e) => e.type === 'reopen' && e.ref_commit_sha === sha)).to.not.equal(undefined);
  });

  it('a replayed job writes no second reference and no second close', async () => {
    const n = await newIssue('Replay me');
    const sha = await pushCommit(`Once\n\nfixes #${n}`);
    expect((await api('PATCH', `/repos/alice/proj/issues/${n}`, { state: 'open' }, alice)).status).to.equal(201);
    const [job] = await sql(w.server, "SELECT payload FROM outbox WHERE topic = 'issue.commit-refs' AND payload LIKE $1", [`%${sha}%`]);
    expect(job, 'the push queued its commit-refs job').to.not.equal(undefined);
    await insert(w.server, 'outbox', { topic: 'issue.commit-refs', payload: job.payload, status: 'pending', attempts: 0, available_at: 0 });
    await outboxSettled(w);
    expect(await count(w.server, "SELECT COUNT(*) AS n FROM outbox WHERE topic = 'issue.commit-refs' AND status <> 'done'")).to.equal(0);
    const tl = await timeline(n);
    expect(tl.filter((e) => e.type === 'commit_ref')).to.have.length(1);
    expect(tl.filter((e) => e.type === 'close')).to.have.length(1);
    expect((await issue(n)).state, 'the reopen by hand stands').to.equal('open');
  });

  it('a pusher who may not write issues only references: team code writer with issues read, and another owner\'s repository', async () => {
    // an organization whose team writes code but only reads issues
    expect((await api('POST', '/orgs', { username: 'acme' }, alice)).status).to.equal(201);
    expect((await api('POST', '/orgs/acme/repos', { name: 'tool', auto_init: true }, alice)).status).to.equal(201);
    const team = await api('POST', '/orgs/acme/teams', {
      name: 'coders', permission: 'write', includes_all_repositories: true, units_map: { 'repo.code': 'write', 'repo.issues': 'read', 'repo.pulls': 'read' },
    }, alice);
    expect(team.status, team.text).to.equal(201);
    expect((await api('PUT', `/teams/${team.body.id}/members/dave`, undefined, alice)).status).to.equal(204);
    const n = await newIssue('Tool breaks', '', 'acme/tool');
    const sha = await pushCommit(`Tool fix\n\nFixes #${n}`, 'main', dave, 'acme/tool');
    expect((await issue(n, 'acme/tool')).state).to.equal('open');
    const tl = await timeline(n, 'acme/tool');
    expect(tl.map((e) => e.type)).to.not.include('close');
    expect(tl.find((e) => e.type === 'commit_ref')).to.include({ ref_commit_sha: sha });
    // carol writes alice/proj but only reads bob/public
    const m = await newIssue('Public bug', '', 'bob/public', bob);
    const sha2 = await pushCommit(`Cross fix\n\nFixes bob/public#${m}`);
    expect((await issue(m, 'bob/public', bob)).state).to.equal('open');
    const tl2 = await timeline(m, 'bob/public', bob);
    expect(tl2.find((e) => e.type === 'commit_ref')).to.include({ ref_commit_sha: sha2 });
    expect(tl2.map((e) => e.type)).to.not.include('close');
  });

  it('an issue body and a comment that reference an issue leave issue_ref and comment_ref entries; editing the text away neuters them', async () => {
    const target = await newIssue('Target');
    const from = await newIssue('Referrer', `This looks like #${target}.`);
    let tl = await timeline(target);
    const iref = tl.find((e) => e.type === 'issue_ref');
    expect(iref.ref_action).to.equal('none');
    expect(iref.ref_issue.number).to.equal(from);
    expect(iref.ref_comment).to.equal(null);
    const c = await alice.api.repos.issueCreateComment('alice', 'proj', from, { body: `Also related: alice/proj#${target}` });
    tl = await timeline(target);
    const cref = tl.find((e) => e.type === 'comment_ref');
    expect(cref.ref_comment.id).to.equal(c.data.id);
    expect(cref.ref_comment.body).to.equal(`Also related: alice/proj#${target}`);
    expect(cref.ref_comment.html_url).to.match(new RegExp(`/alice/proj/issues/${from}#issuecomment-${c.data.id}$`));
    expect(cref.ref_issue.number).to.equal(from);
    // no entry for a reference to itself, none from a code block
    await alice.api.repos.issueCreateComment('alice', 'proj', target, { body: `self #${target}\n\n\`\`\`\n#${from}\n\`\`\`` });
    expect((await timeline(target)).filter((e) => e.type === 'comment_ref')).to.have.length(1);
    expect((await timeline(from)).filter((e) => e.type === 'comment_ref')).to.have.length(0);
    // edits
    await alice.api.repos.issueEditComment('alice', 'proj', c.data.id!, { body: 'nothing here' });
    await alice.api.repos.issueEditIssue('alice', 'proj', from, { body: 'no reference any more' });
    tl = await timeline(target);
    expect(tl.find((e) => e.type === 'comment_ref').ref_action).to.equal('neutered');
    expect(tl.find((e) => e.type === 'issue_ref').ref_action).to.equal('neutered');
    // writing it back adds a new entry, the neutered one stays
    await alice.api.repos.issueEditIssue('alice', 'proj', from, { body: `back to #${target}` });
    expect((await timeline(target)).filter((e) => e.type === 'issue_ref').map((e) => e.ref_action)).to.deep.equal(['neutered', 'none']);
  });

  it('references from a private repository are not shown to a reader who cannot read it (API and issue page)', async () => {
    const n = await newIssue('Public issue');
    await newIssue('Secret plan', `Tracks alice/proj#${n}`, 'alice/secret');
    const sha = await pushCommit(`Secret work for alice/proj#${n}`, 'main', alice, 'alice/secret');
    const mine = await timeline(n, 'alice/proj', alice);
    expect(mine.map((e) => e.type)).to.include.members(['issue_ref', 'commit_ref']);
    for (const reader of [bob, null]) {
      const theirs = await timeline(n, 'alice/proj', reader);
      expect(theirs.map((e) => e.type)).to.not.include('issue_ref');
      expect(theirs.map((e) => e.type)).to.not.include('commit_ref');
    }
    const page = await (await WebClient.signedIn(w, bob)).get(`/alice/proj/issues/${n}`);
    expect(page.status).to.equal(200);
    expect(page.text).to.not.include('Secret');
    expect(page.text).to.not.include(sha.slice(0, 10));
    const own = await (await WebClient.signedIn(w, alice)).get(`/alice/proj/issues/${n}`);
    expect(own.text).to.include('referenced this issue from a commit');
    expect(own.text).to.include(`/alice/secret/commit/${sha}`);
    expect(own.text).to.include('Secret plan');
  });

  it('the issue page shows commit references and closes by commit', async () => {
    const n = await newIssue('Shown on the page');
    const sha = await pushCommit(`Page fix\n\nfixes #${n}`);
    const page = await (await WebClient.signedIn(w, alice)).get(`/alice/proj/issues/${n}`);
    expect(page.text).to.match(/carol<\/strong> referenced this issue from a commit\s*<relative-time datetime="[^"]+"/);
    expect(page.text).to.include(`<a href="${w.server.url}alice/proj/commit/${sha}">Page fix</a>`);
    expect(page.text).to.match(new RegExp(`closed this issue in <a href="${w.server.url}alice/proj/commit/${sha}" class="sha">${sha.slice(0, 10)}</a>`));
  });

  it('in a browser, a reader sees the references and the close by commit in the issue\'s timeline', async () => {
    const n = await newIssue('Seen in a browser');
    await newIssue('The referrer', `Duplicate of #${n}`);
    const sha = await pushCommit(`Browser fix\n\nCloses #${n}`);
    const browser = await launchBrowser();
    try {
      const wp = await watchedPage(browser);
      await wp.page.setViewportSize({ width: 360, height: 800 });
      await wp.page.goto(`${w.server.rootUrl}alice/proj/issues/${n}`);
      const timelineText = await wp.page.locator('.timeline').innerText();
      expect(timelineText).to.match(/alice\s+referenced this issue\s+from #\d+ The referrer/);
      expect(timelineText).to.match(/carol referenced this issue from a commit/);
      expect(timelineText).to.include('Browser fix');
      expect(timelineText).to.include(`closed this issue in ${sha.slice(0, 10)}`);
      await wp.page.click('.event-commit_ref a.sha');
      expect(wp.page.url()).to.equal(`${w.server.rootUrl}alice/proj/commit/${sha}`);
      await wp.page.goBack();
      expect(await wp.page.evaluate('document.documentElement.scrollWidth <= window.innerWidth'), 'no horizontal scroll at 360 px').to.equal(true);
      await screenshot(wp.page, 'issue-references');
      expect(wp.problems).to.deep.equal([]);
    } finally {
      await browser.close();
    }
  });

  it('a merged pull request with "Closes #n" in its body closes the issue, naming the merge commit, with the closed webhook', async () => {
    const n = await newIssue('To be closed by a pull request');
    await pushCommit('Some work', 'topic-pr');
    const pr = await api('POST', '/repos/alice/proj/pulls', { head: 'topic-pr', base: 'main', title: 'Do the work', body: `Closes #${n}` }, carol);
    expect(pr.status, pr.text).to.equal(201);
    const pull = pr.body.number as number;
    const tlBefore = await timeline(n);
    expect(tlBefore.find((e) => e.type === 'pull_ref')).to.include({ ref_action: 'closes' });
    await outboxSettled(w);
    await waitFor('the pull request to be mergeable', async () => (await api('GET', `/repos/alice/proj/pulls/${pull}`, undefined, alice)).body.mergeable === true);
    const merged = await api('POST', `/repos/alice/proj/pulls/${pull}/merge`, { Do: 'merge' }, alice);
    expect(merged.status, merged.text).to.equal(200);
    const mergeSha = (await api('GET', `/repos/alice/proj/pulls/${pull}`, undefined, alice)).body.merge_commit_sha as string;
    expect((await issue(n)).state).to.equal('closed');
    const close = (await timeline(n)).find((e) => e.type === 'close');
    expect(close).to.include({ ref_commit_sha: mergeSha });
    expect(close.user.login).to.equal('alice');
    await waitFor('the closed webhook', async () => rx.got.some((d) => d.json.action === 'closed' && (d.json.issue as Json).number === n));
  });

  it('as Gitea 1.24, a pull request merged into another branch closes too; a review body references', async () => {
    const n = await newIssue('Closed from a release branch');
    await pushCommit('Release base', 'release');
    await pushCommit('Backport', 'topic-rel');
    const pr = await api('POST', '/repos/alice/proj/pulls', { head: 'topic-rel', base: 'release', title: `Backport, resolves #${n}` }, alice);
    expect(pr.status, pr.text).to.equal(201);
    const pull = pr.body.number as number;
    const review = await api('POST', `/repos/alice/proj/pulls/${pull}/reviews`, { event: 'COMMENT', body: `Compare with #${n}` }, carol);
    expect(review.status, review.text).to.equal(200);
    const refs = (await timeline(n)).filter((e) => e.type === 'comment_ref');
    expect(refs.map((e) => [e.ref_issue.number, e.ref_action, e.ref_comment.body])).to.deep.equal([[pull, 'none', `Compare with #${n}`]]);
    await outboxSettled(w);
    await waitFor('the pull request to be mergeable', async () => (await api('GET', `/repos/alice/proj/pulls/${pull}`, undefined, alice)).body.mergeable === true);
    expect((await api('POST', `/repos/alice/proj/pulls/${pull}/merge`, { Do: 'merge' }, alice)).status).to.equal(200);
    expect((await issue(n)).state).to.equal('closed');
  });

  it('honours CLOSE_KEYWORDS from the configuration: "Fertig" closes, "fixed" no longer does', async () => {
    const a = await newIssue('Closed by a configured word');
    const b = await newIssue('Not closed by a removed word');
    await pushCommit(`Done\n\nFertig #${a}, fixed #${b}`);
    expect((await issue(a)).state).to.equal('closed');
    expect((await issue(b)).state).to.equal('open');
    expect((await timeline(b)).map((e) => e.type)).to.include('commit_ref');
  });

  it('a reference in the title of a new issue by a reader leaves an issue_ref entry without action', async () => {
    const n = await newIssue('Only referenced');
    const r = await api('POST', '/repos/alice/proj/issues', { title: `See #${n}` }, bob);
    expect(r.status, r.text).to.equal(201);
    const refs = (await timeline(n)).filter((e) => e.type === 'issue_ref');
    expect(refs).to.have.length(1);
    expect(refs[0].user.login).to.equal('bob');
    expect(refs[0].ref_action).to.equal('none');
    // in a repository nobody else watches and without hooks, a new issue is written in one statement: its references with it
    const target = await newIssue('Quiet target', '', 'bob/public', bob);
    const before = (await issue(target, 'bob/public', bob)).updated_at;
    await new Promise((r) => setTimeout(r, 1100));
    const quiet = await newIssue(`Duplicate of #${target}`, `and bob/public#${target} again, and alice/proj#${n}`, 'bob/public', bob);
    const quietRefs = (await timeline(target, 'bob/public', bob)).filter((e) => e.type === 'issue_ref');
    expect(quietRefs.map((e) => [e.ref_issue.number, e.ref_action, e.user.login])).to.deep.equal([[quiet, 'none', 'bob']]);
    expect((await issue(target, 'bob/public', bob)).updated_at).to.not.equal(before);
    expect((await timeline(n)).filter((e) => e.type === 'issue_ref').map((e) => e.ref_issue.repository.full_name)).to.deep.equal(['alice/proj', 'bob/public']);
    // only numbers of its own repository: the creating statement finds them; a missing one and itself leave nothing
    const own = quiet + 1;
    expect(await newIssue(`Also #${target}`, `and #${quiet}, #${own}, #99999`, 'bob/public', bob)).to.equal(own);
    expect((await timeline(target, 'bob/public', bob)).filter((e) => e.type === 'issue_ref').map((e) => e.ref_issue.number)).to.deep.equal([quiet, own]);
    expect((await timeline(quiet, 'bob/public', bob)).filter((e) => e.type === 'issue_ref').map((e) => e.ref_issue.number)).to.deep.equal([own]);
    expect((await timeline(own, 'bob/public', bob)).filter((e) => e.type === 'issue_ref')).to.deep.equal([]);
  });
});
