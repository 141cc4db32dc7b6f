/**
 * Issue pages against the real server through its forms: the list and its filters, the template
 * chooser (and no blank issue when the config disables it), a new issue from a template (title, body
 * and labels), comments with a Preview that commits nothing, close and reopen, pin and unpin with
 * their timeline entries, and the stopwatch's separate Start and Stop; readers are refused the
 * writers' actions and nothing changes; what users wrote comes back escaped or sanitized.
 */
import { expect } from 'chai';
import { startWorld, type World, type TestUser } from '../helpers/world';
import { apiRepo } from '../helpers/refs';
import { WebClient } from '../helpers/web';

const BUG = '---\nname: Bug report\nabout: Something is broken\ntitle: "[bug] "\nlabels: [bug]\n---\n## What happened?\n';

describe('issue pages', () => {
  let w: World;
  let alice: TestUser;
  let bob: TestUser;
  let a: WebClient;
  let b: WebClient;
  const api = (method: string, p: string, body?: unknown, u: TestUser = alice) => w.raw(method, `/repos/alice/proj${p}`, body, { token: u.token });
  const put = (file: string, content: string) => api('POST', `/contents/${file}`, { content: Buffer.from(content).toString('base64') });

  before(async () => {
    w = await startWorld();
    [alice, bob] = [await w.user('alice'), await w.user('bob')];
    await apiRepo(w, alice, 'proj');
    await api('POST', '/labels', { name: 'bug', color: '#ee0701' });
    await put('.gitea/ISSUE_TEMPLATE/bug.md', BUG);
    a = await WebClient.signedIn(w, alice);
    b = await WebClient.signedIn(w, bob);
  });
  after(async () => { await w?.stop(); });

  it('offers the templates and a blank issue, and opens an issue from a template with its labels', async () => {
    const choose = await a.get('alice/proj/issues/new');
    expect(choose.status).to.equal(200);
    expect(choose.text).to.include('Bug report').and.include('Open a blank issue');
    const form = await a.get('alice/proj/issues/new?template=.gitea%2FISSUE_TEMPLATE%2Fbug.md');
    expect(form.text).to.include('value="[bug] "').and.include('## What happened?');
    const preview = await a.form('alice/proj/issues/new', { title: '[bug] crash', content: '## What happened?\n\n<script>x</script>\n\n**boom**', template: '.gitea/ISSUE_TEMPLATE/bug.md', action: 'preview' });
    expect(preview.text).to.include('<h2 id="user-content-what-happened">What happened?</h2>').and.include('<strong>boom</strong>').and.not.include('<script>x');
    expect((await api('GET', '/issues?state=all')).body).to.have.length(0);
    const made = await a.form('alice/proj/issues/new', { title: '[bug] crash', content: 'It <b>crashed</b>', template: '.gitea/ISSUE_TEMPLATE/bug.md', action: 'create' });
    expect(made.status, made.text).to.equal(303);
    expect(made.location).to.equal('/alice/proj/issues/1');
    const issue = (await api('GET', '/issues/1')).body;
    expect(issue.title).to.equal('[bug] crash');
    expect(issue.labels.map((l: { name: string }) => l.name)).to.deep.equal(['bug']);
    const page = await a.get('alice/proj/issues/1');
    expect(page.text).to.include('[bug] crash').and.include('It <b>crashed</b>');
  });

  it('hides the blank issue when the config disables it, and refuses one posted anyway', async () => {
    await put('.gitea/ISSUE_TEMPLATE/config.yaml', 'blank_issues_enabled: false\n');
    const choose = await a.get('alice/proj/issues/new?template=');
    expect(choose.text).to.include('Bug report').and.not.include('Open a blank issue');
    const res = await a.form('alice/proj/issues/new', { title: 'blank', content: 'x', template: '', action: 'create' });
    expect(res.status).to.equal(422);
    expect((await api('GET', '/issues?state=all')).body).to.have.length(1);
  });

  it('reads the seed\'s .gitea/issue_config.yaml: its contact links on the chooser, no blank issue', async () => {
    await apiRepo(w, alice, 'seeded');
    const cfg = 'blank_issues_enabled: false\ncontact_links:\n  - name: Team chat\n    url: https://chat.example.com/forge\n    about: Ask <b>here</b> first\n';
    const res = await w.raw('POST', '/repos/alice/seeded/contents/.gitea%2Fissue_config.yaml', { content: Buffer.from(cfg).toString('base64') }, { token: alice.token });
    expect(res.status, res.text).to.equal(201);
    const choose = await a.get('alice/seeded/issues/new');
    expect(choose.text).to.include('Team chat').and.include('href="https://chat.example.com/forge"').and.include('Ask &lt;b&gt;here&lt;/b&gt; first')
      .and.not.include('Open a blank issue');
    const blank = await a.form('alice/seeded/issues/new', { title: 'blank', content: 'x', template: '', action: 'create' });
    expect(blank.status).to.equal(422);
    expect((await w.raw('GET', '/repos/alice/seeded/issues?state=all', undefined, { token: alice.token })).body).to.have.length(0);
  });

  it('lists issues with state and keyword filters, titles escaped', async () => {
    await api('POST', '/issues', { title: 'Second <img src=x onerror=alert(1)>' });
    await api('POST', '/issues', { title: 'Third, closed', closed: true });
    const open = await a.get('alice/proj/issues');
    expect(open.text).to.include('2 issues').and.include('Second &lt;img src=x onerror=alert(1)&gt;').and.not.include('Third, closed');
    expect((await a.get('alice/proj/issues?state=closed')).text).to.include('Third, closed').and.include('1 issues');
    expect((await a.get('alice/proj/issues?state=all&q=Second')).text).to.include('1 issues');
  });

  it('comments with a preview first, then closes and reopens with the timeline showing it', async () => {
    const page = await a.get('alice/proj/issues/1');
    expect(page.status).to.equal(200);
    const preview = await a.form('alice/proj/issues/1/comments', { content: 'see #2', action: 'preview' });
    expect(preview.text).to.include('href="http://127.0.0.1');
    expect(preview.text).to.include('/alice/proj/issues/2" class="ref-issue"');
    expect((await api('GET', '/issues/1/comments')).body).to.have.length(0);
    expect((await a.form('alice/proj/issues/1/comments', { content: 'see #2', action: 'comment' })).status).to.equal(303);
    expect((await a.form('alice/proj/issues/1/comments', { content: '', action: 'close' })).status).to.equal(303);
    expect((await api('GET', '/issues/1')).body.state).to.equal('closed');
    const closed = await a.get('alice/proj/issues/1');
    expect(closed.text).to.include('closed this issue').and.include('Reopen issue');
    expect((await a.form('alice/proj/issues/1/comments', { content: '', action: 'reopen' })).status).to.equal(303);
    expect((await api('GET', '/issues/1')).body.state).to.equal('open');
    expect((await a.form('alice/proj/issues/1/comments', { content: '   ', action: 'comment' })).status).to.equal(422);
  });

  it('pins and unpins (writers only), with timeline entries', async () => {
    await a.get('alice/proj/issues/1');
    expect((await a.form('alice/proj/issues/1/pin', {})).status).to.equal(303);
    expect((await api('GET', '/issues/1')).body.pin_order).to.be.greaterThan(0);
    const pinned = await a.get('alice/proj/issues/1');
    expect(pinned.text).to.include('pinned this issue').and.include('>Unpin</button>');
    await b.get('alice/proj/issues/1');
    expect((await b.form('alice/proj/issues/1/unpin', {})).status).to.equal(403);
    expect((await api('GET', '/issues/1')).body.pin_order).to.be.greaterThan(0);
    expect((await a.form('alice/proj/issues/1/unpin', {})).status).to.equal(303);
    expect((await a.get('alice/proj/issues/1')).text).to.include('unpinned this issue');
    expect((await api('GET', '/issues/1')).body.pin_order).to.equal(0);
  });

  it('starts and stops the stopwatch with two actions, recording the time', async () => {
    const page = await a.get('alice/proj/issues/1');
    expect(page.text).to.include('class="stopwatch-start"').and.not.include('class="stopwatch-stop"');
    expect((await a.form('alice/proj/issues/1/stopwatch/start', {})).status).to.equal(303);
    const running = await a.get('alice/proj/issues/1');
    expect(running.text).to.include('class="stopwatch-stop"').and.not.include('class="stopwatch-start"');
    expect((await w.raw('GET', '/user/stopwatches', undefined, { token: alice.token })).body).to.have.length(1);
    // why: Start again is no toggle: a running stopwatch is a conflict, and it keeps running.
    expect((await a.form('alice/proj/issues/1/stopwatch/start', {})).status).to.equal(409);
    expect((await w.raw('GET', '/user/stopwatches', undefined, { token: alice.token })).body).to.have.length(1);
    expect((await a.form('alice/proj/issues/1/stopwatch/stop', {})).status).to.equal(303);
    expect((await w.raw('GET', '/user/stopwatches', undefined, { token: alice.token })).body).to.have.length(0);
    expect((await api('GET', '/issues/1/times')).body).to.have.length(1);
    expect((await a.form('alice/proj/issues/1/stopwatch/stop', {})).status).to.be.oneOf([404, 409]);
  });

  it('refuses forms without a CSRF token and changes nothing', async () => {
    const before = (await api('GET', '/issues?state=all')).body.length;
    expect((await a.form('alice/proj/issues/new', { title: 'forged', content: '', action: 'create' }, { csrf: null })).status).to.equal(403);
    expect((await a.form('alice/proj/issues/1/pin', {}, { origin: 'https://evil.example' })).status).to.equal(403);
    expect((await api('GET', '/issues?state=all')).body.length).to.equal(before);
    expect((await api('GET', '/issues/1')).body.pin_order).to.equal(0);
  });

  it('filters the list by label and milestone, and its tabs and pager keep the filters', async () => {
    const bug = (await api('GET', '/labels')).body.find((l: { name: string }) => l.name === 'bug').id as number;
    const ms = (await api('POST', '/milestones', { title: 'v2 <b>' })).body.id as number;
    await api('POST', '/issues', { title: 'In the milestone', milestone: ms });
    for (let n = 0; n < 21; n++) await api('POST', '/issues', { title: `Bug ${n}`, labels: [bug] });
    const byLabel = await a.get(`alice/proj/issues?labels=${bug}`);
    expect(byLabel.text).to.include('22 issues').and.not.include('In the milestone');
    expect(byLabel.text).to.include(`href="?state=open&amp;labels=${bug}&amp;page=2"`);
    expect(byLabel.text).to.include(`href="/alice/proj/issues?state=closed&amp;labels=${bug}"`);
    expect(byLabel.text).to.include(`<option value="${bug}" selected>bug</option>`).and.include('v2 &lt;b&gt;');
    expect((await a.get(`alice/proj/issues?labels=${bug}&page=2`)).text).to.include('Bug 0').and.include('Page 2 of 2');
    const byMilestone = await a.get(`alice/proj/issues?milestone=${ms}`);
    expect(byMilestone.text).to.include('1 issues').and.include('In the milestone');
    expect((await a.get(`alice/proj/issues?labels=${bug}&milestone=${ms}`)).text).to.include('0 issues');
  });
});
