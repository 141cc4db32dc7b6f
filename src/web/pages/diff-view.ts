/**
 * A diff's files as HTML tables, unified or split, with highlighted code, a comment button on each
 * line (shown by the page only to those who may comment) and the place after each line where its
 * conversation goes. A file's table depends only on the two commits, so it is made once and kept;
 * the threads of the moment are put into it per request.
 */
import { highlightLines } from '../../markup';
import type { DiffFile, DiffLine } from './diff';

/** A file of a diff with its table. */
export interface ShownFile extends Omit<DiffFile, 'lines'> {
  html: string;
  /** For `R<new line>` and `L<old line>`: the offset in `html` just after that line's row. */
  anchors: Map<string, number>;
  /** Columns of a row, for a row that spans them all. */
  columns: number;
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** The highlighted HTML of each line of a file's diff (each side highlighted as a whole per hunk). */
function highlighted(f: DiffFile): string[] {
  const out: string[] = new Array(f.lines.length).fill('');
  const name = f.newPath || f.oldPath;
  let start = 0;
  const flush = (end: number) => {
    for (const side of ['old', 'new'] as const) {
      const idx: number[] = [];
      for (let k = start; k < end; k++) {
        const l = f.lines[k];
        if (l.kind === 'ctx' ? side === 'new' : l.kind === (side === 'new' ? 'add' : 'del')) idx.push(k);
      }
      if (idx.length === 0) continue;
      const html = highlightLines(idx.map((k) => f.lines[k].text).join('\n'), name);
      idx.forEach((k, n) => { out[k] = html[n] ?? ''; });
    }
  };
  f.lines.forEach((l, k) => {
    if (l.kind === 'hunk') {
      flush(k);
      out[k] = esc(l.text);
      start = k + 1;
    }
  });
  flush(f.lines.length);
  return out;
}

const button = (side: 'L' | 'R', n: number) => `<button type="button" class="add-line-comment" data-side="${side}" data-line="${n}" aria-label="Comment on line ${side}${n}">+</button>`;
const SIGN: Record<DiffLine['kind'], string> = { add: '+', del: '-', ctx: ' ', hunk: '' };

/** A file's table: one column of code with both line numbers (unified), or old and new side by side (split). */
export function diffTable(f: DiffFile, split: boolean): ShownFile {
  const { lines, ...rest } = f;
  const code = highlighted(f);
  const anchors = new Map<string, number>();
  let html = `<table class="diff ${split ? 'split' : 'unified'}" data-path="${esc(f.newPath || f.oldPath)}">`;
  const row = (cls: string, cells: string, keys: string[]) => {
    html += `<tr class="${cls}">${cells}</tr>`;
    for (const k of keys) anchors.set(k, html.length);
  };
  const num = (n: number | null) => `<td class="num">${n ?? ''}</td>`;
  if (!split) {
    lines.forEach((l, k) => {
      if (l.kind === 'hunk') return row('hunk', `<td class="num"></td><td class="num"></td><td class="line"><code>${code[k]}</code></td>`, []);
      const side = l.newNo !== null ? button('R', l.newNo) : button('L', l.oldNo!);
      row(l.kind, `${num(l.oldNo)}${num(l.newNo)}<td class="line">${side}<code>${SIGN[l.kind]}${code[k]}</code></td>`,
        [...(l.newNo !== null ? [`R${l.newNo}`] : []), ...(l.oldNo !== null ? [`L${l.oldNo}`] : [])]);
    });
    html += '</table>';
    return { ...rest, html, anchors, columns: 3 };
  }
  // split: a run of deletions beside the run of additions that follows it; context on both sides
  for (let k = 0; k < lines.length;) {
    const l = lines[k];
    if (l.kind === 'hunk') {
      row('hunk', `<td class="num"></td><td class="line" colspan="3"><code>${code[k]}</code></td>`, []);
      k++;
    } else if (l.kind === 'ctx') {
      row('ctx', `${num(l.oldNo)}<td class="line">${button('L', l.oldNo!)}<code>${code[k]}</code></td>${num(l.newNo)}<td class="line">${button('R', l.newNo!)}<code>${code[k]}</code></td>`, [`L${l.oldNo}`, `R${l.newNo}`]);
      k++;
    } else {
      const dels: number[] = [];
      const adds: number[] = [];
      while (k < lines.length && lines[k].kind === 'del') dels.push(k++);
      while (k < lines.length && lines[k].kind === 'add') adds.push(k++);
      for (let n = 0; n < Math.max(dels.length, adds.length); n++) {
        const d = dels[n] !== undefined ? lines[dels[n]] : null;
        const a = adds[n] !== undefined ? lines[adds[n]] : null;
        const left = d ? `${num(d.oldNo)}<td class="line del">${button('L', d.oldNo!)}<code>${code[dels[n]]}</code></td>` : '<td class="num empty"></td><td class="line empty"></td>';
        const right = a ? `${num(a.newNo)}<td class="line add">${button('R', a.newNo!)}<code>${code[adds[n]]}</code></td>` : '<td class="num empty"></td><td class="line empty"></td>';
        row('pair', left + right, [...(d ? [`L${d.oldNo}`] : []), ...(a ? [`R${a.newNo}`] : [])]);
      }
    }
  }
  html += '</table>';
  return { ...rest, html, anchors, columns: 4 };
}

/**
 * The table with rows added after lines: `after` maps `R<n>`/`L<n>` to the HTML of the rows to put
 * there. Rows for a line the table does not show are returned apart (they are outdated here).
 */
export function tableWith(f: ShownFile, after: Map<string, string>): { html: string; unplaced: string[] } {
  const cuts: [number, string][] = [];
  const unplaced: string[] = [];
  for (const [key, rows] of after) {
    const at = f.anchors.get(key);
    if (at === undefined) unplaced.push(rows);
    else cuts.push([at, rows]);
  }
  if (cuts.length === 0) return { html: f.html, unplaced };
  cuts.sort((a, b) => a[0] - b[0]);
  let html = '';
  let from = 0;
  for (const [at, rows] of cuts) {
    html += f.html.slice(from, at) + rows;
    from = at;
  }
  return { html: html + f.html.slice(from), unplaced };
}
