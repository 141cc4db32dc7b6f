/**
 * ANSI colours of a log line as text segments with class names (`ansi-red-fg`,
 * `ansi-bright-blue-bg`, `ansi-bold`), for the run page and its live fetch. The SGR codes are read
 * by anser; the pages allow no inline style, so colours are classes that forge.css maps. The text
 * stays text (the template and the script escape it); titles, links and other OSC sequences,
 * which anser leaves in the text, are dropped first.
 */
import Anser from 'anser';

/** One run of text and the classes it is drawn with ('' for none). */
export type Segment = [cls: string, text: string];

const NAMES = ['black', 'red', 'green', 'yellow', 'blue', 'magenta', 'cyan', 'white'];
const DECORATIONS: Record<string, string> = { bold: 'ansi-bold', dim: 'ansi-faint', italic: 'ansi-italic', underline: 'ansi-underline' };

// OSC sequences (window titles, hyperlinks), ended by BEL or ST, or cut off at the line's end.
// eslint-disable-next-line no-control-regex
const OSC = /\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?/g;

/** Our class for anser's colour class (`ansi-red`, `ansi-bright-red`, `ansi-palette-9`); '' for colours with no name. */
function colour(cls: string | null, side: 'fg' | 'bg'): string {
  if (!cls) return '';
  const palette = /^ansi-palette-(\d+)$/.exec(cls);
  if (palette) {
    const n = Number(palette[1]);
    // why: of the 256 colours only the 16 named ones have a class of their own; others are drawn in the default colour.
    return n < 8 ? `ansi-${NAMES[n]}-${side}` : n < 16 ? `ansi-bright-${NAMES[n - 8]}-${side}` : '';
  }
  return cls === 'ansi-truecolor' ? '' : `${cls}-${side}`;
}

/** A log line's text as segments with their colour classes; a line without escapes is one plain segment. */
export function ansiSegments(line: string): Segment[] {
  if (!line.includes('\x1b')) return [['', line]];
  const out: Segment[] = [];
  for (const e of Anser.ansiToJson(line.replace(OSC, ''), { use_classes: true, remove_empty: true })) {
    const cls = [colour(e.fg, 'fg'), colour(e.bg, 'bg'), ...e.decorations.map((d) => DECORATIONS[d] ?? '')].filter(Boolean).join(' ');
    const last = out[out.length - 1];
    if (last && last[0] === cls) last[1] += e.content;
    else out.push([cls, e.content]);
  }
  return out;
}
