/**
 * The dashboard and the notifications page against the real server: the signed-in user's feed
 * (a commit made through the API shows as a push with its commits, an issue opened as a sentence
 * with links, titles and messages escaped, paged), its repositories beside it, and no event of a
 * private repository the user can no longer read; the notification threads on their Unread and Read
 * tabs, marked read, unread and pinned, all read at once, as the API then shows them; another user's
 * thread, a form without the CSRF token and an anonymous visitor change nothing.
 */
import { expect } from 'chai';
import { startWorld, type World, type TestUser } from '../helpers/world';
import { apiRepo, waitFor } from '../helpers/refs';
import { WebClient } from '../helpers/web';

type Thread = { id: number; unread: boolean; pinned: boolean; subject: { title: string } | null };

const XSS = '<script>alert(1)</script>';
/** A page's text without tags, spaces collapsed (entities stay escaped). */
const plain = (html: string) => html.replace(/<[^>]+>/g, '').replace(/\s+/g, ' ');

describe('dashboard and notifications pages', () => {
  let w: World;
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;
  let a: WebClient;
  let b: WebClient;
  let c: WebClient;
  const ok = async (method: string, p: string, body: unknown, u: TestUser) => {
    const r = await w.raw(method, p, body, { token: u.token });
    expect(r.status, `${method} ${p}: ${r.text}`).to.be.within(200, 299);
    return r.body;
  };
  const ops = async (u: TestUser) => ((await ok('GET', `/users/${u.name}/activities/feeds?limit=50`, undefined, u)) as { op_type: string }[]).map((x) => x.op_type);
  const threads = async (u: TestUser, q = '?all=true'): Promise<Thread[]> => (await ok('GET', `/notifications${q}`, undefined, u)) as Thread[];
  const thread = async (u: TestUser, id: number): Promise<Thread> => (await ok('GET', `/notifications/threads/${id}`, undefined, u)) as Thread;

  before(async () => {
    w = await startWorld();
    [alice, bob, carol] = [await w.user('alice'), await w.user('bob'), await w.user('carol')];
    await apiRepo(w, alice, 'proj');
    await apiRepo(w, alice, 'secret', { auto_init: true, private: true });
    await ok('PUT', '/repos/alice/proj/subscription', undefined, bob);
    [a, b, c] = [new WebClient(w), new WebClient(w), new WebClient(w)];
    await a.signIn('alice', alice.password);
    await b.signIn('bob', bob.password);
    await c.signIn('carol', carol.password);
  });
  after(async () => { await w?.stop(); });

  it('shows visitors the front page and sends them to sign in for notifications', async () => {
    const anon = new WebClient(w);
    const home = await anon.get('');
    expect(home.status).to.equal(200);
    expect(home.text).to.include('href="/user/login"').and.not.include('class="feed"');
    const n = await anon.get('notifications?q=read');
    expect(n.status).to.equal(303);
    expect(n.location).to.equal(`${w.server.rootUrl}user/login?redirect_to=${encodeURIComponent('/notifications?q=read')}`);
    expect((await anon.form('notifications/purge', {})).status).to.equal(403);
  });

  it('shows a push with its commits and an opened issue as sentences with links, escaped, and the user\'s repositories', async () => {
    const made = (await ok('POST', '/repos/alice/proj/contents/docs/a.md', { content: Buffer.from('hi').toString('base64'), message: `Add docs ${XSS}\n\nmore` }, alice)) as { commit: { sha: string } };
    await waitFor('the push in the feed', async () => (await ops(alice)).includes('commit_repo'));
    await ok('POST', '/repos/alice/proj/issues', { title: `Crash ${XSS}` }, alice);

    const home = await a.get('');
    expect(home.status).to.equal(200);
    expect(home.text).to.include('Welcome, alice');
    const text = plain(home.text);
    expect(text).to.include('alice pushed to main at alice/proj').and.include('alice opened issue alice/proj#1').and.include('alice created repository alice/secret');
    const sha = made.commit.sha;
    expect(home.text).to.include(`<a class="sha" href="/alice/proj/commit/${sha}">${sha.slice(0, 10)}</a>`)
      .and.include('<a href="/alice/proj/src/branch/main">main</a>').and.include('<a href="/alice/proj/issues/1">alice/proj#1</a>')
      .and.include('<a href="/alice">alice</a>');
    expect(home.text).to.include('Add docs &lt;script&gt;alert(1)&lt;/script&gt;').and.include('Crash &lt;script&gt;alert(1)&lt;/script&gt;').and.not.include(XSS);
    // the side list: the user's repositories, the private one marked
    expect(home.text).to.match(/<aside class="dashboard-repos box">[\s\S]*href="\/alice\/proj">alice\/proj<\/a>[\s\S]*<\/aside>/);
    expect(home.text).to.match(/href="\/alice\/secret">alice\/secret<\/a> <span class="badge">Private<\/span>/);
    // a watcher sees the watched repository's events, not its owner's other repositories
    const bobs = plain((await b.get('')).text);
    expect(bobs).to.include('alice opened issue alice/proj#1').and.include('alice pushed to main at alice/proj').and.not.include('alice/secret');
  });

  it('escapes branch names and shows a comment with its issue', async () => {
    const branch = 'feat/"<i>&x';
    const made = await w.raw('POST', '/repos/alice/proj/contents/b.txt', { content: Buffer.from('b').toString('base64'), new_branch: branch, message: 'on a branch' }, { token: alice.token });
    expect(made.status, made.text).to.equal(201);
    await ok('POST', '/repos/alice/proj/issues/1/comments', { body: `I see ${XSS} too` }, alice);
    await waitFor('the branch push in the feed', async () => (await ops(alice)).filter((o) => o === 'commit_repo').length >= 3);
    const home = (await a.get('')).text;
    expect(home).to.include('<a href="/alice/proj/src/branch/feat/%22%3Ci%3E&amp;x">feat/&quot;&lt;i&gt;&amp;x</a>').and.not.include('<i>&x');
    expect(plain(home)).to.include('alice commented on issue alice/proj#1').and.include('I see &lt;script&gt;alert(1)&lt;/script&gt; too');
    expect(home).to.match(/<a class="issue-title" href="\/alice\/proj\/issues\/1#issuecomment-\d+">Crash &lt;script&gt;/);
  });

  it('hides the events of a private repository from a user who can no longer read it', async () => {
    await ok('PUT', '/repos/alice/secret/collaborators/bob', { permission: 'read' }, alice);
    await ok('PUT', '/repos/alice/secret/subscription', undefined, bob);
    await ok('POST', '/repos/alice/secret/issues', { title: 'Secret plan' }, alice);
    expect(plain((await b.get('')).text)).to.include('alice opened issue alice/secret#1');
    expect((await b.get('')).text).to.include('Secret plan');
    const removed = await w.raw('DELETE', '/repos/alice/secret/collaborators/bob', undefined, { token: alice.token });
    expect(removed.status).to.equal(204);
    const after = (await b.get('')).text;
    expect(after).to.not.include('Secret plan').and.not.include('alice/secret');
    expect((await c.get('')).text).to.not.include('Secret plan');
    expect((await a.get('')).text).to.include('Secret plan');
  });

  it('pages the feed', async () => {
    await apiRepo(w, carol, 'many');
    for (let i = 1; i <= 21; i++) await ok('POST', '/repos/carol/many/issues', { title: `Issue number ${i}` }, carol);
    const first = await c.get('');
    expect(first.text.match(/class="feed-entry /g)).to.have.length(20);
    expect(first.text).to.include('Page 1 of 2').and.include('href="?page=2"').and.include('Issue number 21');
    const second = await c.get('?page=2');
    expect(second.text.match(/class="feed-entry /g)).to.have.length(2);
    expect(plain(second.text)).to.include('Issue number 1 ').and.include('carol created repository carol/many');
  });

  describe('notifications', () => {
    let first: Thread;
    let second: Thread;
    let bobs: Thread;

    before(async () => {
      await ok('POST', '/repos/alice/proj/issues', { title: `Alarm ${XSS}` }, carol);
      await ok('POST', '/repos/alice/proj/issues', { title: 'Second alarm' }, carol);
      await waitFor('alice\'s two threads', async () => (await threads(alice)).length === 2);
      await waitFor('bob\'s threads', async () => (await threads(bob)).length >= 2);
      const mine = await threads(alice);
      first = mine.find((t) => t.subject?.title.startsWith('Alarm'))!;
      second = mine.find((t) => t.subject?.title === 'Second alarm')!;
      bobs = (await threads(bob))[0];
    });

    it('lists unread threads with their subjects escaped and linked', async () => {
      const page = await a.get('notifications');
      expect(page.status).to.equal(200);
      expect(page.text).to.include('Alarm &lt;script&gt;alert(1)&lt;/script&gt;').and.include('Second alarm').and.not.include(XSS);
      const index = (await ok('GET', '/repos/alice/proj/issues?type=issues&q=Alarm', undefined, alice) as { number: number; title: string }[]).find((i) => i.title.startsWith('Alarm'))!.number;
      expect(page.text).to.include(`href="${w.server.rootUrl}alice/proj/issues/${index}">Alarm &lt;script&gt;`);
      expect(page.text).to.match(/class="badge unread-count">2</);
      expect(plain(page.text)).to.include(`alice/proj #${index}`).and.include('Issue · open');
      expect(page.text).to.include(`name="thread_id" value="${first.id}"`).and.include('action="/notifications/purge"');
      expect((await a.get('notifications?q=read')).text).to.include('No read notifications.');
    });

    it('marks a thread read, unread and pinned, as the API then shows it', async () => {
      await a.get('notifications');
      const read = await a.form('notifications/status', { thread_id: String(first.id), status: 'read', q: 'unread' });
      expect([read.status, read.location]).to.deep.equal([303, `${w.server.rootUrl}notifications?q=unread`]);
      expect(await thread(alice, first.id)).to.include({ unread: false, pinned: false });
      const unreadTab = await a.get('notifications');
      expect(unreadTab.text).to.include('The notification is marked read.').and.include('Second alarm').and.not.include('Alarm &lt;');
      const readTab = await a.get('notifications?q=read');
      expect(readTab.text).to.include('Alarm &lt;script&gt;').and.include('>Mark unread</button>').and.not.include('Second alarm');

      await a.form('notifications/status', { thread_id: String(first.id), status: 'unread', q: 'read' });
      expect(await thread(alice, first.id)).to.include({ unread: true, pinned: false });
      expect((await a.get('notifications?q=read')).text).to.include('No read notifications.');

      await a.form('notifications/status', { thread_id: String(first.id), status: 'pinned', q: 'unread' });
      expect(await thread(alice, first.id)).to.include({ unread: false, pinned: true });
      const pinned = await a.get('notifications');
      expect(pinned.text).to.match(new RegExp(`id="notification_${first.id}"[\\s\\S]*?<span class="badge pinned">Pinned</span>`));
      expect(pinned.text).to.match(/class="badge unread-count">1</);

      await a.form('notifications/status', { thread_id: String(first.id), status: 'bogus' });
      expect((await a.get('notifications')).text).to.include('status must be read, unread or pinned');
      expect(await thread(alice, first.id)).to.include({ pinned: true });
    });

    it('marks all unread threads read, leaving pinned ones pinned', async () => {
      await a.get('notifications');
      const done = await a.form('notifications/purge', { q: 'unread' });
      expect(done.status).to.equal(303);
      expect(await thread(alice, second.id)).to.include({ unread: false, pinned: false });
      expect(await thread(alice, first.id)).to.include({ pinned: true });
      expect((await ok('GET', '/notifications/new', undefined, alice) as { new: number }).new).to.equal(0);
      const page = await a.get('notifications');
      expect(page.text).to.include('1 notification is marked read.').and.not.include('action="/notifications/purge"');
    });

    it('never changes another user\'s thread, nor one without the CSRF token', async () => {
      const before = await thread(bob, bobs.id);
      await a.get('notifications');
      const other = await a.form('notifications/status', { thread_id: String(bobs.id), status: 'pinned' });
      expect(other.status).to.equal(303);
      expect((await a.get('notifications')).text).to.match(/class="flash error"[^>]*>[^<]*allowed to read\/change this thread/);
      await a.form('notifications/status', { thread_id: String(bobs.id), status: 'read' });
      expect(await thread(bob, bobs.id)).to.deep.equal(before);

      await b.get('notifications');
      for (const csrf of [null, 'wrong']) {
        expect((await b.form('notifications/status', { thread_id: String(bobs.id), status: 'pinned' }, { csrf })).status).to.equal(403);
        expect((await b.form('notifications/purge', {}, { csrf })).status).to.equal(403);
      }
      expect((await b.form('notifications/status', { thread_id: String(bobs.id), status: 'pinned' }, { origin: 'http://evil.example' })).status).to.equal(403);
      expect(await thread(bob, bobs.id)).to.deep.equal(before);
      expect((await threads(bob, '?status-types=unread')).length).to.be.greaterThan(0);
    });
  });
});
