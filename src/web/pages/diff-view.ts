/**
 * A diff's files as HTML tables, unified or split, with highlighted code. Line numbers sit in cells
 * of class `num o` (old side) and `num n` (new side): the page script finds a line's numbers there
 * to offer its comment form, and the threads of the moment are put after the row of their line.
 * A file's table depends only on the two commits, so it is made once and kept.
 * why: nothing per line beyond the numbers and the code; a diff of 1,000 files has 80,000 rows.
 */
import { highlightLines } from '../../markup';
import { WeightedLru } from '../../git/lru';
import { parseDiff, type DiffFile, type DiffLine } from './diff';

/** A file of a diff with its table. */
export interface ShownFile extends Omit<DiffFile, 'lines'> {
  html: string;
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

const SIGN: Record<DiffLine['kind'], string> = { add: '+', del: '-', ctx: ' ', hunk: '' };

/** A file's table: one column of code with both line numbers (unified), or old and new side by side (split). */
export function diffTable(f: DiffFile, split: boolean): ShownFile {
  const { lines, ...rest } = f;
  const code = highlighted(f);
  const parts: string[] = [`<table class="diff ${split ? 'split' : 'unified'}" data-path="${esc(f.newPath || f.oldPath)}">`];
  const old = (n: number | null) => `<td class="num o">${n ?? ''}</td>`;
  const neu = (n: number | null) => `<td class="num n">${n ?? ''}</td>`;
  if (!split) {
    lines.forEach((l, k) => {
      parts.push(l.kind === 'hunk'
        ? `<tr class="hunk"><td class="num"></td><td class="num"></td><td class="line"><code>${code[k]}</code></td></tr>`
        : `<tr class="${l.kind}">${old(l.oldNo)}${neu(l.newNo)}<td class="line"><code>${SIGN[l.kind]}${code[k]}</code></td></tr>`);
    });
    parts.push('</table>');
    return { ...rest, html: parts.join(''), columns: 3 };
  }
  // split: a run of deletions beside the run of additions that follows it; context on both sides
  for (let k = 0; k < lines.length;) {
    const l = lines[k];
    if (l.kind === 'hunk') {
      parts.push(`<tr class="hunk"><td class="num"></td><td class="line" colspan="3"><code>${code[k]}</code></td></tr>`);
      k++;
    } else if (l.kind === 'ctx') {
      parts.push(`<tr class="ctx">${old(l.oldNo)}<td class="line"><code>${code[k]}</code></td>${neu(l.newNo)}<td class="line"><code>${code[k]}</code></td></tr>`);
      k++;
    } else {
      const dels: number[] = [];
      const adds: number[] = [];
      while (k < lines.length && lines[k].kind === 'del') dels.push(k++);
      while (k < lines.length && lines[k].kind === 'add') adds.push(k++);
      for (let n = 0; n < Math.max(dels.length, adds.length); n++) {
        const d = dels[n] !== undefined ? lines[dels[n]] : null;
        const a = adds[n] !== undefined ? lines[adds[n]] : null;
        const left = d ? `${old(d.oldNo)}<td class="line del"><code>${code[dels[n]]}</code></td>` : '<td class="num empty"></td><td class="line empty"></td>';
        const right = a ? `${neu(a.newNo)}<td class="line add"><code>${code[adds[n]]}</code></td>` : '<td class="num empty"></td><td class="line empty"></td>';
        parts.push(`<tr class="pair">${left}${right}</tr>`);
      }
    }
  }
  parts.push('</table>');
  return { ...rest, html: parts.join(''), columns: 4 };
}

/**
 * The table with rows added after lines: `after` maps `R<n>` (new side) and `L<n>` (old side) to
 * the HTML of the rows to put after that line's row. Rows for a line the table does not show are
 * returned apart (they are outdated here).
 */
export function tableWith(f: ShownFile, after: Map<string, string>): { html: string; unplaced: string[] } {
  const cuts: [number, string][] = [];
  const unplaced: string[] = [];
  for (const [key, rows] of after) {
    const cell = f.html.indexOf(`<td class="num ${key[0] === 'R' ? 'n' : 'o'}">${key.slice(1)}</td>`);
    const end = cell < 0 ? -1 : f.html.indexOf('</tr>', cell);
    if (end < 0) unplaced.push(rows);
    else cuts.push([end + '</tr>'.length, rows]);
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

/**
 * A diff's files on pages of 100, as Gitea's [git] MAX_GIT_DIFF_FILES: the parsed diff of a pair
 * of commits is kept, and so is each file's table, made when a page first shows it.
 * why: a diff of 1,000 files parses in tens of milliseconds, but its tables are megabytes of HTML
 * a page never shows at once.
 */
export const DIFF_FILES_PER_PAGE = 100;

const parsed = new WeightedLru<DiffFile[]>(128 * 1024 * 1024, (fs) => fs.reduce((n, f) => n + 200 + f.lines.reduce((m, l) => m + l.text.length + 48, 0), 0));
const tables = new WeightedLru<ShownFile>(64 * 1024 * 1024, (t) => t.html.length + 200);

/** The files of the diff `key` names (two commits and a repository), from `load`'s text when not kept; null when too large. */
export async function diffOf(key: string, load: () => Promise<string | null>): Promise<DiffFile[] | null> {
  const known = parsed.get(key);
  if (known) return known;
  const text = await load();
  if (text === null) return null;
  const files = parseDiff(text);
  parsed.set(key, files);
  return files;
}

/** The tables of one page of a diff's files. */
export function pageTables(key: string, files: DiffFile[], pageNo: number, split: boolean): ShownFile[] {
  const first = (pageNo - 1) * DIFF_FILES_PER_PAGE;
  return files.slice(first, first + DIFF_FILES_PER_PAGE).map((f, k) => {
    const id = `${key}\0${first + k}\0${split}`;
    let t = tables.get(id);
    if (!t) {
      t = diffTable(f, split);
      tables.set(id, t);
    }
    return t;
  });
}
