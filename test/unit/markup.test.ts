/**
 * The renderer alone: the CommonMark spec's examples in `markdown` mode, the deliberate differences
 * named (GFM autolinks, Gitea's link attributes and heading anchors), and the pool task's time limit.
 */
import { expect } from 'chai';
import { render, sanitize } from '../../src/markup';
import { renderMarkup } from '../../workers/tasks/markup';
import { parseTaskError } from '../../workers/errors';

const spec = require('commonmark-spec') as { tests: { markdown: string; html: string; number: number; section: string }[] };

/**
 * The forms both sides are compared in. The spec's HTML goes through the same allowlist as ours
 * (raw HTML that the sanitizer drops is a deliberate difference); what the forge adds to every
 * document on purpose, `rel="nofollow"` and Gitea's `user-content-` heading anchors, is taken out.
 */
function comparable(html: string): string {
  return html.replace(/ rel="nofollow"/g, '').replace(/(<h[1-6]) id="user-content-[^"]*"/g, '$1').replace(/href="#user-content-/g, 'href="#')
    .replace(/\s+/g, ' ').replace(/> </g, '><').trim();
}

describe('markup renderer', () => {
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

  it('a render that runs past its time limit in the pool task is a 422, and the task renders again afterwards', async () => {
    const text = '* item with **bold** and [a link](x)\n'.repeat(40000);
    const err = await renderMarkup({ input: { mode: 'gfm', text, links: { app: 'http://f/' } }, timeoutMs: 1 }).then(() => null, (e: unknown) => e);
    expect(parseTaskError(err)).to.deep.equal({ status: 422, message: 'the document took longer than 0.001 s to render' });
    expect(await renderMarkup({ input: { mode: 'gfm', text: '*ok*', links: { app: 'http://f/' } }, timeoutMs: 5000 })).to.equal('<p><em>ok</em></p>\n');
  });
});
