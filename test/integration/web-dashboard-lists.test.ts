/**
 * The dashboard's overviews against the real server: `/issues` and `/pulls` show, for each filter
 * (in your repositories, assigned, created by, mentioning, review requested, reviewed by), exactly
 * the issues or pull requests it should, with the open and closed totals, keywords and pages;
 * issues of a private repository the user can no longer read never show, even those it wrote, was
 * assigned, mentioned or asked to review in; `/milestones` shows the milestones of the user's
 * repositories with their progress and due dates, by state and by repository, and never another's
 * private milestone. Visitors are sent to sign in.
 */
import { expect } from 'chai';
import { startWorld, type World, type TestUser } from '../helpers/world';
import { apiRepo } from '../helpers/refs';
import { WebClient } from '../helpers/web';

/** The `owner/repo#n` references of a page's rows, sorted. */
const refs = (html: string) => [...html.matchAll(/class="overview-ref" href="[^"]+">([^<]+)<\/a>/g)].map((m) => m[1]).sort();
/** The filter menu: name → count. */
const menu = (html: string) => Object.fromEntries([...html.matchAll(/<span class="overview-filter-name">([^<]+)<\/span> <span class="overview-count">(\d+)<\/span>/g)].map((m) => [m[1], Number(m[2])]));
/** The open and closed totals of the state toggle. */
const states = (html: string) => ({ open: Number(/(\d+) Open<\/a>/.exec(html)?.[1]), closed: Number(/(\d+) Closed<\/a>/.exec(html)?.[1]) });
/** The milestone titles of a page, sorted. */
const milestones = (html: string) => [...html.matchAll(/class="overview-milestone-title" href="[^"]+">(?:<svg[^]*?<\/svg>) ([^<]+)<\/a>/g)].map((m) => m[1]).sort();

describe('dashboard overviews of issues, pull requests and milestones', () => {
  let w: World;
  let alice: TestUser;
  let bob: TestUser;
  let a: WebClient;
  let b: WebClient;
  let toolsId = 0;
  let v1 = 0;

  const ok = async (method: string, p: string, body: unknown, u: TestUser) => {
    const r = await w.raw(method, p, body, { token: u.token });
    expect(r.status, `${method} ${p}: ${r.text}`).to.be.within(200, 299);
    return r.body as Record<string, unknown>;
  };
  const issue = async (u: TestUser, repo: string, o: Record<string, unknown>) => Number((await ok('POST', `/repos/${repo}/issues`, o, u)).number);
  const pull = async (repo: string, branch: string, title: string) => {
    await ok('POST', `/repos/${repo}/contents/${branch}.txt`, { content: Buffer.from(`${branch}\n`).toString('base64'), new_branch: branch, message: `Add ${branch}` }, alice);
    return Number((await ok('POST', `/repos/${repo}/pulls`, { head: branch, base: 'main', title }, alice)).number);
  };

  before(async () => {
    w = await startWorld();
    [alice, bob] = [await w.user('alice'), await w.user('bob')];
    await apiRepo(w, alice, 'proj');
    await apiRepo(w, alice, 'secret', { auto_init: true, private: true });
    toolsId = await apiRepo(w, bob, 'tools');
    await ok('PUT', '/repos/alice/proj/collaborators/bob', { permission: 'write' }, alice);
    await ok('PUT', '/repos/alice/secret/collaborators/bob', { permission: 'write' }, alice);

    const bug = Number((await ok('POST', '/repos/alice/proj/labels', { name: 'bug', color: '#ee0701' }, alice)).id);
    v1 = Number((await ok('POST', '/repos/alice/proj/milestones', { title: 'v1.0', due_on: '2031-05-01T00:00:00Z' }, alice)).id);
    await ok('POST', '/repos/alice/proj/milestones', { title: 'Someday' }, alice);
    await ok('POST', '/repos/alice/secret/milestones', { title: 'Hidden plan' }, alice);
    const done = Number((await ok('POST', '/repos/bob/tools/milestones', { title: 'Tools 1', state: 'closed' }, bob)).id);
    await ok('POST', '/repos/bob/tools/milestones', { title: 'Tools 2' }, bob);

    // alice/proj: 1 assigned to bob, 2 by bob, 3 mentions bob, 4 closed; 5 and 6 pull requests
    await issue(alice, 'alice/proj', { title: 'Crash on start', labels: [bug], assignees: ['bob'], milestone: v1 });
    await issue(bob, 'alice/proj', { title: 'Docs typo' });
    await issue(alice, 'alice/proj', { title: 'Caching question', body: 'What do you think, @bob?' });
    const old = await issue(alice, 'alice/proj', { title: 'Old crash', milestone: v1 });
    await ok('PATCH', `/repos/alice/proj/issues/${old}`, { state: 'closed' }, alice);
    const asked = await pull('alice/proj', 'speedup', 'Speed up the start');
    await ok('POST', `/repos/alice/proj/pulls/${asked}/requested_reviewers`, { reviewers: ['bob'] }, alice);
    const talked = await pull('alice/proj', 'cleanup', 'Clean up');
    await ok('POST', `/repos/alice/proj/issues/${talked}/comments`, { body: 'Looks fine to me.' }, bob);
    // bob/tools: one issue of bob's, one closed in a closed milestone
    await issue(bob, 'bob/tools', { title: 'Tool crash' });
    const finished = await issue(bob, 'bob/tools', { title: 'Tools done', milestone: done });
    await ok('PATCH', `/repos/bob/tools/issues/${finished}`, { state: 'closed' }, bob);

    // alice/secret, while bob could read it: his own issue, an assignment, a mention, a review request
    await issue(bob, 'alice/secret', { title: 'Secret crash by bob' });
    await issue(alice, 'alice/secret', { title: 'Secret task', assignees: ['bob'], body: 'For @bob only' });
    const secretPull = await pull('alice/secret', 'hush', 'Secret change');
    await ok('POST', `/repos/alice/secret/pulls/${secretPull}/requested_reviewers`, { reviewers: ['bob'] }, alice);
    await ok('POST', `/repos/alice/secret/issues/${secretPull}/comments`, { body: 'Seen.' }, bob);
    await ok('DELETE', '/repos/alice/secret/collaborators/bob', undefined, alice);

    [a, b] = [await WebClient.signedIn(w, alice), await WebClient.signedIn(w, bob)];
  });
  after(async () => { await w?.stop(); });

  it('sends visitors to sign in', async () => {
    const anon = new WebClient(w);
    for (const p of ['issues?type=assigned', 'pulls', 'milestones']) {
      const res = await anon.get(p);
      expect(res.status, p).to.equal(303);
      expect(res.location).to.equal(`${w.server.rootUrl}user/login?redirect_to=${encodeURIComponent(`/${p}`)}`);
    }
  });

  it('shows each issue filter exactly its issues, with the totals of every filter', async () => {
    const yours = await b.get('issues');
    expect(yours.status).to.equal(200);
    expect(refs(yours.text)).to.deep.equal(['alice/proj#1', 'alice/proj#2', 'alice/proj#3', 'bob/tools#1']);
    expect(menu(yours.text)).to.deep.equal({ 'In your repositories': 4, 'Assigned to you': 1, 'Created by you': 2, 'Mentioning you': 1 });
    expect(states(yours.text)).to.deep.equal({ open: 4, closed: 2 });
    expect(refs((await b.get('issues?type=assigned')).text)).to.deep.equal(['alice/proj#1']);
    expect(refs((await b.get('issues?type=created_by')).text)).to.deep.equal(['alice/proj#2', 'bob/tools#1']);
    expect(refs((await b.get('issues?type=mentioned')).text)).to.deep.equal(['alice/proj#3']);
    // the review filters are for pull requests; asked of issues, the default applies
    expect(refs((await b.get('issues?type=review_requested')).text)).to.deep.equal(refs(yours.text));
    // each row: its state, repository and number, title, labels in their colours, author, milestone
    expect(yours.text).to.match(/class="overview-state tone-open" title="Open issue">/);
    expect(yours.text).to.include('href="/alice/proj/issues/1">Crash on start</a> <span class="tag issue-label lc-ee0701">bug</span>');
    expect(yours.text).to.include('.lc-ee0701{background:#ee0701;color:#000000}');
    expect(yours.text).to.match(/alice\/proj#1<\/a> opened <relative-time datetime="[^"]+"[^>]*>[^<]+<\/relative-time> by <a href="\/alice">alice<\/a>/);
    expect(yours.text).to.include(`class="overview-milestone" href="/alice/proj/issues?milestone=${v1}"`);
    expect(yours.text).to.match(/title="Assigned to bob"><img class="avatar"/);
  });

  it('toggles open and closed with their totals, and keeps the filter', async () => {
    const closed = await b.get('issues?state=closed');
    expect(refs(closed.text)).to.deep.equal(['alice/proj#4', 'bob/tools#2']);
    expect(closed.text).to.match(/class="overview-state tone-closed" title="Closed issue">/);
    expect(closed.text).to.match(/alice\/proj#4<\/a> closed <relative-time/);
    expect(states(closed.text)).to.deep.equal({ open: 4, closed: 2 });
    const createdClosed = await b.get('issues?type=created_by&state=closed');
    expect(refs(createdClosed.text)).to.deep.equal(['bob/tools#2']);
    expect(states(createdClosed.text)).to.deep.equal({ open: 2, closed: 1 });
    // the toggle links keep the filter
    expect(createdClosed.text).to.include('href="?type=created_by&amp;state=open"');
    expect(refs((await b.get('issues?type=assigned&state=closed')).text)).to.deep.equal([]);
  });

  it('narrows by keywords, in the titles, bodies and comments', async () => {
    const crash = await b.get('issues?q=crash');
    expect(refs(crash.text)).to.deep.equal(['alice/proj#1', 'bob/tools#1']);
    expect(states(crash.text)).to.deep.equal({ open: 2, closed: 1 });
    expect(crash.text).to.include('name="q" value="crash"');
    expect(refs((await b.get('issues?q=crash&state=closed')).text)).to.deep.equal(['alice/proj#4']);
    expect(refs((await b.get('issues?q=think')).text)).to.deep.equal(['alice/proj#3']);
    expect(refs((await b.get('issues?q=nothing-like-this')).text)).to.deep.equal([]);
  });

  it('shows each pull request filter its pull requests, review requested and reviewed among them', async () => {
    const yours = await b.get('pulls');
    expect(refs(yours.text)).to.deep.equal(['alice/proj#5', 'alice/proj#6']);
    expect(menu(yours.text)).to.deep.equal({
      'In your repositories': 2, 'Assigned to you': 0, 'Created by you': 0, 'Mentioning you': 0, 'Review requested': 1, 'Reviewed by you': 1,
    });
    expect(yours.text).to.match(/class="overview-state tone-open" title="Open pull request">/);
    expect(yours.text).to.include('href="/alice/proj/pulls/5">Speed up the start</a>');
    expect(refs((await b.get('pulls?type=review_requested')).text)).to.deep.equal(['alice/proj#5']);
    expect(refs((await b.get('pulls?type=reviewed_by')).text)).to.deep.equal(['alice/proj#6']);
    // the API's search answers the same, from the same service
    const api = async (q: string) => ((await w.raw('GET', `/repos/issues/search?type=pulls&${q}`, undefined, { token: bob.token })).body as { number: number; repository: { full_name: string } }[])
      .map((i) => `${i.repository.full_name}#${i.number}`);
    expect(await api('review_requested=true')).to.deep.equal(['alice/proj#5']);
    expect(await api('reviewed=true')).to.deep.equal(['alice/proj#6']);
    // alice opened both: nobody asked her to review, and her own pull requests are not "reviewed by" her
    const mine = await a.get('pulls?type=created_by');
    expect(refs(mine.text)).to.deep.equal(['alice/proj#5', 'alice/proj#6', 'alice/secret#3']);
    expect(menu(mine.text)['Review requested']).to.equal(0);
    expect(menu(mine.text)['Reviewed by you']).to.equal(0);
    // issues and pull requests stay apart
    expect(refs((await a.get('issues?type=created_by')).text)).to.not.include('alice/proj#5');
  });

  it('never shows the private repository bob can no longer read, but shows it to its owner', async () => {
    for (const p of ['issues', 'issues?type=assigned', 'issues?type=created_by', 'issues?type=mentioned', 'issues?state=closed',
      'pulls', 'pulls?type=review_requested', 'pulls?type=reviewed_by', 'issues?q=secret', 'milestones', 'milestones?state=closed']) {
      const page = await b.get(p);
      expect(page.status, p).to.equal(200);
      expect(page.text, p).to.not.match(/alice\/secret|Secret|Hidden plan/);
    }
    const owner = await a.get('issues');
    expect(refs(owner.text)).to.include.members(['alice/secret#1', 'alice/secret#2']);
    expect(refs((await a.get('pulls')).text)).to.include('alice/secret#3');
  });

  it('shows the milestones of the user\'s repositories with their progress, by state and by repository', async () => {
    const open = await b.get('milestones');
    expect(open.status).to.equal(200);
    expect(milestones(open.text)).to.deep.equal(['Someday', 'Tools 2', 'v1.0']);
    expect(states(open.text)).to.deep.equal({ open: 3, closed: 1 });
    // closest due date first, milestones without one after it
    expect(open.text.indexOf('> v1.0</a>')).to.be.greaterThan(0).and.lessThan(open.text.indexOf('> Someday</a>'));
    // v1.0: one of its two issues closed, due on its date, linked to its issues
    expect(open.text).to.include(`class="overview-milestone-title" href="/alice/proj/issues?milestone=${v1}">`);
    expect(open.text).to.include('<progress class="overview-progress" max="100" value="50" aria-label="v1.0: 50% complete">');
    expect(open.text).to.match(/Due <relative-time datetime="2031-05-01T/);
    expect(open.text).to.include(`href="/alice/proj/issues?milestone=${v1}">`).and.match(/ 1 open<\/a>/).and.match(/ 1 closed<\/a>/);
    expect(menu(open.text)).to.deep.equal({ 'All repositories': 3, 'alice/proj': 2, 'bob/tools': 1 });

    const closed = await b.get('milestones?state=closed');
    expect(milestones(closed.text)).to.deep.equal(['Tools 1']);
    expect(closed.text).to.include('value="100" aria-label="Tools 1: 100% complete"').and.include('Closed <relative-time');

    const tools = await b.get(`milestones?repos=${encodeURIComponent(`[${toolsId}]`)}`);
    expect(milestones(tools.text)).to.deep.equal(['Tools 2']);
    expect(states(tools.text)).to.deep.equal({ open: 1, closed: 1 });
    expect(tools.text).to.match(/class="overview-filter active" href="[^"]*" title="bob\/tools" aria-current="true">/);
    expect(milestones((await b.get('milestones?q=TOOL')).text)).to.deep.equal(['Tools 2']);
    // a repository id bob cannot read is ignored, as Gitea ignores it
    const secretId = Number((await ok('GET', '/repos/alice/secret', undefined, alice)).id);
    expect(milestones((await b.get(`milestones?repos=${encodeURIComponent(`[${secretId}]`)}`)).text)).to.deep.equal(['Someday', 'Tools 2', 'v1.0']);
    expect(milestones((await a.get('milestones')).text)).to.deep.equal(['Hidden plan', 'Someday', 'v1.0']);
  });

  it('pages long lists and keeps the filter in the pager', async () => {
    const carol = await w.user('carol');
    await apiRepo(w, carol, 'many');
    for (let n = 1; n <= 21; n++) await issue(carol, 'carol/many', { title: `Chore ${n}` });
    const c = await WebClient.signedIn(w, carol);
    const first = await c.get('issues?type=created_by&sort=oldest');
    expect(refs(first.text)).to.have.length(20);
    expect(first.text).to.include('Page 1 of 2').and.include('href="?type=created_by&amp;state=open&amp;sort=oldest&amp;page=2"');
    expect(first.text.indexOf('>Chore 1</a>')).to.be.lessThan(first.text.indexOf('>Chore 2</a>'));
    const second = await c.get('issues?type=created_by&sort=oldest&page=2');
    expect(refs(second.text)).to.deep.equal(['carol/many#21']);
  });
});
