/**
 * ANSI colours of a log line as text segments with class names (ansi_up's names: `ansi-red-fg`,
 * `ansi-bright-blue-bg`, `ansi-bold`), for the run page and its live fetch. The pages allow no
 * inline style, so colours are classes that forge.css maps; the text stays text (the template and
 * the script escape it), and every other escape sequence is dropped.
 */

const NAMES = ['black', 'red', 'green', 'yellow', 'blue', 'magenta', 'cyan', 'white'];

/** One run of text and the classes it is drawn with ('' for none). */
export type Segment = [cls: string, text: string];

interface Pen { fg: string; bg: string; bold: boolean; italic: boolean; underline: boolean; faint: boolean }
const plain = (): Pen => ({ fg: '', bg: '', bold: false, italic: false, underline: false, faint: false });

/** The colour of a 256-colour index when it is one of the 16 named ones; '' otherwise. */
function indexed(n: number): string {
  if (n >= 0 && n < 8) return NAMES[n];
  if (n >= 8 && n < 16) return `bright-${NAMES[n - 8]}`;
  return '';
}

/** Apply an SGR sequence's parameters to the pen. */
function apply(pen: Pen, params: number[]): void {
  for (let i = 0; i < params.length; i++) {
    const p = params[i];
    if (p === 0) Object.assign(pen, plain());
    else if (p === 1) pen.bold = true;
    else if (p === 2) pen.faint = true;
    else if (p === 3) pen.italic = true;
    else if (p === 4) pen.underline = true;
    else if (p === 22) { pen.bold = false; pen.faint = false; }
    else if (p === 23) pen.italic = false;
    else if (p === 24) pen.underline = false;
    else if (p >= 30 && p <= 37) pen.fg = NAMES[p - 30];
    else if (p === 39) pen.fg = '';
    else if (p >= 40 && p <= 47) pen.bg = NAMES[p - 40];
    else if (p === 49) pen.bg = '';
    else if (p >= 90 && p <= 97) pen.fg = `bright-${NAMES[p - 90]}`;
    else if (p >= 100 && p <= 107) pen.bg = `bright-${NAMES[p - 100]}`;
    else if (p === 38 || p === 48) {
      // why: 256-colour and true colour: the 16 named colours keep their class; other colours fall back to the default.
      const mode = params[i + 1];
      const colour = mode === 5 ? indexed(params[i + 2]) : '';
      i += mode === 5 ? 2 : mode === 2 ? 4 : 1;
      if (p === 38) pen.fg = colour;
      else pen.bg = colour;
    }
  }
}

function classes(pen: Pen): string {
  const c: string[] = [];
  if (pen.fg) c.push(`ansi-${pen.fg}-fg`);
  if (pen.bg) c.push(`ansi-${pen.bg}-bg`);
  if (pen.bold) c.push('ansi-bold');
  if (pen.faint) c.push('ansi-faint');
  if (pen.italic) c.push('ansi-italic');
  if (pen.underline) c.push('ansi-underline');
  return c.join(' ');
}

// CSI sequences (SGR and the cursor ones), OSC sequences (titles, links) and lone escapes.
// eslint-disable-next-line no-control-regex
const ESCAPES = /\x1b\[([0-9;?]*)([@-~])|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-_]?/g;

/** A log line's text as segments with their colour classes; a line without escapes is one plain segment. */
export function ansiSegments(line: string): Segment[] {
  if (!line.includes('\x1b')) return [['', line]];
  const out: Segment[] = [];
  const pen = plain();
  let at = 0;
  const push = (text: string) => {
    if (!text) return;
    const cls = classes(pen);
    const last = out[out.length - 1];
    if (last && last[0] === cls) last[1] += text;
    else out.push([cls, text]);
  };
  for (const m of line.matchAll(ESCAPES)) {
    push(line.slice(at, m.index));
    at = m.index + m[0].length;
    if (m[2] === 'm') apply(pen, (m[1] || '0').split(';').map((x) => Number(x) || 0));
  }
  push(line.slice(at));
  return out;
}
