/**
 * The blame page, `/{owner}/{repo}/blame/{branch|tag|commit}/{ref}/{path}`: each run of lines
 * with the commit that last changed it (author, subject, relative time), beside the highlighted
 * code. The table of a commit and path never changes; it is made once and kept.
 */
import express, { type Request, type Router } from 'express';
import { ctxOf } from '../../middleware/context';
import { WeightedLru } from '../../git/lru';
import { codeRepo } from '../../services/content/access';
import { blameAt, locateBrowse, type BlameView } from '../../services/content/browse.service';
import type { RefKind } from '../../services/content/raw.service';
import { time } from './helpers';
import { renderPage } from './render';
import { repoHeader } from './repo';
import { PageSlots } from './slots';
import { page } from './route';

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const tables = new WeightedLru<{ html: string; lines: number }>(64 * 1024 * 1024, (t) => t.html.length);

/** The blame as table rows: the commit of a run on its first line, every line numbered and linkable. */
function blameTable(v: BlameView, base: string): string {
  let html = '<table class="blame">';
  let flip = false;
  for (const h of v.blame.hunks) {
    const c = v.blame.commits.get(h.sha);
    flip = !flip;
    for (let n = h.start; n < h.start + h.lines; n++) {
      const first = n === h.start;
      const info = first && c
        ? `<td class="blame-info" rowspan="${h.lines}"><span class="blame-author">${esc(c.author)}</span> <a class="blame-subject" href="${base}/commit/${h.sha}">${esc(c.summary)}</a> <span class="blame-when">${time(c.time)}</span></td>`
        : '';
      html += `<tr class="${flip ? 'odd' : 'even'}${first ? ' first' : ''}">${info}<td class="num"><a id="L${n}" href="#L${n}">${n}</a></td><td class="line"><code>${v.lines[n - 1] ?? ''}</code></td></tr>`;
    }
  }
  return `${html}</table>`;
}

/** Blame routes. */
export function blamePages(): Router {
  const r = express.Router();
  const repo = '/:owner/:repo';
  for (const kind of ['branch', 'tag', 'commit'] as const) {
    r.get(`${repo}/blame/${kind}/*`, page(async (req: Request, res) => {
      const cr = await codeRepo(ctxOf(req), req.principal, String(req.params.owner), String(req.params.repo));
      const header = await repoHeader(req, cr, 'code');
      const loc = await locateBrowse(cr, kind as RefKind, String((req.params as unknown as Record<string, string>)[0] ?? ''));
      const key = `${cr.gitDir}\0${loc.commitId}\0${loc.treePath}`;
      let table = tables.get(key);
      if (!table) {
        const view = await blameAt(cr, loc);
        table = { html: blameTable(view, header.base), lines: view.blame.lines };
        tables.set(key, table);
      }
      const refPath = `${loc.refKind}/${loc.refKind === 'commit' ? loc.refName : loc.refName.split('/').map(encodeURIComponent).join('/')}`;
      const slots = new PageSlots();
      await renderPage(req, res, 'repo/blame', `Blame ${loc.treePath} at ${loc.refName} - ${cr.owner.name}/${cr.repo.name}`, {
        ...header, loc, refPath, filePath: loc.treePath.split('/').map(encodeURIComponent).join('/'), table: slots.put(Buffer.from(table.html)), lines: table.lines,
      }, 200, slots);
    }));
  }
  return r;
}
