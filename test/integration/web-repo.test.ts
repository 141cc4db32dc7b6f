/**
 * Repository pages against the real server, as a browser's HTTP side sees them: the home page with
 * its README rendered and clone URLs, folders and files at a branch (highlighted source, rendered
 * Markdown with a source view, images through /media), the history and a commit's diff, explore and
 * profiles; private repositories answer 404 to others and open with the owner's session (raw links
 * too); text users wrote comes back escaped.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { startWorld, type World, type TestUser } from '../helpers/world';
import { GitTool, apiRepo } from '../helpers/refs';
import { WebClient } from '../helpers/web';

const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');

describe('repository pages', () => {
  let w: World;
  let alice: TestUser;
  let bob: TestUser;
  let g: GitTool;
  let head = '';
  const anon = () => new WebClient(w);

  before(async () => {
    w = await startWorld();
    [alice, bob] = [await w.user('alice'), await w.user('bob')];
    g = new GitTool(w);
    await apiRepo(w, alice, 'proj', { auto_init: false, description: 'A <script>alert(1)</script> project' });
    await w.raw('PUT', '/repos/alice/proj/topics', { topics: ['forge', 'demo'] }, { token: alice.token });
    const dir = await g.clone(alice, 'alice', 'proj');
    await g.commit(dir, 'README.md', '# Project Title\n\nSee #1, alice/proj#1 and [the guide](docs/guide.md).\n\n<img src=x onerror=alert(1)>\n');
    fs.mkdirSync(path.join(dir, 'docs'), { recursive: true });
    fs.mkdirSync(path.join(dir, 'src'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'docs', 'guide.md'), '## Guide\n\n![logo](../logo.png)\n');
    fs.writeFileSync(path.join(dir, 'src', 'app.ts'), 'export function add(a: number, b: number): number {\n  return a + b; // <b>sum</b>\n}\n');
    fs.writeFileSync(path.join(dir, 'logo.png'), PNG);
    fs.writeFileSync(path.join(dir, '<b>odd<b>.txt'), 'odd name\n');
    await g.ok(['add', '-A'], dir);
    await g.ok(['commit', '-q', '-m', 'Add the guide, the app and a logo\n\nWith a body line.'], dir);
    await g.ok(['push', '-q', 'origin', 'HEAD:refs/heads/main'], dir);
    head = (await g.ok(['rev-parse', 'HEAD'], dir)).trim();
    await apiRepo(w, alice, 'hidden', { auto_init: true, private: true });
  });
  after(async () => { await w?.stop(); });

  it('the home page lists the root, renders the README, shows clone URLs, topics and the escaped description', async () => {
    const res = await anon().get('alice/proj');
    expect(res.status, res.text).to.equal(200);
    expect(res.text).to.include('<h1 id="user-content-project-title">Project Title</h1>');
    // why: as Gitea's repository files, a README links only full references.
    expect(res.text).to.include(`See #1, <a href="${w.server.url}alice/proj/issues/1" class="ref-issue" rel="nofollow">alice/proj#1</a>`);
    expect(res.text).to.include(`href="${w.server.url}alice/proj/src/branch/main/docs/guide.md"`);
    expect(res.text).not.to.include('onerror');
    expect(res.text).to.include(`value="${w.server.url}alice/proj.git"`);
    expect(res.text).to.match(/value="ssh:\/\/git@[^"]+\/alice\/proj\.git"/);
    expect(res.text).to.include('A &lt;script&gt;alert(1)&lt;/script&gt; project');
    expect(res.text).to.include('>forge</a>');
    for (const name of ['docs', 'src', 'README.md', 'logo.png']) expect(res.text).to.include(`>${name}</a>`);
    expect(res.text).to.include('&lt;b&gt;odd&lt;b&gt;.txt').and.not.include('<b>odd<b>');
    // why: folders come first.
    expect(res.text.indexOf('>docs</a>')).to.be.lessThan(res.text.indexOf('>README.md</a>'));
  });

  it('shows a source file highlighted with line numbers, and a Markdown file rendered or as source', async () => {
    const code = await anon().get('alice/proj/src/branch/main/src/app.ts');
    expect(code.status).to.equal(200);
    expect(code.text).to.include('<span class="hljs-keyword">export</span>');
    expect(code.text).to.include('&lt;b&gt;sum&lt;/b&gt;');
    expect(code.text).to.include('id="L3"').and.not.include('id="L4"');
    expect(code.text).to.include('href="/alice/proj/raw/branch/main/src/app.ts"');
    const md = await anon().get('alice/proj/src/branch/main/docs/guide.md');
    expect(md.text).to.include('<h2 id="user-content-guide">Guide</h2>');
    expect(md.text).to.include(`src="${w.server.url}alice/proj/media/branch/main/logo.png"`);
    const src = await anon().get('alice/proj/src/branch/main/docs/guide.md?display=source');
    expect(src.text).to.include('## Guide').and.not.include('<h2 id="user-content-guide">');
    const img = await anon().get('alice/proj/src/branch/main/logo.png');
    expect(img.text).to.include('<img src="/alice/proj/media/branch/main/logo.png"');
    const dir = await anon().get('alice/proj/src/branch/main/docs');
    expect(dir.text).to.include('>guide.md</a>');
    expect((await anon().get(`alice/proj/src/commit/${head}/src/app.ts`)).status).to.equal(200);
  });

  it('answers a missing path, branch or repository with the 404 page', async () => {
    for (const p of ['alice/proj/src/branch/main/nope.txt', 'alice/proj/src/branch/nope/README.md', 'alice/nope', 'nobody', 'alice/proj/no-such-page', 'alice/proj/pulls/1/nothing/here']) {
      const res = await anon().get(p);
      expect(res.status, p).to.equal(404);
      expect(res.text, p).to.include('<h1>Page not found</h1>').and.include('Error 404').and.include('class="site-footer');
      // never the framework's text, nor the API's internal words
      expect(res.text, p).to.not.include('Cannot GET').and.not.include('does not exist [');
    }
  });

  it('lists the history and shows a commit with its diff', async () => {
    const list = await anon().get('alice/proj/commits/branch/main');
    expect(list.status).to.equal(200);
    expect(list.text).to.include('2 commits on main');
    expect(list.text).to.include(`href="/alice/proj/commit/${head}"`);
    const c = await anon().get(`alice/proj/commit/${head}`);
    expect(c.status).to.equal(200);
    expect(c.text).to.include('Add the guide, the app and a logo').and.include('With a body line.');
    expect(c.text).to.include('src/app.ts <span class="badge">Added</span>');
    // highlighted, and still escaped
    expect(c.text).to.include('<span class="hljs-keyword">return</span> a + b; <span class="hljs-comment">// &lt;b&gt;sum&lt;/b&gt;</span></code>');
    const split = await anon().get(`alice/proj/commit/${head}?style=split`);
    expect(split.text).to.include('<table class="diff split"');
    // .diff and .patch are byte for byte the API's
    for (const kind of ['diff', 'patch']) {
      const page = await fetch(`${w.server.rootUrl}alice/proj/commit/${head}.${kind}`);
      const api = await fetch(`${w.server.rootUrl}api/v1/repos/alice/proj/git/commits/${head}.${kind}`);
      expect(page.status, kind).to.equal(200);
      expect(page.headers.get('content-type')).to.equal('text/plain; charset=utf-8');
      expect(Buffer.from(await page.arrayBuffer()).equals(Buffer.from(await api.arrayBuffer())), kind).to.equal(true);
    }
    expect((await fetch(`${w.server.rootUrl}alice/proj/commit/0000000000.diff`)).status).to.equal(404);
    const fileHistory = await anon().get('alice/proj/commits/branch/main/src/app.ts');
    expect(fileHistory.text).to.include('1 commits on main touching src/app.ts');
  });

  it('blames a file: each run of lines with the commit that last changed it, as git blame says', async () => {
    const dir = await g.clone(alice, 'alice', 'proj');
    await g.commit(dir, 'src/app.ts', 'export function add(a: number, b: number): number {\n  return a + b; // <b>sum</b>\n}\nexport const two = add(1, 1);\n', 'Add two');
    await g.ok(['push', '-q', 'origin', 'HEAD:main'], dir);
    const tip = (await g.ok(['rev-parse', 'HEAD'], dir)).trim();
    const res = await anon().get('alice/proj/blame/branch/main/src/app.ts');
    expect(res.status).to.equal(200);
    // the first three lines are the first commit's, the fourth the new one's
    const runs = [...res.text.matchAll(/class="blame-info" rowspan="(\d+)">.*?href="\/alice\/proj\/commit\/([0-9a-f]{40})">([^<]*)<\/a>/g)].map((m) => [Number(m[1]), m[2], m[3]]);
    expect(runs).to.deep.equal([[3, head, 'Add the guide, the app and a logo'], [1, tip, 'Add two']]);
    expect(res.text).to.include('id="L4" href="#L4"').and.include('&lt;b&gt;sum&lt;/b&gt;');
    expect((await anon().get('alice/proj/src/branch/main/src/app.ts')).text).to.include('href="/alice/proj/blame/branch/main/src/app.ts"');
    for (const [p, status] of [['alice/proj/blame/branch/main/src', 404], ['alice/proj/blame/branch/main/nope.ts', 404], ['alice/proj/blame/branch/main/logo.png', 422], ['alice/hidden/blame/branch/main/README.md', 404]] as const) {
      expect((await anon().get(p)).status, p).to.equal(status);
    }
  });

  it('searches the code of the default branch with git grep, the matches marked and escaped', async () => {
    const res = await anon().get('alice/proj/search?q=SUM');
    expect(res.status).to.equal(200);
    expect(res.text).to.include('>src/app.ts</a>').and.include('href="/alice/proj/src/branch/main/src/app.ts#L2">2</a>');
    expect(res.text).to.include('// &lt;b&gt;<mark>sum</mark>&lt;/b&gt;');
    expect(res.text).to.not.include('>README.md</a></h3>');
    expect((await anon().get('alice/proj/search?q=nothing-like-this')).text).to.include('No file contains it.');
    expect((await anon().get('alice/proj/search')).text).to.include('name="q"').and.not.include('contain “');
    expect((await anon().get(`alice/proj/search?q=${'x'.repeat(300)}`)).status).to.equal(422);
    expect((await anon().get('alice/hidden/search?q=a')).status).to.equal(404);
  });

  it('keeps a private repository to those who may read it; the owner browses and downloads with the session', async () => {
    expect((await anon().get('alice/hidden')).status).to.equal(404);
    const b = await WebClient.signedIn(w, bob);
    expect((await b.get('alice/hidden')).status).to.equal(404);
    expect((await b.get('alice/hidden/raw/branch/main/README.md')).status).to.equal(404);
    const a = await WebClient.signedIn(w, alice);
    const home = await a.get('alice/hidden');
    expect(home.status).to.equal(200);
    expect(home.text).to.include('<span class="badge">Private</span>');
    const raw = await a.get('alice/hidden/raw/branch/main/README.md');
    expect(raw.status).to.equal(200);
    expect(raw.text).to.include('# hidden');
  });

  describe('the file editor', () => {
    const raw = async (file: string) => (await w.raw('GET', `/repos/alice/proj/raw/${file}`, undefined, { token: alice.token })).text;
    const blobSha = async (file: string) => (await w.raw('GET', `/repos/alice/proj/contents/${file}`, undefined, { token: alice.token })).body.sha as string;

    it('offers editing to writers only; a reader is refused and nothing changes', async () => {
      const a = await WebClient.signedIn(w, alice);
      expect((await a.get('alice/proj/src/branch/main/README.md')).text).to.include('href="/alice/proj/_edit/main/README.md"');
      const b = await WebClient.signedIn(w, bob);
      expect((await b.get('alice/proj/src/branch/main/README.md')).text).not.to.include('_edit/');
      expect((await b.get('alice/proj/_edit/main/README.md')).status).to.equal(403);
      const before = await raw('README.md');
      const res = await b.form('alice/proj/_edit/main/README.md', { content: 'defaced', last_sha: await blobSha('README.md'), action: 'commit' });
      expect(res.status).to.equal(403);
      expect(await raw('README.md')).to.equal(before);
      expect((await anon().get('alice/proj/_edit/main/README.md')).status).to.equal(303);
    });

    it('previews a Markdown file without committing, then commits it with the message given', async () => {
      const a = await WebClient.signedIn(w, alice);
      const form = await a.get('alice/proj/_edit/main/docs/guide.md');
      expect(form.status).to.equal(200);
      expect(form.text).to.include('name="action" value="preview"');
      const sha = /name="last_sha" value="([0-9a-f]+)"/.exec(form.text)![1];
      const before = await raw('docs/guide.md');
      const preview = await a.form('alice/proj/_edit/main/docs/guide.md', { content: '## Changed\r\n\n- [x] done', last_sha: sha, action: 'preview' });
      expect(preview.status).to.equal(200);
      expect(preview.text).to.include('<h2 id="user-content-changed">Changed</h2>').and.include('<input type="checkbox" disabled checked aria-label="Done task" />');
      expect(await raw('docs/guide.md')).to.equal(before);
      const done = await a.form('alice/proj/_edit/main/docs/guide.md', { content: '## Changed\r\n', last_sha: sha, action: 'commit', commit_message: 'Edit the guide in the browser' });
      expect(done.status, done.text).to.equal(303);
      expect(done.location).to.equal('/alice/proj/src/branch/main/docs/guide.md');
      expect(await raw('docs/guide.md')).to.equal('## Changed\n');
      const log = await w.raw('GET', '/repos/alice/proj/commits?limit=1', undefined, { token: alice.token });
      expect(log.body[0].commit.message.trim()).to.equal('Edit the guide in the browser');
      // why: the form is now stale; committing it again would overwrite the commit just made.
      const stale = await a.form('alice/proj/_edit/main/docs/guide.md', { content: 'older', last_sha: sha, action: 'commit' });
      expect(stale.status).to.equal(409);
      expect(await raw('docs/guide.md')).to.equal('## Changed\n');
      // why: a source file has no rendered form, so no Preview tab.
      expect((await a.get('alice/proj/_edit/main/src/app.ts')).text).not.to.include('value="preview"');
    });

    it('makes a new file, refuses hostile names, and deletes a file', async () => {
      const a = await WebClient.signedIn(w, alice);
      await a.get('alice/proj/_new/main/docs');
      for (const bad of ['../escape.txt', '.git/config', 'a\\..\\b', '']) {
        const res = await a.form('alice/proj/_new/main/docs', { file_name: bad, content: 'x', action: 'commit' });
        expect(res.status, bad).to.be.oneOf([400, 422]);
      }
      const tree = await w.raw('GET', '/repos/alice/proj/contents/docs', undefined, { token: alice.token });
      expect(tree.body.map((e: { name: string }) => e.name)).to.deep.equal(['guide.md']);
      const made = await a.form('alice/proj/_new/main/docs', { file_name: 'notes.txt', content: 'hello\n', action: 'commit' });
      expect(made.status).to.equal(303);
      expect(await raw('docs/notes.txt')).to.equal('hello\n');
      const page = await a.get('alice/proj/src/branch/main/docs/notes.txt');
      const sha = /name="last_sha" value="([0-9a-f]+)"/.exec(page.text)![1];
      expect((await a.form('alice/proj/_delete/main/docs/notes.txt', { last_sha: sha }, { csrf: null })).status).to.equal(403);
      const gone = await a.form('alice/proj/_delete/main/docs/notes.txt', { last_sha: sha });
      expect(gone.status).to.equal(303);
      expect((await w.raw('GET', '/repos/alice/proj/raw/docs/notes.txt', undefined, { token: alice.token })).status).to.equal(404);
    });

    it('uploads a file into a folder with its commit message, replaces one of the same name; refuses a forged upload, a hostile name and a reader', async () => {
      const a = await WebClient.signedIn(w, alice);
      expect((await a.get('alice/proj/src/branch/main/docs')).text).to.include('href="/alice/proj/_upload/main/docs"');
      const form = await a.get('alice/proj/_upload/main/docs');
      expect(form.text).to.include('enctype="multipart/form-data"');
      const bytes = Buffer.from([0, 1, 2, 255, 10, 13, 10]);
      const up = await a.upload('alice/proj/_upload/main/docs', { field: 'file', name: 'data.bin', content: bytes }, { commit_message: 'Upload <data>' });
      expect(up.status, up.text).to.equal(303);
      expect(up.location).to.equal('/alice/proj/src/branch/main/docs/data.bin');
      const got = await fetch(`${w.server.url}api/v1/repos/alice/proj/raw/docs/data.bin`, { headers: { Authorization: `token ${alice.token}` } });
      expect(Buffer.from(await got.arrayBuffer()).equals(bytes)).to.equal(true);
      const log = await w.raw('GET', '/repos/alice/proj/commits?limit=1', undefined, { token: alice.token });
      expect(log.body[0].commit.message.trim()).to.equal('Upload <data>');
      // why: as Gitea's upload, a file of the same name is replaced.
      expect((await a.upload('alice/proj/_upload/main/docs', { field: 'file', name: 'data.bin', content: 'replaced' })).status).to.equal(303);
      expect(await raw('docs/data.bin')).to.equal('replaced');
      const headBefore = (await w.raw('GET', '/repos/alice/proj/commits?limit=1', undefined, { token: alice.token })).body[0].sha;
      await a.upload('alice/proj/_upload/main/docs', { field: 'file', name: 'forged.txt', content: 'x' }, {}, { csrf: null });
      await a.upload('alice/proj/_upload/main/docs', { field: 'file', name: '.git', content: 'x' });
      expect((await a.get('alice/proj/_upload/main/docs')).text).to.match(/class="flash error"/);
      const b = await WebClient.signedIn(w, bob);
      expect((await b.get('alice/proj/_upload/main/docs')).status).to.equal(403);
      expect((await b.upload('alice/proj/_upload/main/docs', { field: 'file', name: 'reader.txt', content: 'x' })).status).to.equal(403);
      const after = await w.raw('GET', '/repos/alice/proj/commits?limit=1', undefined, { token: alice.token });
      expect(after.body[0].sha).to.equal(headBefore);
    });
  });

  it('explore lists what the caller may see, with search; a profile lists its repositories', async () => {
    const all = await anon().get('explore/repos');
    expect(all.text).to.include('>alice/proj</a>').and.not.include('alice/hidden');
    const found = await anon().get('explore/repos?q=pro');
    expect(found.text).to.include('>alice/proj</a>');
    const none = await anon().get('explore/repos?q=zzz');
    expect(none.text).to.include('No repositories.');
    const profile = await anon().get('alice');
    expect(profile.status).to.equal(200);
    expect(profile.text).to.include('>alice/proj</a>').and.not.include('alice/hidden');
    const a = await WebClient.signedIn(w, alice);
    expect((await a.get('alice')).text).to.include('>alice/hidden</a>');
  });
});
