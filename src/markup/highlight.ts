/**
 * Source files as highlighted HTML (highlight.js, language from the file name; no guessing, which
 * costs more than the highlighting). The output holds only spans with `hljs-*` classes and escaped
 * text, and is one `<code>` body; line numbers are the page's business.
 */
import { escapeHtml } from './sanitize';

/** The part of highlight.js used here. why: its own types pull the DOM library into the whole server's compilation. */
interface Highlighter {
  getLanguage(name: string): object | undefined;
  highlight(code: string, opts: { language: string; ignoreIllegals: boolean }): { value: string };
}
const hljs = require('highlight.js') as Highlighter;

const BY_NAME: Record<string, string> = { dockerfile: 'dockerfile', makefile: 'makefile', gnumakefile: 'makefile', 'cmakelists.txt': 'cmake', gemfile: 'ruby', rakefile: 'ruby', jenkinsfile: 'groovy' };

/** The highlight.js language of a file, or null for plain text. */
export function languageOf(fileName: string): string | null {
  const base = fileName.slice(fileName.lastIndexOf('/') + 1).toLowerCase();
  if (BY_NAME[base]) return BY_NAME[base];
  const dot = base.lastIndexOf('.');
  if (dot <= 0 && !base.startsWith('.')) return null;
  const ext = base.slice(dot + 1);
  // why: plain text gains nothing from the highlighter but its cost.
  if (ext === 'txt' || ext === 'text') return null;
  return hljs.getLanguage(ext) ? ext : null;
}

/** The highlighted HTML of a text file and its number of lines. */
export function highlightFile(text: string, fileName: string): { html: string; lines: number; language: string | null } {
  const language = languageOf(fileName);
  const body = text.endsWith('\n') ? text.slice(0, -1) : text;
  const lines = body === '' ? 0 : body.split('\n').length;
  const html = language ? hljs.highlight(body, { language, ignoreIllegals: true }).value : escapeHtml(body);
  return { html, lines, language };
}

/**
 * A text highlighted as a whole (so a comment or string spanning lines keeps its colour) and cut
 * into one HTML string per line.
 */
export function highlightLines(text: string, fileName: string): string[] {
  const language = languageOf(fileName);
  if (!language) return text.split('\n').map(escapeHtml);
  return splitHighlighted(hljs.highlight(text, { language, ignoreIllegals: true }).value);
}

/**
 * Highlighted HTML (spans and escaped text) cut into one string per line: the spans open at a
 * line's end are closed there and opened again on the next line, so each line stands alone.
 */
export function splitHighlighted(html: string): string[] {
  const out: string[] = [];
  const open: string[] = [];
  let line = '';
  for (const part of html.split(/(<span [^>]*>|<\/span>|\n)/)) {
    if (part === '\n') {
      out.push(line + '</span>'.repeat(open.length));
      line = open.join('');
    } else if (part.startsWith('<span ')) {
      open.push(part);
      line += part;
    } else if (part === '</span>') {
      open.pop();
      line += part;
    } else {
      line += part;
    }
  }
  out.push(line + '</span>'.repeat(open.length));
  return out;
}

/**
 * A fenced code block of a document highlighted by its info string's language (`ts`, `go`, ...),
 * or '' when the language is unknown (the caller then escapes it as plain text).
 */
export function highlightFence(code: string, lang: string): string {
  const name = lang.trim().split(/\s+/)[0]?.toLowerCase() ?? '';
  if (!name || name === 'text' || name === 'txt' || !hljs.getLanguage(name)) return '';
  return hljs.highlight(code, { language: name, ignoreIllegals: true }).value;
}
