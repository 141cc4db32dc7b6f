/**
 * The renderer alone: the CommonMark spec's examples in `markdown` mode, the deliberate differences
 * named (GFM autolinks, Gitea's link attributes and heading anchors), and the pool task's time limit.
 */
import { expect } from 'chai';
import { referenceCandidates, render, sanitize } from '../../src/markup';
import { renderMarkup, renderMarkupBatch } from '../../workers/tasks/markup';
import { parseTaskError } from '../../workers/errors';

const spec = require('commonmark-spec') as { tests: { markdown: string; html: string; number: number; section: string }[] };

/**
 * The forms both sides are compared in. The spec's HTML goes through the same allowlist as ours
 * (raw HTML that the sanitizer drops is a deliberate difference); what the forge adds to every
 * document on purpose, `rel="nofollow"` and Gitea's `user-content-` heading anchors, is taken out.
 */
function comparable(html: string): string {
  // why: fenced code is highlighted (spans inside <code>), which the spec's HTML does not know of.
  return html.replace(/<span class="hljs-[^"]*">|<\/span>/g, '').replace(/ rel="nofollow"/g, '').replace(/(<h[1-6]) id="user-content-[^"]*"/g, '$1').replace(/href="#user-content-/g, 'href="#')
    .replace(/\s+/g, ' ').replace(/> </g, '><').trim();
}

describe('markup renderer', () => {
  it('highlights fenced code by its language, escaped, and leaves an unknown language plain', () => {
    const html = render({ mode: 'comment', text: '```ts\nconst x: number = 1; // <b>\n```\n\n```nolang\n<i>\n```', links: { app: 'http://f/' } });
    expect(html).to.include('<pre><code class="language-ts"><span class="hljs-keyword">const</span>').and.include('<span class="hljs-comment">// &lt;b&gt;</span>');
    expect(html).to.include('<pre><code class="language-nolang">&lt;i&gt;\n</code></pre>');
  });

  it('passes at least 99% of the CommonMark spec examples in markdown mode; the rest are GFM autolinks', () => {
    const failed: { number: number; section: string }[] = [];
    for (const t of spec.tests) {
      const md = t.markdown.replace(/→/g, '\t');
      const ours = render({ mode: 'markdown', text: md, links: { app: 'http://forge.test/' } });
      if (comparable(ours) !== comparable(sanitize(t.html.replace(/→/g, '\t')))) failed.push(t);
    }
    const passed = spec.tests.length - failed.length;
    expect(passed / spec.tests.length, `failed: ${failed.map((f) => `${f.number} (${f.section})`).join(', ')}`).to.be.at.least(0.99);
    // why: GFM links bare URLs and emails (its autolink extension), which CommonMark leaves as text.
    expect(failed.every((f) => f.section === 'Autolinks'), JSON.stringify(failed)).to.equal(true);
  });

  it('escapes text of unknown files, and turns a heading into an anchor Gitea would write', () => {
    expect(render({ mode: 'file', filePath: 'a.bin', text: '<a href="x">&</a>', links: { app: 'http://f/' } })).to.equal('&lt;a href=&quot;x&quot;&gt;&amp;&lt;/a&gt;');
    expect(render({ mode: 'gfm', text: '## Über `code` & Co.!\n## Über `code` & Co.!', links: { app: 'http://f/' } }))
      .to.equal('<h2 id="user-content-über-code--co">Über <code>code</code> &amp; Co.!</h2>\n<h2 id="user-content-über-code--co-1">Über <code>code</code> &amp; Co.!</h2>\n');
  });

  it('task lists: the same HTML as the earlier renderer (nested, ordered, loose, quoted lists), and a long list marks every item', () => {
    // why: the expected HTML was written by the renderer before its task-list rule was made linear.
    const cases: [string, string][] = [
    ['- [ ] one\n- [x] two\n- plain\n',
      "<ul class=\"contains-task-list\">\n<li class=\"task-list-item\"><input type=\"checkbox\" disabled aria-label=\"Open task\" /> one</li>\n<li class=\"task-list-item\"><input type=\"checkbox\" disabled checked aria-label=\"Done task\" /> two</li>\n<li>plain</li>\n</ul>\n"],
    ['- [ ] a\n  - [X] b\n    1. [ ] c\n    2. d\n  - e\n- [ ] f\n\n1. [x] g\n2. h\n',
      "<ul class=\"contains-task-list\">\n<li class=\"task-list-item\"><input type=\"checkbox\" disabled aria-label=\"Open task\" /> a\n<ul class=\"contains-task-list\">\n<li class=\"task-list-item\"><input type=\"checkbox\" disabled checked aria-label=\"Done task\" /> b\n<ol>\n<li class=\"task-list-item\"><input type=\"checkbox\" disabled aria-label=\"Open task\" /> c</li>\n<li>d</li>\n</ol>\n</li>\n<li>e</li>\n</ul>\n</li>\n<li class=\"task-list-item\"><input type=\"checkbox\" disabled aria-label=\"Open task\" /> f</li>\n</ul>\n<ol>\n<li class=\"task-list-item\"><input type=\"checkbox\" disabled checked aria-label=\"Done task\" /> g</li>\n<li>h</li>\n</ol>\n"],
    ['* [ ] loose\n\n* [x] items\n\n  with a paragraph\n\n- [ ]no space\n- [ ]\n-  [x] x\n',
      "<ul class=\"contains-task-list\">\n<li class=\"task-list-item\">\n<p><input type=\"checkbox\" disabled aria-label=\"Open task\" /> loose</p>\n</li>\n<li class=\"task-list-item\">\n<p><input type=\"checkbox\" disabled checked aria-label=\"Done task\" /> items</p>\n<p>with a paragraph</p>\n</li>\n</ul>\n<ul class=\"contains-task-list\">\n<li>[ ]no space</li>\n<li>[ ]</li>\n<li class=\"task-list-item\"><input type=\"checkbox\" disabled checked aria-label=\"Done task\" /> x</li>\n</ul>\n"],
    ['> - [ ] quoted\n> - [x] task\n\n- [ ] `code` **bold** #1\n',
      "<blockquote>\n<ul class=\"contains-task-list\">\n<li class=\"task-list-item\"><input type=\"checkbox\" disabled aria-label=\"Open task\" /> quoted</li>\n<li class=\"task-list-item\"><input type=\"checkbox\" disabled checked aria-label=\"Done task\" /> task</li>\n</ul>\n</blockquote>\n<ul class=\"contains-task-list\">\n<li class=\"task-list-item\"><input type=\"checkbox\" disabled aria-label=\"Open task\" /> <code>code</code> <strong>bold</strong> <a href=\"http://f/a/b/issues/1\" class=\"ref-issue\" rel=\"nofollow\">#1</a></li>\n</ul>\n"],
    ];
    const comment = (text: string) => render({ mode: 'comment', text, links: { app: 'http://f/', repo: 'http://f/a/b' }, breaks: true });
    for (const [text, html] of cases) expect(comment(text), text).to.equal(html);
    const long = comment('- [ ] a\n  - [x] b\n'.repeat(5000));
    expect(long.match(/<li class="task-list-item"><input type="checkbox" disabled aria-label="Open task" \/> a/g)).to.have.length(5000);
    expect(long.match(/<input type="checkbox" disabled checked aria-label="Done task" \/> b<\/li>/g)).to.have.length(5000);
    expect(long.match(/<ul class="contains-task-list">/g)).to.have.length(5001);
  });

  it('wiki links: `[[Page]]` links, an unclosed `[[` stays text however many there are', () => {
    const wiki = (text: string) => render({ mode: 'wiki', text, links: { app: 'http://f/', repo: 'http://f/a/b' } });
    expect(wiki('[[Home]] and [[Text|Other Page]], [[a]b]]')).to.equal('<p><a href="http://f/a/b/wiki/Home" rel="nofollow">Home</a> and <a href="http://f/a/b/wiki/Other-Page" rel="nofollow">Text</a>, [[a]b]]</p>\n');
    const open = wiki(`${'[[x '.repeat(20000)}[[End]]`);
    expect(open.match(/\[\[x/g)).to.have.length(20000);
    expect(open).to.include('<a href="http://f/a/b/wiki/End" rel="nofollow">End</a>');
  });

  it('a batch task renders each document alone: one that runs out of time shows as its escaped text, the others render', async () => {
    const slow = `<b>x</b> ${'* item with **bold** and [a link](x)\n'.repeat(40000)}`;
    const inputs = [{ mode: 'gfm' as const, text: '*a*', links: { app: 'http://f/' } }, { mode: 'gfm' as const, text: slow, links: { app: 'http://f/' } }];
    const out = await renderMarkupBatch({ inputs, timeoutMs: 200 });
    expect([Buffer.from(out[0].html).toString(), out[0].rendered]).to.deep.equal(['<p><em>a</em></p>\n', true]);
    expect(out[1].rendered).to.equal(false);
    expect(Buffer.from(out[1].html).toString().startsWith('<pre class="markup-plain">&lt;b&gt;x&lt;/b&gt; * item with **bold**')).to.equal(true);
  });

  describe('references (Gitea 1.24 rules)', () => {
    const links = { app: 'http://f/', repo: 'http://f/o/r' };
    const facts = { links, mentionable: ['bob'], commits: { abcdef1: 'abcdef1234567890abcdef1234567890abcdef12' } };
    const html = (mode: 'comment' | 'wiki' | 'gfm' | 'file' | 'markdown', text: string) => render({ mode, text, filePath: 'README.md', ...facts });
    const issue = (href: string, label: string) => `<a href="http://f/${href}" class="ref-issue" rel="nofollow">${label}</a>`;

    it('comments and wiki pages link #12 and !12 of the repository; files, READMEs and gfm only owner/repo#12; markdown none', () => {
      const text = 'See #3, !4 and Org/Repo#5, o/r!6.';
      for (const mode of ['comment', 'wiki'] as const) {
        expect(html(mode, text), mode).to.equal(`<p>See ${issue('o/r/issues/3', '#3')}, ${issue('o/r/pulls/4', '!4')} and ${issue('org/repo/issues/5', 'Org/Repo#5')}, ${issue('o/r/pulls/6', 'o/r!6')}.</p>\n`);
      }
      for (const mode of ['gfm', 'file'] as const) {
        expect(html(mode, text), mode).to.equal(`<p>See #3, !4 and ${issue('org/repo/issues/5', 'Org/Repo#5')}, ${issue('o/r/pulls/6', 'o/r!6')}.</p>\n`);
      }
      expect(html('markdown', text)).to.equal(`<p>${text}</p>\n`);
      // why: without a repository a short reference has nowhere to point; a full one still does.
      expect(render({ mode: 'comment', text, links: { app: 'http://f/' } })).to.equal(`<p>See #3, !4 and ${issue('org/repo/issues/5', 'Org/Repo#5')}, ${issue('o/r/pulls/6', 'o/r!6')}.</p>\n`);
    });

    it('keeps Gitea\'s boundaries: brackets and quotes around, sentence punctuation after, nothing glued on', () => {
      expect(html('comment', '(#1) [#2] "#3" \'#4\' #5: #6? #7!')).to.equal(`<p>(${issue('o/r/issues/1', '#1')}) [${issue('o/r/issues/2', '#2')}] "${issue('o/r/issues/3', '#3')}" '${issue('o/r/issues/4', '#4')}' ${issue('o/r/issues/5', '#5')}: ${issue('o/r/issues/6', '#6')}? ${issue('o/r/issues/7', '#7')}!</p>\n`);
      expect(html('comment', 'a#1 #2x #3.4 x/y#5z #99999999999999999999 #9223372036854775807')).to.equal(`<p>a#1 #2x #3.4 x/y#5z #99999999999999999999 ${issue('o/r/issues/9223372036854775807', '#9223372036854775807')}</p>\n`);
      expect(html('comment', '`#1` [#2](http://x.example/) **#3**')).to.equal(`<p><code>#1</code> <a href="http://x.example/" rel="nofollow">#2</a> <strong>${issue('o/r/issues/3', '#3')}</strong></p>\n`);
    });

    it('marks a closing or reopening keyword before a reference, as Gitea does', () => {
      expect(html('comment', 'Closes #1, fixes: o/r#2 and reopens!3; see #4')).to.equal(
        `<p><span class="issue-keyword">Closes</span> ${issue('o/r/issues/1', '#1')}, <span class="issue-keyword">fixes</span>: ${issue('o/r/issues/2', 'o/r#2')} and reopens!3; see ${issue('o/r/issues/4', '#4')}</p>\n`);
    });

    it('marks the configured keywords, not Gitea\'s defaults, when the deployment names its own', () => {
      const text = 'Fertig #1, fixes #2';
      expect(render({ mode: 'comment', text, ...facts, keywords: ['fertig', 'erneut'] })).to.equal(
        `<p><span class="issue-keyword">Fertig</span> ${issue('o/r/issues/1', '#1')}, fixes ${issue('o/r/issues/2', '#2')}</p>\n`);
      expect(render({ mode: 'comment', text, ...facts, keywords: [] })).to.equal(`<p>Fertig ${issue('o/r/issues/1', '#1')}, fixes ${issue('o/r/issues/2', '#2')}</p>\n`);
    });

    it('links mentions of users the reader may see, commit ids the repository holds and owner/repo@id', () => {
      expect(html('file', '@bob, @bob. (@bob) @bob\'s @nobody @Bob abcdef1 abcdef1; abcdef2 x/Y@abcdef1234567')).to.equal('<p>'
        + '<a href="http://f/bob" class="mention" rel="nofollow">@bob</a>, <a href="http://f/bob" class="mention" rel="nofollow">@bob</a>. '
        + '(<a href="http://f/bob" class="mention" rel="nofollow">@bob</a>) <a href="http://f/bob" class="mention" rel="nofollow">@bob</a>\'s @nobody '
        + '<a href="http://f/Bob" class="mention" rel="nofollow">@Bob</a> '
        + '<a href="http://f/o/r/commit/abcdef1234567890abcdef1234567890abcdef12" class="commit" rel="nofollow"><code>abcdef1</code></a> abcdef1; abcdef2 '
        + '<a href="http://f/x/Y/commit/abcdef1234567" class="commit" rel="nofollow">x/Y@abcdef1234</a></p>\n');
      expect(referenceCandidates('@bob, @Al.ice. abcdef1 abcdef1; x/y@abcdef2 (deadbee)')).to.deep.equal({ users: ['bob', 'al.ice'], shas: ['abcdef1', 'deadbee'] });
    });

    it('a commit message is escaped text with its references linked as in comments', () => {
      expect(render({ mode: 'comment', textOnly: true, text: 'Fix #3 <b>&</b>\n\n@bob abcdef1 *not markdown*', ...facts })).to.equal(
        `<span class="issue-keyword">Fix</span> ${issue('o/r/issues/3', '#3')} &lt;b&gt;&amp;&lt;/b&gt;\n\n<a href="http://f/bob" class="mention" rel="nofollow">@bob</a> `
        + '<a href="http://f/o/r/commit/abcdef1234567890abcdef1234567890abcdef12" class="commit" rel="nofollow"><code>abcdef1</code></a> *not markdown*');
    });
  });

  it('a render that runs past its time limit in the pool task is a 422, and the task renders again afterwards', async () => {
    const text = '* item with **bold** and [a link](x)\n'.repeat(40000);
    const err = await renderMarkup({ input: { mode: 'gfm', text, links: { app: 'http://f/' } }, timeoutMs: 1 }).then(() => null, (e: unknown) => e);
    expect(parseTaskError(err)).to.deep.equal({ status: 422, message: 'the document took longer than 0.001 s to render' });
    expect(await renderMarkup({ input: { mode: 'gfm', text: '*ok*', links: { app: 'http://f/' } }, timeoutMs: 5000 })).to.equal('<p><em>ok</em></p>\n');
  });
});
