/**
 * Rendering of user documents to safe HTML: the one entry point for the API, the pages and the
 * worker pool. Pure: no database, no git; what a document may link to is given by the caller.
 */
import { renderCsv } from './csv';
import { renderMarkdown, type LinkBase } from './markdown';
import { linkReferences } from './references';
import { escapeHtml, sanitize } from './sanitize';

export type { LinkBase } from './markdown';
export { referenceCandidates } from './references';
export { escapeHtml, sanitize } from './sanitize';
export { highlightFile, highlightLines, languageOf, splitHighlighted } from './highlight';

/** Gitea's render modes: `markdown` is plain CommonMark + GFM; the others add references (`#12` only `comment` and `wiki`). */
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
  /** The text is not Markdown (a commit message): escaped, with its references linked as the mode links them. */
  textOnly?: boolean;
  /** The words that close or reopen an issue when they stand before a reference (marked); Gitea's defaults when absent. */
  keywords?: string[];
}

/** Gitea links `#12` and `!12` of the document's repository in comments and wiki pages; files and `gfm` get only `owner/repo#12`. */
function shortRefs(mode: RenderMode): boolean {
  return mode === 'comment' || mode === 'wiki';
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
  const mentionable = new Set(input.mentionable ?? []);
  const commits = new Map(Object.entries(input.commits ?? {}));
  if (input.textOnly) {
    if (input.mode === 'markdown') return escapeHtml(input.text);
    return linkReferences(input.text, { app: input.links.app, repo: input.links.repo, short: shortRefs(input.mode), mentionable, commits, keywords: input.keywords });
  }
  const kind = input.mode === 'file' ? fileRenderer(input.filePath ?? '') : 'markdown';
  if (kind === 'text') return escapeHtml(input.text);
  if (kind === 'csv') return sanitize(renderCsv(input.text, input.filePath ?? ''));
  return sanitize(renderMarkdown(input.text, {
    links: input.links,
    metas: input.mode !== 'markdown',
    shortRefs: shortRefs(input.mode),
    wiki: input.mode === 'wiki',
    mentionable,
    commits,
    keywords: input.keywords,
  }, input.breaks));
}

/** A document shown as its escaped text, for when it is not rendered (too large, out of time). */
export function plainText(text: string): string {
  return `<pre class="markup-plain">${escapeHtml(text)}</pre>`;
}

