/**
 * Pages that render Markdown, against the real server through a cookie jar (issue 35): an issue of
 * many long task-list comments still renders whole and correct for an anonymous reader while the
 * server goes on answering other requests; a page seen again is the same, and each reader gets only
 * the links they may see; and the references of Gitea 1.24 on every page that renders Markdown
 * (issues, pull requests, releases, wiki pages, READMEs, commit messages).
 */
import { expect } from 'chai';
import { startWorld, type World, type TestUser } from '../helpers/world';
import { apiRepo, outboxSettled } from '../helpers/refs';
import { WebClient } from '../helpers/web';

const MAX_INPUT = 64 * 1024;
const COMMENTS = 60;
const ITEMS = 700;

/** A comment of about 12 KiB: a line with characters to escape, one checked task and ITEMS nested unchecked ones. */
function longComment(issue: number, k: number): string {
  return `Comment ${issue}.${k}: a < b & "c" <script>alert(1)</script>\n\n- [x] done ${k}\n${'- [ ] open\n  - [ ] nested\n'.repeat(ITEMS / 2)}`;
}

describe('pages that render Markdown', () => {
  let w: World;
  let alice: TestUser;
  let anon: WebClient;
  let root: WebClient;
  const api = (method: string, p: string, body?: unknown) => w.raw(method, `/repos/alice/proj${p}`, body, { token: alice.token });
  const comment = async (index: number, body: string) => {
    const res = await api('POST', `/issues/${index}/comments`, { body });
    expect(res.status, res.text).to.equal(201);
  };
  const boxes = (html: string) => ({ open: html.match(/<input type="checkbox" disabled aria-label="Open task" \/>/g)?.length ?? 0, done: html.match(/<input type="checkbox" disabled checked aria-label="Done task" \/>/g)?.length ?? 0 });

  before(async () => {
    w = await startWorld({ env: { FORGE__MARKUP__MAX_INPUT_SIZE: String(MAX_INPUT) } });
    alice = await w.user('alice');
    await w.user('bob');
    await w.user('hidden', { visibility: 'private' });
    await apiRepo(w, alice, 'proj');
    anon = new WebClient(w);
    root = await WebClient.signedIn(w, w.admin);
  });
  after(async () => { await w?.stop(); });

  describe('an issue of many long comments', () => {
    before(async () => {
      for (const index of [1, 2]) {
        expect((await api('POST', '/issues', { title: `Long ${index}`, body: `Issue ${index} with @hidden in it` })).status).to.equal(201);
        for (let k = 0; k < COMMENTS; k++) await comment(index, longComment(index, k));
      }
      // why: a document over [markup] MAX_INPUT_SIZE shows as its text; the page still renders.
      await comment(1, `**huge** <b>x</b>\n${'y'.repeat(MAX_INPUT)}`);
    });

    it('renders every comment for an anonymous reader: checkboxes, escaping, and a document too large to render as its text', async () => {
      const page = await anon.get('alice/proj/issues/1');
      expect(page.status).to.equal(200);
      expect(boxes(page.text)).to.deep.equal({ open: COMMENTS * ITEMS, done: COMMENTS });
      expect(page.text.match(/<ul class="contains-task-list">/g)).to.have.length(COMMENTS * (1 + ITEMS / 2));
      for (let k = 0; k < COMMENTS; k++) expect(page.text).to.include(`<p>Comment 1.${k}: a &lt; b &amp; "c" </p>`);
      expect(page.text).not.to.include('<script>alert(1)');
      expect(page.text).to.include('<pre class="markup-plain">**huge** &lt;b&gt;x&lt;/b&gt;\nyyy');
      expect(page.text).to.include('</html>');
    });

    it('answers /api/v1/version while cold views of such a page are in flight; the views agree', async () => {
      let pending = 3;
      const views = [anon, anon, new WebClient(w)].map((c) => c.get('alice/proj/issues/2').finally(() => { pending--; }));
      const version = await w.raw('GET', '/version');
      expect(version.status).to.equal(200);
      expect(version.body.version).to.be.a('string');
      // why: the rendering of a page's documents runs in the worker pool, not on the event loop that answers /version.
      expect(pending, 'a page view finished before /version answered').to.equal(3);
      const pages = await Promise.all(views);
      for (const p of pages) expect(p.status).to.equal(200);
      const timeline = (html: string) => html.slice(html.indexOf('<div class="timeline">'), html.indexOf('<aside class="sidebar">'));
      expect(timeline(pages[1].text)).to.equal(timeline(pages[0].text));
      expect(timeline(pages[2].text)).to.equal(timeline(pages[0].text));
      expect(boxes(pages[0].text)).to.deep.equal({ open: COMMENTS * ITEMS, done: COMMENTS });
    });

    it('a page seen again is the same, and each reader gets only the mentions they may see, in any order', async () => {
      const link = `href="${w.server.rootUrl}hidden" class="mention"`;
      const first = await root.get('alice/proj/issues/2');
      expect(first.text).to.include(link);
      const other = await anon.get('alice/proj/issues/2');
      expect(other.text).to.include('Issue 2 with @hidden in it').and.not.include(link);
      const again = await root.get('alice/proj/issues/2');
      expect(again.text).to.include(link);
      expect(boxes(again.text)).to.deep.equal(boxes(first.text));
    });
  });

  describe('references on every page that renders Markdown', () => {
    let head = '';
    const ref = (href: string, label: string) => `<a href="${w.server.rootUrl}${href}" class="ref-issue" rel="nofollow">${label}</a>`;

    before(async () => {
      await apiRepo(w, alice, 'secret', { auto_init: true, private: true });
      expect((await api('POST', '/issues', { title: 'Target', body: 'x' })).status).to.equal(201);
      const readme = await api('GET', '/contents/README.md');
      const file = await api('PUT', '/contents/README.md', {
        sha: readme.body.sha,
        content: Buffer.from('# Proj\n\nSee #3 and alice/proj#3, alice/secret#1 and @bob.\n').toString('base64'), message: 'Fix #3 for @bob\n\nFixes alice/proj!4, not <b>bold</b>',
      });
      expect(file.status, file.text).to.equal(200);
      head = file.body.commit.sha;
      await outboxSettled(w);
    });

    it('issue comments link #12, !12, owner/repo#12, @user and commit ids; a missing or unreadable issue is a link whose page is a 404', async () => {
      await comment(3, `Closes #3, see !4, alice/secret#1, #999 and @bob at ${head.slice(0, 9)}.`);
      const page = await anon.get('alice/proj/issues/3');
      expect(page.text).to.include(`<span class="issue-keyword">Closes</span> ${ref('alice/proj/issues/3', '#3')}, see ${ref('alice/proj/pulls/4', '!4')}, `
        + `${ref('alice/secret/issues/1', 'alice/secret#1')}, ${ref('alice/proj/issues/999', '#999')} and `
        + `<a href="${w.server.rootUrl}bob" class="mention" rel="nofollow">@bob</a> at `
        + `<a href="${w.server.rootUrl}alice/proj/commit/${head}" class="commit" rel="nofollow"><code>${head.slice(0, 9)}</code></a>.`);
      // why: as Gitea, a reference links without a look-up; what it names is checked when the link is followed.
      expect((await anon.get('alice/proj/issues/999')).status).to.equal(404);
      const hidden = await anon.get('alice/secret/issues/1');
      expect(hidden.status).to.equal(404);
      expect(hidden.text).not.to.include('Target');
    });

    it('a pull request body, a release note and a wiki page link #12; a README only owner/repo#12', async () => {
      expect((await api('POST', '/contents/topic.txt', { content: Buffer.from('t\n').toString('base64'), branch: 'main', new_branch: 'topic', message: 'topic' })).status).to.equal(201);
      await outboxSettled(w);
      const pull = await api('POST', '/pulls', { head: 'topic', base: 'main', title: 'Topic', body: 'Fixes #3' });
      expect(pull.status, pull.text).to.equal(201);
      expect((await anon.get(`alice/proj/pulls/${pull.body.number}`)).text).to.include(`<span class="issue-keyword">Fixes</span> ${ref('alice/proj/issues/3', '#3')}`);

      expect((await api('POST', '/releases', { tag_name: 'v1', name: 'One', body: 'Closes #3 and !4' })).status).to.equal(201);
      expect((await anon.get('alice/proj/releases')).text).to.include(`${ref('alice/proj/issues/3', '#3')} and ${ref('alice/proj/pulls/4', '!4')}`);

      expect((await api('POST', '/wiki/new', { title: 'Home', content_base64: Buffer.from('Tracked in #3.').toString('base64') })).status).to.equal(201);
      expect((await anon.get('alice/proj/wiki/Home')).text).to.include(`Tracked in ${ref('alice/proj/issues/3', '#3')}.`);

      const home = await anon.get('alice/proj');
      expect(home.text).to.include(`See #3 and ${ref('alice/proj/issues/3', 'alice/proj#3')}, ${ref('alice/secret/issues/1', 'alice/secret#1')} and <a href="${w.server.rootUrl}bob" class="mention" rel="nofollow">@bob</a>.`);
    });

    it('the commit page shows its message escaped, with references linked as comments link them', async () => {
      const page = await anon.get(`alice/proj/commit/${head}`);
      expect(page.status).to.equal(200);
      expect(page.text).to.include(`<h2 class="subject"><span class="issue-keyword">Fix</span> ${ref('alice/proj/issues/3', '#3')} for <a href="${w.server.rootUrl}bob" class="mention" rel="nofollow">@bob</a></h2>`);
      expect(page.text).to.include(`<pre class="commit-body"><span class="issue-keyword">Fixes</span> ${ref('alice/proj/pulls/4', 'alice/proj!4')}, not &lt;b&gt;bold&lt;/b&gt;</pre>`);
    });
  });
});
