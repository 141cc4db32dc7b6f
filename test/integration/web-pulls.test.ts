/**
 * Pull request pages against the real server through their forms: open a pull request, the
 * conversation with the merge box (the allowed styles; why a merge is blocked, from the branch
 * protection rule), a review request, the files changed with a comment on a line, an approval that
 * unblocks the merge, and the merge itself; a reader is refused and nothing changes.
 */
import { expect } from 'chai';
import { startWorld, type World, type TestUser } from '../helpers/world';
import { apiRepo, waitFor } from '../helpers/refs';
import { WebClient } from '../helpers/web';

describe('pull request pages', () => {
  let w: World;
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;
  let a: WebClient;
  let b: WebClient;
  const api = (method: string, p: string, body?: unknown, u: TestUser = alice) => w.raw(method, `/repos/alice/proj${p}`, body, { token: u.token });

  before(async () => {
    w = await startWorld();
    [alice, bob, carol] = [await w.user('alice'), await w.user('bob'), await w.user('carol')];
    await apiRepo(w, alice, 'proj');
    await api('PUT', '/collaborators/bob', { permission: 'write' });
    const change = await api('POST', '/contents/src/feature.txt', { content: Buffer.from('line one\nline two\n').toString('base64'), new_branch: 'topic', message: 'Add the feature' });
    expect(change.status, change.text).to.equal(201);
    await api('POST', '/branch_protections', { rule_name: 'main', required_approvals: 1, enable_push: true });
    [a, b] = [new WebClient(w), new WebClient(w)];
    await a.signIn('alice', alice.password);
    await b.signIn('bob', bob.password);
  });
  after(async () => { await w?.stop(); });

  it('opens a pull request from the form; a bad head is refused and nothing is made', async () => {
    const newPage = await a.get('alice/proj/pulls/new?head=topic');
    expect(newPage.location).to.equal('/alice/proj/compare/main...topic');
    const cmp = await a.get('alice/proj/compare/main...topic');
    expect(cmp.status).to.equal(200);
    expect(cmp.text).to.include('class="new-pull-form"').and.include('name="head" value="topic"');
    const bad = await a.form('alice/proj/pulls/new', { base: 'main', head: 'nope', title: 'x', content: '' });
    expect(bad.status).to.equal(404);
    expect((await api('GET', '/pulls?state=all')).body).to.have.length(0);
    const made = await a.form('alice/proj/pulls/new', { base: 'main', head: 'topic', title: 'Add the <feature>', content: 'Please **review**' });
    expect(made.status, made.text).to.equal(303);
    expect(made.location).to.equal('/alice/proj/pulls/1');
    await waitFor('the pull request checked', async () => (await api('GET', '/pulls/1')).body.mergeable === true);
    const list = await a.get('alice/proj/pulls');
    expect(list.text).to.include('Add the &lt;feature&gt;').and.include('1 pull requests');
  });

  it('offers the allowed styles and says why the merge is blocked; a merge posted anyway changes nothing', async () => {
    const page = await a.get('alice/proj/pulls/1');
    expect(page.status).to.equal(200);
    expect(page.text).to.include('<strong>review</strong>');
    expect(page.text).to.match(/class="merge-blocked">.*Does not have enough approvals/);
    // the head's commit statuses show with their state; a target that is not http(s) is not linked
    const sha = (await api('GET', '/pulls/1')).body.head.sha;
    expect((await api('POST', `/statuses/${sha}`, { state: 'pending', context: 'ci/build', description: 'Building', target_url: 'javascript:alert(1)' })).status).to.equal(201);
    const pending = await a.get('alice/proj/pulls/1');
    expect(pending.text).to.include('Some checks have not finished yet').and.include('<strong>ci/build</strong>').and.not.include('javascript:alert');
    expect((await api('POST', `/statuses/${sha}`, { state: 'success', context: 'ci/build', description: 'Built', target_url: 'https://ci.example.com/1' })).status).to.equal(201);
    expect((await a.get('alice/proj/pulls/1')).text).to.include('All checks have passed').and.include('href="https://ci.example.com/1"');
    const forced = await a.form('alice/proj/pulls/1/merge', { style: 'merge' });
    expect(forced.status).to.equal(303);
    expect((await a.get('alice/proj/pulls/1')).text).to.include('Does not have enough approvals');
    expect((await api('GET', '/pulls/1')).body.merged).to.equal(false);
  });

  it('requests a review, takes a comment on a line and an approval, then merges with the chosen style', async () => {
    await a.get('alice/proj/pulls/1');
    expect((await a.form('alice/proj/pulls/1/requested_reviewers', { reviewer: 'bob' })).status).to.equal(303);
    expect((await api('GET', '/pulls/1')).body.requested_reviewers.map((u: { login: string }) => u.login)).to.deep.equal(['bob']);
    expect((await a.get('alice/proj/pulls/1')).text).to.include('requested a review from bob');

    const files = await b.get('alice/proj/pulls/1/files');
    expect(files.text).to.include('src/feature.txt <span class="badge">Added</span>').and.include('<code>+line two</code>');
    expect(files.text).to.include('<td class="num n">2</td><td class="line"><code>+line two</code>');
    // a comment on line 2 alone; it shows under that line with its reply and resolve controls
    expect((await b.form('alice/proj/pulls/1/files/reviews/comments', { path: 'src/feature.txt', side: 'R', line: '2', content: 'Why two lines?' })).status).to.equal(303);
    const withThread = await b.get('alice/proj/pulls/1/files');
    expect(withThread.text).to.include('The comment is added.');
    expect(withThread.text).to.match(/<td class="num n">2<\/td><td class="line"><code>\+line two<\/code><\/td><\/tr><tr class="thread-row"><td colspan="3"><div class="thread" id="thread-\d+"/);
    expect(withThread.text).to.include('<p>Why two lines?</p>');
    // why: the review request is listed as a review too (state REQUEST_REVIEW), as in Gitea.
    const reviews = (await api('GET', '/pulls/1/reviews')).body as { id: number; state: string }[];
    const comment = reviews.find((r) => r.state === 'COMMENT')!;
    const lineComments = (await api('GET', `/pulls/1/reviews/${comment.id}/comments`)).body;
    expect(lineComments[0]).to.deep.include({ path: 'src/feature.txt', body: 'Why two lines?', position: 2 });
    const first = lineComments[0].id as number;
    // a bad line is refused and adds nothing
    const bad = await b.form('alice/proj/pulls/1/files/reviews/comments', { path: 'src/feature.txt', side: 'R', line: 'x', content: 'no' });
    expect(bad.status).to.equal(303);
    expect((await b.get('alice/proj/pulls/1/files')).text).to.include('a line comment needs the number of a line of the diff');
    // alice answers in the thread and resolves it; carol, a reader, may reply but not resolve
    await a.get('alice/proj/pulls/1/files');
    expect((await a.form('alice/proj/pulls/1/files/reviews/comments', { reply: String(first), content: 'So it reads <b>well</b>' })).status).to.equal(303);
    expect((await api('GET', `/pulls/1/reviews/${comment.id}/comments`)).body.map((c: { body: string }) => c.body)).to.deep.equal(['Why two lines?', 'So it reads <b>well</b>']);
    const c = await WebClient.signedIn(w, carol);
    const asReader = await c.get('alice/proj/pulls/1/files');
    expect(asReader.text).to.include('class="reply-form"').and.not.include('class="resolve-form"');
    expect((await c.form(`alice/proj/pulls/1/conversations/${first}`, { action: 'resolve' })).status).to.equal(303);
    expect((await api('GET', `/pulls/1/reviews/${comment.id}/comments`)).body[0].resolver).to.equal(null);
    expect((await a.form(`alice/proj/pulls/1/conversations/${first}`, { action: 'resolve' })).status).to.equal(303);
    expect((await api('GET', `/pulls/1/reviews/${comment.id}/comments`)).body[0].resolver.login).to.equal('alice');
    const resolved = await a.get('alice/proj/pulls/1');
    expect(resolved.text).to.include('<strong>alice</strong> marked this conversation as resolved.').and.include('So it reads <b>well</b>');
    expect(resolved.text).to.include('name="action" value="unresolve"');
    // a pending review collects a comment nobody else sees until it is submitted as an approval
    await b.get('alice/proj/pulls/1/files');
    expect((await b.form('alice/proj/pulls/1/files/reviews/comments', { path: 'src/feature.txt', side: 'R', line: '1', content: 'Pending note', pending: '1' })).status).to.equal(303);
    expect((await a.get('alice/proj/pulls/1/files')).text).to.not.include('Pending note');
    expect((await b.get('alice/proj/pulls/1/files')).text).to.include('Pending note').and.include('Add review comment');
    expect((await b.form('alice/proj/pulls/1/reviews', { content: 'Looks good', event: 'APPROVED' })).status).to.equal(303);
    expect((await a.get('alice/proj/pulls/1/files')).text).to.include('Pending note');
    const conversation = await a.get('alice/proj/pulls/1');
    expect(conversation.text).to.include('approved these changes').and.include('class="reviewer review-approved"');
    const ready = await a.get('alice/proj/pulls/1');
    expect(ready.text).to.include('This pull request can be merged.');
    for (const s of ['merge', 'rebase', 'squash']) expect(ready.text).to.include(`name="style" value="${s}"`);
    // why: carol can read the repository but not write it.
    await c.get('alice/proj/pulls/1');
    await c.form('alice/proj/pulls/1/merge', { style: 'squash' });
    expect((await api('GET', '/pulls/1', undefined, carol)).body.merged).to.equal(false);
    const merged = await a.form('alice/proj/pulls/1/merge', { style: 'squash' });
    expect(merged.status).to.equal(303);
    const after = await api('GET', '/pulls/1');
    expect(after.body.merged).to.equal(true);
    const log = await api('GET', '/commits?limit=1');
    expect(log.body[0].parents).to.have.length(1);
    const done = await a.get('alice/proj/pulls/1');
    expect(done.text).to.include('Pull request successfully merged.').and.include('merged this pull request').and.include('class="state-label merged"');
    expect(done.text).to.not.include('wants to merge');
  });

  it('shows the week\'s activity: the merged pull request and the commits by author', async () => {
    const page = await a.get('alice/proj/activity');
    expect(page.status).to.equal(200);
    expect(page.text).to.match(/<strong>1<\/strong> merged pull request<br>/);
    expect(page.text).to.include('href="/alice/proj/pulls/1">Add the &lt;feature&gt;</a>');
    expect(page.text).to.match(/Commits by author<\/h3>\s*<ul class="list authors"><li><span><strong>[^<]+<\/strong>/);
    expect((await a.get('alice/proj/activity/monthly')).status).to.equal(200);
    expect((await a.get('alice/proj/activity/yearly-ish')).status).to.equal(404);
  });
});
