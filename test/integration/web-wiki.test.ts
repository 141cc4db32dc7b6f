/**
 * Wiki pages against the real server through their forms, checked through the API: the empty wiki
 * offering its first page to writers only, creating with a Preview that saves nothing, wiki links,
 * images, sidebar and footer rendered, editing, renaming and revisions, raw files pushed with git and
 * served inertly, deleting; readers, bad titles and forged forms refused with nothing changed;
 * hostile titles and content escaped; a disabled wiki is 404.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { startWorld, type World, type TestUser } from '../helpers/world';
import { apiRepo, GitTool } from '../helpers/refs';
import { WebClient } from '../helpers/web';

describe('wiki pages', () => {
  let w: World;
  let alice: TestUser;
  let bob: TestUser;
  let a: WebClient;
  let b: WebClient;
  const api = (method: string, p: string, body?: unknown) => w.raw(method, `/repos/alice/proj${p}`, body, { token: alice.token });
  const titles = async () => {
    const r = await api('GET', '/wiki/pages');
    return r.status === 404 ? null : (r.body as { title: string }[]).map((p) => p.title).sort();
  };
  const content = async (name: string) => Buffer.from((await api('GET', `/wiki/page/${name}`)).body.content_base64, 'base64').toString('utf8');
  const root = () => w.server.url;

  before(async () => {
    // why: a small blob limit makes a page "too large" without a megabyte of test data.
    w = await startWorld({ env: { FORGE__API__DEFAULT_MAX_BLOB_SIZE: '4096' } });
    [alice, bob] = [await w.user('alice'), await w.user('bob')];
    await apiRepo(w, alice, 'proj');
    a = await WebClient.signedIn(w, alice);
    b = await WebClient.signedIn(w, bob);
  });
  after(async () => { await w?.stop(); });

  it('offers the first page to a writer only, as Home', async () => {
    const mine = await a.get('alice/proj/wiki');
    expect(mine.status).to.equal(200);
    expect(mine.text).to.include('Welcome to the wiki').and.include('href="/alice/proj/wiki/_new"').and.match(/class="active" href="\/alice\/proj\/wiki"><svg[^>]*>.*?<\/svg> Wiki/);
    const theirs = await b.get('alice/proj/wiki');
    expect(theirs.status).to.equal(200);
    expect(theirs.text).to.include('Welcome to the wiki').and.not.include('/wiki/_new');
    expect((await b.get('alice/proj/wiki/_new')).status).to.equal(404);
    const form = await a.get('alice/proj/wiki/_new');
    expect(form.status).to.equal(200);
    expect(form.text).to.include('action="/alice/proj/wiki/_new"').and.include('name="title" value="Home"');
  });

  it('previews a page without saving it, then creates it with links and images rendered into the wiki', async () => {
    const text = 'Hello **wiki**\n\nSee [[Other Page]] and [notes](Notes).\n\n![pic](pic.png)';
    const preview = await a.form('alice/proj/wiki/_new', { title: 'Home', content: text, message: '', action: 'preview' });
    expect(preview.status).to.equal(200);
    expect(preview.text).to.include('<strong>wiki</strong>')
      .and.include(`href="${root()}alice/proj/wiki/Other-Page"`).and.include(`href="${root()}alice/proj/wiki/Notes"`)
      .and.include(`src="${root()}alice/proj/wiki/raw/pic.png"`).and.include('<textarea name="content" hidden>\n');
    expect(await titles()).to.equal(null);
    const made = await a.form('alice/proj/wiki/_new', { title: 'Home', content: text, message: 'First page', action: 'save' });
    expect(made.status, made.text).to.equal(303);
    expect(made.location).to.equal('/alice/proj/wiki/Home');
    expect(await titles()).to.deep.equal(['Home']);
    expect(await content('Home')).to.equal(text);
    const shown = await a.get('alice/proj/wiki');
    expect(shown.status).to.equal(200);
    expect(shown.text).to.include('<h2 class="wiki-title">Home</h2>').and.include('<strong>wiki</strong>')
      .and.include(`href="${root()}alice/proj/wiki/Other-Page"`).and.include(`src="${root()}alice/proj/wiki/raw/pic.png"`)
      .and.include('href="/alice/proj/wiki/Home?action=_edit"').and.include('action="/alice/proj/wiki/Home?action=_delete"')
      .and.include('1 revision').and.include('alice edited this page').and.include('proj.wiki.git');
    const missing = await a.get('alice/proj/wiki/Other-Page');
    expect(missing.status).to.equal(404);
    expect(missing.text).to.include('This page does not exist').and.include('href="/alice/proj/wiki/_new?title=Other%20Page"');
  });

  it('shows the sidebar and the footer beside every page', async () => {
    await a.get('alice/proj/wiki/_new');
    expect((await a.form('alice/proj/wiki/_new', { title: '_Sidebar', content: 'Side **nav**' })).status).to.equal(303);
    expect((await a.form('alice/proj/wiki/_new', { title: '_Footer', content: 'Foot *note*' })).status).to.equal(303);
    const shown = await a.get('alice/proj/wiki/Home');
    expect(shown.text).to.match(/class="box markup wiki-sidebar">[\s\S]*<strong>nav<\/strong>/)
      .and.match(/class="box markup wiki-footer">[\s\S]*<em>note<\/em>/).and.include('href="/alice/proj/wiki/_Sidebar?action=_edit"');
    const list = await a.get('alice/proj/wiki/_pages');
    expect(list.status).to.equal(200);
    expect(list.text).to.include('href="/alice/proj/wiki/Home">Home</a>').and.include('href="/alice/proj/wiki/_Sidebar">_Sidebar</a>').and.include('changed by alice');
  });

  it('edits a page with a preview, lists its revisions, and renames it', async () => {
    await a.get('alice/proj/wiki/_new?title=Other%20Page');
    await a.form('alice/proj/wiki/_new', { title: 'Other Page', content: 'first text' });
    const form = await a.get('alice/proj/wiki/Other-Page?action=_edit');
    expect(form.status).to.equal(200);
    expect(form.text).to.include('action="/alice/proj/wiki/Other-Page?action=_edit"').and.include('value="Other Page"').and.include('>\nfirst text</textarea>');
    const preview = await a.form('alice/proj/wiki/Other-Page?action=_edit', { title: 'Other Page', content: 'second **text**', action: 'preview' });
    expect(preview.text).to.include('second <strong>text</strong>');
    expect(await content('Other-Page')).to.equal('first text');
    const saved = await a.form('alice/proj/wiki/Other-Page?action=_edit', { title: 'Other Page', content: 'second text', message: 'Second take', action: 'save' });
    expect(saved.location).to.equal('/alice/proj/wiki/Other-Page');
    expect(await content('Other-Page')).to.equal('second text');
    const revs = await a.get('alice/proj/wiki/Other-Page?action=_revision');
    expect(revs.status).to.equal(200);
    expect(revs.text).to.include('2 commits').and.include('Second take').and.include('Add &quot;Other Page&quot;');
    const renamed = await a.form('alice/proj/wiki/Other-Page?action=_edit', { title: 'Renamed Page', content: 'third text', action: 'save' });
    expect(renamed.location).to.equal('/alice/proj/wiki/Renamed-Page');
    expect(await titles()).to.deep.equal(['Home', 'Renamed Page', '_Footer', '_Sidebar']);
    expect(await content('Renamed-Page')).to.equal('third text');
  });

  it('serves the files of the wiki tree inertly', async () => {
    const g = new GitTool(w);
    const c = await g.clone(alice, 'alice', 'proj.wiki');
    const png = Buffer.concat([Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'), Buffer.alloc(64, 7)]);
    fs.writeFileSync(path.join(c, 'pic.png'), png);
    fs.mkdirSync(path.join(c, 'images'));
    fs.writeFileSync(path.join(c, 'images', 'icon.png'), png);
    fs.writeFileSync(path.join(c, 'evil.html'), '<script>alert(1)</script>');
    fs.writeFileSync(path.join(c, 'evil.svg'), '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
    await g.ok(['add', '-A'], c);
    await g.ok(['commit', '-q', '-m', 'files'], c);
    await g.ok(['push', '-q', 'origin', 'main'], c);
    const get = (p: string) => fetch(`${root()}alice/proj/wiki/raw/${p}`);
    const pic = await get('pic.png');
    expect(pic.status).to.equal(200);
    expect(pic.headers.get('content-type')).to.equal('image/png');
    expect(pic.headers.get('x-content-type-options')).to.equal('nosniff');
    expect(Buffer.from(await pic.arrayBuffer()).equals(png)).to.equal(true);
    expect((await get('images/icon.png')).status).to.equal(200);
    const html = await get('evil.html');
    expect(html.headers.get('content-type')).to.equal('text/plain; charset=utf-8');
    expect(html.headers.get('content-security-policy')).to.include('sandbox');
    expect((await get('evil.svg')).headers.get('content-disposition')).to.match(/^attachment/);
    const page = await get('Home');
    expect(await page.text()).to.include('Hello **wiki**');
    expect((await get('nothing.png')).status).to.equal(404);
    expect(await titles()).to.deep.equal(['Home', 'Renamed Page', '_Footer', '_Sidebar']);
  });

  it('shows a reader no way to change the wiki and refuses their forms', async () => {
    const shown = await b.get('alice/proj/wiki/Home');
    expect(shown.status).to.equal(200);
    expect(shown.text).to.include('<strong>wiki</strong>').and.not.include('action=_edit').and.not.include('action=_delete').and.not.include('/wiki/_new');
    expect((await b.get('alice/proj/wiki/Home?action=_edit')).status).to.equal(404);
    for (const [p, fields] of [['Home?action=_edit', { title: 'Home', content: 'defaced' }], ['_new', { title: 'Graffiti', content: 'x' }], ['Home?action=_delete', {}]] as const) {
      const r = await b.form(`alice/proj/wiki/${p}`, fields);
      expect(r.status, p).to.equal(403);
      expect(r.text, p).to.include('permission to write');
    }
    const anon = new WebClient(w);
    expect((await anon.get('alice/proj/wiki/Home?action=_edit')).location).to.match(/\/user\/login\?redirect_to=/);
    expect(await titles()).to.deep.equal(['Home', 'Renamed Page', '_Footer', '_Sidebar']);
    expect(await content('Home')).to.include('Hello **wiki**');
  });

  it('refuses a reserved, empty or taken title with its message, and a form without the CSRF token', async () => {
    await a.get('alice/proj/wiki/_new');
    for (const [title, words] of [['_pages', 'reserved'], ['  ', 'needs a title'], ['Home', 'already exists']]) {
      const r = await a.form('alice/proj/wiki/_new', { title, content: 'kept draft' });
      expect(r.status).to.equal(400);
      expect(r.text).to.match(new RegExp(`class="flash error"[^>]*>[^<]*${words}`)).and.include('>\nkept draft</textarea>');
    }
    for (const [p, csrf] of [['_new', null], ['_new', 'wrong'], ['Home?action=_delete', null]] as const) {
      const r = await a.form(`alice/proj/wiki/${p}`, { title: 'Forged', content: 'x' }, { csrf });
      expect(r.status, p).to.equal(403);
      expect(r.text, p).to.include('Invalid CSRF token');
    }
    expect((await a.form('alice/proj/wiki/Home?action=_edit', { title: 'Home', content: 'x' }, { origin: 'http://evil.example' })).status).to.equal(403);
    expect(await titles()).to.deep.equal(['Home', 'Renamed Page', '_Footer', '_Sidebar']);
    expect(await content('Home')).to.include('Hello **wiki**');
  });

  it('escapes a hostile title and sanitizes hostile content', async () => {
    await a.get('alice/proj/wiki/_new');
    const title = '<img src=x onerror=alert(1)>';
    const made = await a.form('alice/proj/wiki/_new', { title, content: '<script>alert(2)</script><a href="javascript:alert(3)">x</a> <b onclick="alert(4)">b</b>' });
    expect(made.status, made.text).to.equal(303);
    const shown = await a.get(made.location!);
    expect(shown.status).to.equal(200);
    expect(shown.text).to.include('&lt;img src=x onerror=alert(1)&gt;').and.not.include('<img src=x')
      .and.not.include('<script>alert(2)').and.not.include('javascript:alert').and.not.include('onclick');
    expect((await a.get('alice/proj/wiki/_pages')).text).to.include('&lt;img src=x onerror=alert(1)&gt;</a>');
  });

  it('deletes a page', async () => {
    await a.get('alice/proj/wiki/Renamed-Page');
    const gone = await a.form('alice/proj/wiki/Renamed-Page?action=_delete', {});
    expect(gone.location).to.equal('/alice/proj/wiki/_pages');
    expect((await api('GET', '/wiki/page/Renamed-Page')).status).to.equal(404);
    const list = await a.get('alice/proj/wiki/_pages');
    expect(list.text).to.include('is deleted').and.not.include('Renamed-Page');
  });

  it('refuses to edit a page larger than the text the wiki service reads, which stays as it was', async () => {
    const big = `# Big\n\n${'word '.repeat(1000)}\n`;
    expect((await api('POST', '/wiki/new', { title: 'Big', content_base64: Buffer.from(big).toString('base64') })).status).to.equal(201);
    const form = await a.get('alice/proj/wiki/Big?action=_edit');
    expect(form.status).to.equal(413);
    expect(form.text).to.include('too large to edit in the browser');
    expect(form.text).not.to.include('name="content"');
    expect((await a.get('alice/proj/wiki/raw/Big')).text).to.equal(big);
  });

  it('answers 404 when the repository disables its wiki', async () => {
    expect((await api('PATCH', '', { has_wiki: false })).status).to.equal(200);
    for (const p of ['wiki', 'wiki/Home', 'wiki/_pages', 'wiki/_new', 'wiki/raw/pic.png', 'wiki/Home?action=_revision']) {
      expect((await a.get(`alice/proj/${p}`)).status, p).to.equal(404);
    }
    await a.get('alice/proj');
    expect((await a.form('alice/proj/wiki/_new', { title: 'Late', content: 'x' })).status).to.equal(404);
  });
});
