/**
 * Rendering of user documents to safe HTML: the one entry point for the API, the pages and the
 * worker pool. Pure: no database, no git; what a document may link to is given by the caller.
 */
import { renderCsv } from './csv';
import { renderMarkdown, type LinkBase } from './markdown';
import { escapeHtml, sanitize } from './sanitize';

export type { LinkBase } from './markdown';
export { escapeHtml, sanitize } from './sanitize';
export { highlightFile, languageOf } from './highlight';

/** Gitea's render modes: `markdown` is plain CommonMark + GFM; the others add references. */
export const RENDER_MODES = ['markdown', 'gfm', 'comment', 'wiki', 'file'] as const;
export type RenderMode = (typeof RENDER_MODES)[number];

/** What to render, and what the document may link to. */
export interface RenderInput {
  mode: RenderMode;
  text: string;
  /** The document's path in its tree (`file` mode picks the renderer from its extension). */
  filePath?: string;
  links: LinkBase;
  /** Lower-case names of users `@name` may link to. */
  mentionable?: string[];
  /** Commit ids as written (lower-case) that exist, with their full id. */
  commits?: Record<string, string>;
  /** Single newlines become `<br>` (Gitea does so in comments by default). */
  breaks?: boolean;
  /** Show the text escaped instead of rendering it (a page's document over [markup] MAX_INPUT_SIZE). */
  plain?: boolean;
}

const MARKDOWN_FILE = /\.(md|markdown|mdown|mkd|livemd)$/i;
const CSV_FILE = /\.(csv|tsv)$/i;

/** Which renderer a file's name selects: Markdown, a CSV table, or plain text. */
export function fileRenderer(filePath: string): 'markdown' | 'csv' | 'text' {
  if (MARKDOWN_FILE.test(filePath)) return 'markdown';
  if (CSV_FILE.test(filePath)) return 'csv';
  return 'text';
}

/** Render a document to sanitized HTML. */
export function render(input: RenderInput): string {
  if (input.plain) return plainText(input.text);
  const kind = input.mode === 'file' ? fileRenderer(input.filePath ?? '') : 'markdown';
  if (kind === 'text') return escapeHtml(input.text);
  if (kind === 'csv') return sanitize(renderCsv(input.text, input.filePath ?? ''));
  return sanitize(renderMarkdown(input.text, {
    links: input.links,
    metas: input.mode !== 'markdown',
    wiki: input.mode === 'wiki',
    mentionable: new Set(input.mentionable ?? []),
    commits: new Map(Object.entries(input.commits ?? {})),
  }, input.breaks));
}

/** A document shown as its escaped text, for when it is not rendered (too large, out of time). */
export function plainText(text: string): string {
  return `<pre class="markup-plain">${escapeHtml(text)}</pre>`;
}

/** The `@name` candidates and commit-id candidates of a text, for the caller to check before rendering. */
export function referenceCandidates(text: string): { users: string[]; shas: string[] } {
  const users = new Set<string>();
  const shas = new Set<string>();
  for (const m of text.matchAll(/(?:^|[\s([])@([A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_])?)/g)) users.add(m[1].toLowerCase());
  for (const m of text.matchAll(/(?:^|[\s([])([0-9a-f]{7,64})(?=$|[\s)\]]|[.,:;?!](?:\s|$))/g)) shas.add(m[1]);
  return { users: [...users], shas: [...shas] };
}
