/**
 * The sidebar of issue and pull request pages and the reactions, through their forms on the real
 * server: labels, milestone, assignees and dependencies set by a writer (the API agrees), refused
 * for a reader and for bad input with the reason shown and nothing changed; reactions added and
 * removed on an issue and a comment, a content outside `[ui] REACTIONS` refused.
 */
import { expect } from 'chai';
import { startWorld, type World, type TestUser } from '../helpers/world';
import { apiRepo } from '../helpers/refs';
import { WebClient } from '../helpers/web';

describe('issue page sidebar and reactions', () => {
  let w: World;
  let alice: TestUser;
  let bob: TestUser;
  let a: WebClient;
  let b: WebClient;
  let bugId: number;
  let docsId: number;
  let milestoneId: number;
  const api = (method: string, p: string, body?: unknown, u: TestUser = alice) => w.raw(method, `/repos/alice/proj${p}`, body, { token: u.token });
  const labelsOf = async (n: number) => ((await api('GET', `/issues/${n}`)).body.labels as { name: string }[]).map((l) => l.name).sort();

  before(async () => {
    w = await startWorld();
    [alice, bob] = [await w.user('alice'), await w.user('bob')];
    await apiRepo(w, alice, 'proj');
    bugId = (await api('POST', '/labels', { name: 'bug', color: '#ee0701' })).body.id;
    docsId = (await api('POST', '/labels', { name: 'docs <i>', color: '#0000ee' })).body.id;
    milestoneId = (await api('POST', '/milestones', { title: 'v1 <b>' })).body.id;
    for (const title of ['first', 'second', 'third']) await api('POST', '/issues', { title });
    a = await WebClient.signedIn(w, alice);
    b = await WebClient.signedIn(w, bob);
  });
  after(async () => { await w?.stop(); });

  it('sets labels, milestone and assignees through the sidebar, names escaped', async () => {
    const page = await a.get('alice/proj/issues/1');
    expect(page.text).to.include(`name="label-${docsId}"`).and.include('docs &lt;i&gt;').and.include('v1 &lt;b&gt;').and.include('name="assignee-alice"');
    expect((await a.form('alice/proj/issues/1/labels', { [`label-${bugId}`]: 'on', [`label-${docsId}`]: 'on' })).location).to.equal('/alice/proj/issues/1');
    expect(await labelsOf(1)).to.deep.equal(['bug', 'docs <i>']);
    await a.form('alice/proj/issues/1/labels', { [`label-${docsId}`]: 'on' });
    expect(await labelsOf(1)).to.deep.equal(['docs <i>']);
    await a.form('alice/proj/issues/1/milestone', { milestone: String(milestoneId) });
    expect((await api('GET', '/issues/1')).body.milestone.id).to.equal(milestoneId);
    await a.form('alice/proj/issues/1/assignees', { 'assignee-alice': 'on' });
    expect((await api('GET', '/issues/1')).body.assignees.map((u: { login: string }) => u.login)).to.deep.equal(['alice']);
    const shown = await a.get('alice/proj/issues/1');
    expect(shown.text).to.match(new RegExp(`name="label-${docsId}" checked`)).and.match(/<option value="\d+" selected>v1 &lt;b&gt;<\/option>/);
    expect(shown.text).to.include('added the label').and.include('added this to the milestone');
  });

  it('refuses a reader and an unknown assignee, and changes nothing', async () => {
    const page = await b.get('alice/proj/issues/1');
    expect(page.text).not.to.include('name="label-').and.not.include('action="/alice/proj/issues/1/milestone"');
    await b.form('alice/proj/issues/1/labels', { [`label-${bugId}`]: 'on' });
    await b.form('alice/proj/issues/1/milestone', { milestone: '0' });
    expect(await labelsOf(1)).to.deep.equal(['docs <i>']);
    expect((await api('GET', '/issues/1')).body.milestone.id).to.equal(milestoneId);
    expect((await b.get('alice/proj/issues/1')).text).to.match(/class="flash error"/);
    await a.form('alice/proj/issues/1/assignees', { 'assignee-nobody': 'on' });
    expect((await a.get('alice/proj/issues/1')).text).to.match(/class="flash error" role="status">[^<]*Assignee does not exist: \[name: nobody\]/);
    expect((await api('GET', '/issues/1')).body.assignees.map((u: { login: string }) => u.login)).to.deep.equal(['alice']);
    // why: a label of another repository is not usable here and is skipped, as the API skips it.
    await apiRepo(w, alice, 'other');
    const foreign = (await w.raw('POST', '/repos/alice/other/labels', { name: 'foreign', color: '#000000' }, { token: alice.token })).body.id;
    await a.form('alice/proj/issues/1/labels', { [`label-${foreign}`]: 'on', [`label-${docsId}`]: 'on' });
    expect(await labelsOf(1)).to.deep.equal(['docs <i>']);
  });

  it('adds and removes dependencies, refusing a cycle, a missing issue and a bad reference', async () => {
    expect((await a.form('alice/proj/issues/1/dependencies', { side: 'blockers', issue: '#2', action: 'add' })).status).to.equal(303);
    expect((await api('GET', '/issues/1/dependencies')).body.map((i: { number: number }) => i.number)).to.deep.equal([2]);
    const page = await a.get('alice/proj/issues/1');
    expect(page.text).to.match(/class="dependencies dependencies-blockers">\s*<li><a href="[^"]*\/alice\/proj\/issues\/2">alice\/proj#2<\/a> second/);
    expect((await a.get('alice/proj/issues/2')).text).to.match(/dependencies-blocked">\s*<li><a [^>]*>alice\/proj#1<\/a>/);
    for (const [issue, words] of [['#1', 'circular'], ['#99', 'does not exist'], ['nonsense', 'write the issue as']] as const) {
      await a.form('alice/proj/issues/2/dependencies', { side: 'blockers', issue, action: 'add' });
      expect((await a.get('alice/proj/issues/2')).text, issue).to.include(words);
    }
    expect((await api('GET', '/issues/2/dependencies')).body).to.have.length(0);
    await a.form('alice/proj/issues/3/dependencies', { side: 'blocked', issue: 'alice/proj#1', action: 'add' });
    expect((await api('GET', '/issues/1/dependencies')).body.map((i: { number: number }) => i.number).sort()).to.deep.equal([2, 3]);
    await a.form('alice/proj/issues/1/dependencies', { side: 'blockers', issue: 'alice/proj#2', action: 'remove' });
    expect((await api('GET', '/issues/1/dependencies')).body.map((i: { number: number }) => i.number)).to.deep.equal([3]);
    await b.get('alice/proj/issues/1');
    await b.form('alice/proj/issues/1/dependencies', { side: 'blockers', issue: '#3', action: 'remove' });
    expect((await api('GET', '/issues/1/dependencies')).body).to.have.length(1);
  });

  it('adds and removes reactions on the issue and a comment; refuses one outside the allowed set', async () => {
    const comment = (await api('POST', '/issues/1/comments', { body: 'a comment' })).body.id as number;
    await b.get('alice/proj/issues/1');
    expect((await b.form('alice/proj/issues/1/reactions', { content: '+1', comment: '', action: 'add' })).status).to.equal(303);
    await b.form('alice/proj/issues/1/reactions', { content: 'heart', comment: String(comment), action: 'add' });
    await a.form('alice/proj/issues/1/reactions', { content: '+1', comment: '', action: 'add' });
    expect((await api('GET', '/issues/1/reactions')).body.map((r: { user: { login: string } }) => r.user.login)).to.deep.equal(['bob', 'alice']);
    expect((await api('GET', `/issues/comments/${comment}/reactions`)).body.map((r: { content: string }) => r.content)).to.deep.equal(['heart']);
    const page = await b.get('alice/proj/issues/1');
    expect(page.text).to.match(/value="remove" class="reaction mine" title="bob, alice">\+1 2</).and.match(/value="remove" class="reaction mine" title="bob">heart 1</);
    await b.form('alice/proj/issues/1/reactions', { content: '+1', comment: '', action: 'remove' });
    expect((await api('GET', '/issues/1/reactions')).body.map((r: { user: { login: string } }) => r.user.login)).to.deep.equal(['alice']);
    await b.form('alice/proj/issues/1/reactions', { content: '<script>', comment: '', action: 'add' });
    expect((await b.get('alice/proj/issues/1')).text).to.include('&#39;&lt;script&gt;&#39; is not an allowed reaction');
    expect((await api('GET', '/issues/1/reactions')).body).to.have.length(1);
  });

  it('shows the same sidebar on a pull request page, and /issues/N of a pull request leads there', async () => {
    await api('POST', '/branches', { new_branch_name: 'feature' });
    await api('POST', '/contents/f.txt', { content: Buffer.from('x').toString('base64'), branch: 'feature' });
    const pr = (await api('POST', '/pulls', { title: 'a change', head: 'feature', base: 'main' })).body.number as number;
    expect((await a.get(`alice/proj/issues/${pr}`)).location).to.equal(`/alice/proj/pulls/${pr}`);
    const page = await a.get(`alice/proj/pulls/${pr}`);
    expect(page.text).to.include(`action="/alice/proj/issues/${pr}/labels"`).and.include('class="reactions"');
    expect((await a.form(`alice/proj/issues/${pr}/labels`, { [`label-${bugId}`]: 'on' })).location).to.equal(`/alice/proj/pulls/${pr}`);
    expect(await labelsOf(pr)).to.deep.equal(['bug']);
  });

  it('refuses sidebar forms without the CSRF token', async () => {
    await a.get('alice/proj/issues/2');
    expect((await a.form('alice/proj/issues/2/labels', { [`label-${bugId}`]: 'on' }, { csrf: null })).status).to.equal(403);
    expect((await a.form('alice/proj/issues/2/reactions', { content: '+1', comment: '' }, { origin: 'https://evil.example' })).status).to.equal(403);
    expect(await labelsOf(2)).to.deep.equal([]);
    expect((await api('GET', '/issues/2/reactions')).body ?? []).to.have.length(0);
  });
});
