/**
 * Markup rendering (`/markup`, `/markdown`, `/markdown/raw`) and the template listings (gitignore,
 * licenses, labels) against the real server, with gitea-js and raw HTTP: references that link only
 * what exists and what the caller may see, links resolved against the document's tree, the render
 * modes, the XSS vectors of security class 11, the size cap, the pool path, and the templates used
 * by repository creation.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { startWorld, type World, type TestUser } from '../helpers/world';
import { GitTool, apiRepo } from '../helpers/refs';

const MAX_INPUT = 65536;

describe('markup rendering and template listings', () => {
  let w: World;
  let alice: TestUser;
  let bob: TestUser;
  let g: GitTool;
  let head = '';
  const root = () => w.server.url;

  const markdown = (body: unknown, u: TestUser | null = alice) => w.raw('POST', '/markdown', body, u ? { token: u.token } : {});
  const markup = (body: unknown, u: TestUser | null = alice) => w.raw('POST', '/markup', body, u ? { token: u.token } : {});

  before(async () => {
    w = await startWorld({ env: { FORGE__MARKUP__MAX_INPUT_SIZE: String(MAX_INPUT) } });
    [alice, bob] = [await w.user('alice'), await w.user('bob')];
    await w.user('hidden', { visibility: 'private' });
    g = new GitTool(w);
    await apiRepo(w, alice, 'proj');
    await apiRepo(w, alice, 'secret', { auto_init: true, private: true });
    head = (await w.raw('GET', '/repos/alice/proj/branches/main', undefined, { token: alice.token })).body.commit.id;
  });
  after(async () => { await w?.stop(); });

  describe('references, links and modes', () => {
    it('gfm with a repository context links full issue references, visible users and existing commits; markdown mode links none', async () => {
      const text = `# Hello World\n\nSee #3, alice/secret#4 and @bob, @nobody, @hidden; commit ${head.slice(0, 12)} and deadbeefcafe1.`;
      const res = await markdown({ Mode: 'gfm', Context: 'alice/proj', Text: text });
      expect(res.status, res.text).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^text\/html/);
      expect(res.text).to.include('<h1 id="user-content-hello-world">Hello World</h1>');
      // why: Gitea 1.24 renders gfm as a repository file, where only owner/repo#12 references link.
      expect(res.text).to.include('See #3,').and.not.include('alice/proj/issues/3');
      const comment = await markdown({ Mode: 'comment', Context: 'alice/proj', Text: text });
      expect(comment.text).to.include(`<a href="${root()}alice/proj/issues/3" class="ref-issue" rel="nofollow">#3</a>`);
      expect(res.text).to.include(`<a href="${root()}alice/secret/issues/4" class="ref-issue" rel="nofollow">alice/secret#4</a>`);
      expect(res.text).to.include(`<a href="${root()}bob" class="mention" rel="nofollow">@bob</a>`);
      expect(res.text).to.include('@nobody').and.not.include(`${root()}nobody`);
      // why: a private user is no link for someone who may not see it, and is one for an administrator.
      expect(res.text).not.to.include(`${root()}hidden`);
      expect((await markdown({ Mode: 'gfm', Context: 'alice/proj', Text: '@hidden' }, w.admin)).text).to.include(`${root()}hidden`);
      expect(res.text).to.include(`<a href="${root()}alice/proj/commit/${head}" class="commit" rel="nofollow"><code>${head.slice(0, 10)}</code></a>`);
      expect(res.text).to.include('deadbeefcafe1').and.not.include('commit/deadbeefcafe1');

      const plain = await markdown({ Mode: 'markdown', Context: 'alice/proj', Text: text });
      expect(plain.status).to.equal(200);
      expect(plain.text).to.include('<h1 id="user-content-hello-world">').and.not.include('<a ');
    });

    it('the commits of a repository the caller cannot read are not looked up', async () => {
      const secretHead = (await w.raw('GET', '/repos/alice/secret/branches/main', undefined, { token: alice.token })).body.commit.id;
      const text = `fixed in ${secretHead}`;
      const own = await markdown({ Mode: 'comment', Context: 'alice/secret', Text: text });
      expect(own.text).to.include(`alice/secret/commit/${secretHead}`);
      const other = await markdown({ Mode: 'comment', Context: 'alice/secret', Text: text }, bob);
      expect(other.status).to.equal(200);
      expect(other.text).not.to.include('/commit/');
      expect(other.text).to.include(secretHead);
    });

    it('file mode resolves relative links and images against the branch and folder, and picks the renderer from FilePath', async () => {
      const ctx = '/alice/proj/src/branch/main/docs';
      const md = await markup({ Mode: 'file', Context: ctx, FilePath: 'docs/README.md', Text: '[guide](guide.md) [up](../LICENSE) ![logo](img/logo.png) [top](#intro) [ext](https://example.com/x)' });
      expect(md.status, md.text).to.equal(200);
      expect(md.text).to.include(`href="${root()}alice/proj/src/branch/main/docs/guide.md"`);
      expect(md.text).to.include(`href="${root()}alice/proj/src/branch/main/LICENSE"`);
      expect(md.text).to.include(`src="${root()}alice/proj/media/branch/main/docs/img/logo.png"`);
      expect(md.text).to.include('href="#user-content-intro"');
      expect(md.text).to.include('href="https://example.com/x" rel="nofollow"');

      const csv = await markup({ Mode: 'file', FilePath: 'data/t.csv', Text: 'name,note\n"a, b",<b>x</b>\n' });
      expect(csv.text).to.equal('<table class="data-table"><tr><th class="line-num">1</th><th>name</th><th>note</th></tr>\n'
        + '<tr><td class="line-num">2</td><td>a, b</td><td>&lt;b&gt;x&lt;/b&gt;</td></tr></table>\n');
      const txt = await markup({ Mode: 'file', FilePath: 'notes.unknown', Text: '# not a heading <script>x</script>' });
      expect(txt.text).to.equal('# not a heading &lt;script&gt;x&lt;/script&gt;');
    });

    it('wiki mode links [[pages]] and images into the wiki; the Wiki flag means the same', async () => {
      const text = '[[Links, Language bindings|Links]] [[Home Page]] [[images/icon.png]]';
      const res = await markup({ Mode: 'wiki', Context: 'alice/proj', Text: text });
      expect(res.text).to.include(`<a href="${root()}alice/proj/wiki/Links" rel="nofollow">Links, Language bindings</a>`);
      expect(res.text).to.include(`<a href="${root()}alice/proj/wiki/Home-Page" rel="nofollow">Home Page</a>`);
      expect(res.text).to.include(`<img src="${root()}alice/proj/wiki/raw/images/icon.png" alt="images/icon.png" title="icon.png" />`);
      expect((await markdown({ Mode: 'gfm', Wiki: true, Context: 'alice/proj', Text: text })).text).to.equal(res.text);
      expect((await markdown({ Mode: 'gfm', Context: 'alice/proj', Text: text })).text).to.include('[[Links, Language bindings|Links]]');
    });

    it('comments break lines as Gitea does by default; documents do not; GFM extensions and emoji render', async () => {
      expect((await markdown({ Mode: 'comment', Text: 'a\nb' })).text).to.equal('<p>a<br />\nb</p>\n');
      expect((await markdown({ Mode: 'gfm', Text: 'a\nb' })).text).to.equal('<p>a\nb</p>\n');
      const res = await markdown({ Mode: 'gfm', Text: '- [ ] todo\n- [x] done\n\n~~old~~ www.example.com :tada:\n\n| a |\n|---|\n| 1 |\n' });
      expect(res.text).to.include('<ul class="contains-task-list">\n<li class="task-list-item"><input type="checkbox" disabled aria-label="Open task" /> todo</li>');
      expect(res.text).to.include('<input type="checkbox" disabled checked aria-label="Done task" /> done');
      expect(res.text).to.include('<s>old</s> <a href="http://www.example.com" rel="nofollow">www.example.com</a> <span class="emoji" aria-label="tada">🎉</span>');
      expect(res.text).to.include('<table>\n<thead>\n<tr>\n<th>a</th>');
    });

    it('/markdown/raw renders its body as text whatever it looks like, without references', async () => {
      const res = await w.raw('POST', '/markdown/raw', '{"Text": "# not JSON"} #1 [[Name|Link]]', { token: alice.token, headers: { 'Content-Type': 'text/plain' } });
      expect(res.status, res.text).to.equal(200);
      expect(res.text).to.equal('<p>{"Text": "# not JSON"} #1 [[Name|Link]]</p>\n');
      const empty = await w.raw('POST', '/markdown/raw', undefined, { token: alice.token });
      expect(empty.status).to.equal(200);
      expect(empty.text).to.equal('');
      // why: gitea-js reads every answer as JSON unless told otherwise; an HTML answer is asked for as text.
      const viaClient = await alice.api.markup.renderMarkup({ Mode: 'gfm', Text: '**bold**' }, { format: 'text' });
      expect(viaClient.data).to.equal('<p><strong>bold</strong></p>\n');
    });

    it('refuses anonymous callers (401), an unknown mode (422) and a text over [markup] MAX_INPUT_SIZE (422)', async () => {
      const anon = await markdown({ Text: 'x' }, null);
      expect(anon.status).to.equal(401);
      expect(anon.body.message).to.be.a('string');
      const bad = await markup({ Mode: 'unknown', Text: '## Test' });
      expect(bad.status).to.equal(422);
      expect(bad.body.message).to.equal('Unknown mode: unknown');
      const big = await markdown({ Mode: 'gfm', Text: 'a'.repeat(MAX_INPUT + 1) });
      expect(big.status).to.equal(422);
      expect(big.body.message).to.match(/65537 bytes.*MAX_INPUT_SIZE/);
      // why: the cap counts bytes, not characters.
      expect((await markdown({ Mode: 'gfm', Text: 'é'.repeat(MAX_INPUT / 2 + 1) })).status).to.equal(422);
    });

    it('a large document renders in the worker pool to the same HTML, and 60,000 brackets render', async () => {
      const para = `Some **bold** text with #1 and @bob and a [link](x.md).\n\n`;
      const big = para.repeat(Math.floor((MAX_INPUT - 100) / para.length));
      const small = await markdown({ Mode: 'gfm', Context: 'alice/proj', Text: para });
      const res = await markdown({ Mode: 'gfm', Context: 'alice/proj', Text: big });
      expect(res.status, res.text).to.equal(200);
      expect(res.text).to.equal(small.text.repeat(Math.floor((MAX_INPUT - 100) / para.length)));
      const brackets = await markdown({ Mode: 'gfm', Text: '['.repeat(60000) });
      expect(brackets.status).to.equal(200);
      expect(brackets.text).to.equal(`<p>${'['.repeat(60000)}</p>\n`);
    });
  });

  describe('security class 11: markup XSS', () => {
    const VECTORS = [
      '[x](javascript:alert(1))', '[x](jav&#x09;ascript:alert(1))', '[x](JaVaScRiPt:alert(1))', '<a href="javascript:alert(1)">x</a>',
      '<a href="&#106;avascript:alert(1)">x</a>', '<img src=x onerror=alert(1)>', '<svg><script>alert(1)</script></svg>', '<svg onload=alert(1)>',
      '<iframe src="https://example.com"></iframe>', '<p style="background:url(javascript:alert(1))" onclick="alert(1)">x</p>',
      '<form action="/user/logout"><button>go</button></form>', '![x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)',
      '<a href="data:text/html,<script>alert(1)</script>">x</a>', '<math><mi xlink:href="javascript:alert(1)">x</mi></math>', '<object data="x"></object><embed src="x">',
      '<details open ontoggle=alert(1)>x</details>', '<input type="text" autofocus onfocus="alert(1)">', '<a href="//evil.example/x">x</a>', '[x](vbscript:msgbox(1))',
      '<div id="main" class="ui button" data-x="1">x</div>', '```js\n</code><script>alert(1)</script>\n```', '`<script>alert(1)</script>`', '<style>*{display:none}</style>',
      '<base href="https://evil.example/">', '<meta http-equiv="refresh" content="0;url=https://evil.example">', '<a href="https://ok.example" target="_blank" onmouseover="x()">ok</a>',
    ];

    for (const mode of ['gfm', 'comment', 'markdown', 'wiki']) {
      it(`mode ${mode}: no script, handler, style, frame, form or dangerous scheme survives`, async () => {
        for (const v of VECTORS) {
          const res = await markup({ Mode: mode, Context: 'alice/proj', Text: v });
          expect(res.status, v).to.equal(200);
          const html = res.text;
          expect(html, v).not.to.match(/<script|<iframe|<svg|<object|<embed|<form|<style|<base|<meta|<math/i);
          expect(html, v).not.to.match(/\son[a-z]+\s*=/i);
          expect(html, v).not.to.match(/\sstyle\s*=|\starget\s*=|\sdata-x\s*=/i);
          expect(html, v).not.to.match(/(href|src)\s*=\s*"\s*(javascript|vbscript|data:text)/i);
          expect(html, v).not.to.match(/(href|src)\s*=\s*"\/\//i);
        }
      });
    }

    it('user ids get the user-content- prefix and task checkboxes stay read-only', async () => {
      const res = await markdown({ Mode: 'gfm', Text: '<div id="main">x</div><input type="checkbox" checked>' });
      expect(res.text).to.include('<div id="user-content-main">x</div>');
      expect(res.text).to.include('<input type="checkbox" disabled checked aria-label="Done task" />');
    });
  });

  describe('template listings', () => {
    it('lists the gitignore collection and reads a template; an unknown name is a 404', async () => {
      const list = await alice.api.gitignore.listGitignoresTemplates();
      expect(list.data.length).to.be.greaterThan(200);
      expect(list.data).to.include.members(['Go', 'Node', 'Python', 'macOS', 'VisualStudioCode']);
      expect([...list.data].sort((a, b) => a.localeCompare(b))).to.deep.equal(list.data);
      const go = await w.raw('GET', '/gitignore/templates/Go');
      expect(go.status).to.equal(200);
      expect(go.body.name).to.equal('Go');
      expect(go.body.source).to.include('*.test');
      for (const bad of ['Nope', 'go', '..%2FNode', '.%2E%2F.%2Ftemplates%2Flabel%2FDefault.json']) {
        const res = await w.raw('GET', `/gitignore/templates/${bad}`);
        expect(res.status, bad).to.equal(404);
        expect(res.body.message, bad).to.be.a('string');
      }
    });

    it('lists the SPDX licenses, preferred first, and reads one with its text', async () => {
      const list = (await w.client().licenses.listLicenseTemplates()).data;
      expect(list.length).to.be.greaterThan(500);
      expect(list.slice(0, 2).map((l) => l.key)).to.deep.equal(['Apache-2.0', 'MIT']);
      expect(list[1]).to.deep.equal({ key: 'MIT', name: 'MIT', url: `${root()}api/v1/licenses/MIT` });
      expect(list.map((l) => l.key)).to.include.members(['GPL-3.0-only', 'BSD-3-Clause', 'MPL-2.0']);
      const mit = await w.raw('GET', '/licenses/MIT');
      expect(mit.status).to.equal(200);
      expect(mit.body).to.include({ key: 'MIT', name: 'MIT', url: `${root()}api/v1/licenses/MIT` });
      expect(mit.body.body).to.include('Permission is hereby granted, free of charge');
      expect(mit.body.implementation).to.match(/^Create a text file/);
      expect((await w.raw('GET', '/licenses/mit')).status).to.equal(404);
      expect((await w.raw('GET', '/licenses/toString')).status).to.equal(404);
    });

    it('lists the label sets and their labels (colors without #)', async () => {
      expect((await w.client().label.listLabelTemplates()).data).to.deep.equal(['Advanced', 'Default']);
      const labels = (await w.client().label.getLabelTemplateInfo('Default')).data;
      expect(labels.map((l) => l.name)).to.include.members(['bug', 'enhancement']);
      const bug = labels.find((l) => l.name === 'bug')!;
      expect(bug.color).to.match(/^[0-9a-f]{6}$/);
      expect(bug).to.have.all.keys('name', 'color', 'description', 'exclusive');
      const adv = (await w.client().label.getLabelTemplateInfo('Advanced')).data;
      expect(adv.some((l) => l.exclusive && !!l.name?.includes('/'))).to.equal(true);
      expect((await w.raw('GET', '/label/templates/Nope')).status).to.equal(404);
    });

    it('repository creation uses the same templates: gitignores joined with headers, the license filled in, the labels', async () => {
      const res = await w.raw('POST', '/user/repos', { name: 'tpl', auto_init: true, gitignores: 'Go,Node', license: 'BSD-3-Clause', issue_labels: 'Default' }, { token: alice.token });
      expect(res.status, res.text).to.equal(201);
      const dir = await g.clone(alice, 'alice', 'tpl');
      const ignore = fs.readFileSync(path.join(dir, '.gitignore'), 'utf8');
      expect(ignore.startsWith('# ---> Go\n')).to.equal(true);
      expect(ignore).to.include('\n# ---> Node\n');
      const license = fs.readFileSync(path.join(dir, 'LICENSE'), 'utf8');
      expect(license).to.include(`Copyright (c) ${new Date().getUTCFullYear()} alice`);
      expect(license).not.to.include('<year>');
      const labels = await w.raw('GET', '/repos/alice/tpl/labels', undefined, { token: alice.token });
      expect(labels.body.map((l: { name: string }) => l.name)).to.include('bug');

      const before = (await w.raw('GET', '/users/alice/repos', undefined, { token: alice.token })).body.length;
      for (const body of [{ name: 'x1', auto_init: true, license: 'NoSuchLicense' }, { name: 'x2', auto_init: true, gitignores: 'Go,Nope' }, { name: 'x3', issue_labels: 'Nope' }]) {
        const bad = await w.raw('POST', '/user/repos', body, { token: alice.token });
        expect(bad.status, JSON.stringify(body)).to.equal(422);
        expect(bad.body.message).to.match(/Nope|NoSuchLicense/);
      }
      expect((await w.raw('GET', '/users/alice/repos', undefined, { token: alice.token })).body.length).to.equal(before);
    });
  });
});
