/**
 * Markdown to HTML with markdown-it: CommonMark plus GFM (tables, strikethrough, task lists,
 * autolinks), emoji shortcodes and heading anchors with Gitea's `user-content-` prefix. Documents of a
 * repository also get Gitea's references (`#12`, `owner/repo#12`, `@user`, commit ids) and relative
 * links resolved against the repository, branch and folder they live in. The output is not yet
 * sanitized: `render` (index.ts) does that for every renderer.
 */
import path from 'node:path/posix';
import MarkdownIt from 'markdown-it';
import { highlightFence } from './highlight';
import { full as emoji } from 'markdown-it-emoji';
import { findReferences, type ReferenceFacts } from './references';

type StateCore = MarkdownIt.StateCore;
type StateInline = MarkdownIt.StateInline;
type Token = MarkdownIt.Token;

/** Where a document's links point. */
export interface LinkBase {
  /** The forge's absolute URL, ending with `/`. */
  app: string;
  /** The repository's page, `<app>owner/name`, when the document belongs to one. */
  repo?: string;
  /** `branch/main`, `tag/v1` or `commit/<id>`: the tree a file's relative links point into. */
  branchPath?: string;
  /** The folder of the document inside that tree (`` for the root). */
  treePath?: string;
}

/** What a Markdown document is rendered with. */
export interface MarkdownEnv {
  links: LinkBase;
  /** Turn `owner/repo#12`, `@user` and commit ids into links (every mode but `markdown`). */
  metas: boolean;
  /** Also `#12` and `!12` of the document's repository (comments and wiki pages, as Gitea's defaults). */
  shortRefs: boolean;
  /** A wiki page: `[[Page]]` links, relative links into the wiki. */
  wiki: boolean;
  /** Lower-case names of users an `@mention` may link to (they exist and the reader may see them). */
  mentionable: Set<string>;
  /** Commit ids as written in the text (lower-case) that exist in the repository, with their full id. */
  commits: Map<string, string>;
  /** The words that close or reopen an issue before a reference (Gitea's defaults when absent). */
  keywords?: string[];
}

// why: GFM's extended autolinks: `www.` hosts without a scheme; linkify-it's fuzzy mode would also link bare `example.com`.
const WWW_TAIL = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+(?::\d{1,5})?(?:[/?#](?:[^\s<]*[^\s<?!.,:*_~'")\]])?)?/i;

function build(breaks: boolean): MarkdownIt.MarkdownIt {
  const md = new MarkdownIt({ html: true, linkify: true, breaks, highlight: highlightFence });
  md.use(emoji);
  md.linkify.add('www.', {
    validate: (text, pos) => WWW_TAIL.exec(text.slice(pos))?.[0].length ?? 0,
    normalize: (match) => { match.url = `http://${match.url}`; },
  });
  md.inline.ruler.before('link', 'wiki_link', wikiLink);
  md.core.ruler.after('emoji', 'forge_references', references);
  md.core.ruler.push('forge_links', links);
  md.core.ruler.push('forge_headings', headingIds);
  md.core.ruler.push('forge_task_lists', taskLists);
  md.renderer.rules.emoji = (tokens, idx) => `<span class="emoji" aria-label="${md.utils.escapeHtml(tokens[idx].markup.replace(/_/g, ' '))}">${tokens[idx].content}</span>`;
  return md;
}

const parsers = new Map<boolean, MarkdownIt.MarkdownIt>();

/** Render Markdown to (unsanitized) HTML; `breaks` turns single newlines into `<br>` (Gitea's comments). */
export function renderMarkdown(text: string, env: MarkdownEnv, breaks = false): string {
  let md = parsers.get(breaks);
  if (!md) parsers.set(breaks, (md = build(breaks)));
  return md.render(text, { forge: env });
}

function forgeEnv(state: { env: unknown }): MarkdownEnv {
  return (state.env as { forge: MarkdownEnv }).forge;
}

const IMAGE_EXT = /\.(png|jpe?g|gif|webp|avif|svg|bmp|ico)$/i;
const SCHEME = /^[a-z][a-z0-9+.-]*:/i;

/** A repository-relative link or image source made absolute for where the document lives. */
export function resolveLink(href: string, links: LinkBase, wiki: boolean, image: boolean): string {
  if (href.startsWith('#')) return href.startsWith('#user-content-') ? href : `#user-content-${href.slice(1)}`;
  if (href === '' || SCHEME.test(href) || href.startsWith('/') || !links.repo) return href;
  // why: `..` may climb to the tree's root, never out of the repository's URL space.
  const inTree = (dir: string) => path.join('/', dir, href).slice(1);
  if (wiki) return `${links.repo}/wiki/${image ? 'raw/' : ''}${inTree('')}`;
  if (links.branchPath !== undefined) return `${links.repo}/${image ? 'media' : 'src'}/${links.branchPath}/${inTree(links.treePath ?? '')}`;
  return `${links.repo}/${inTree('')}`;
}

const WIKI_NAME_END = /[\n[\]]/g;

/** `[[Page]]`, `[[Text|Page]]` and `[[image.png]]` in wiki pages, as Gitea's wiki reads them. */
function wikiLink(state: StateInline, silent: boolean): boolean {
  const env = forgeEnv(state);
  if (!env.wiki || !state.src.startsWith('[[', state.pos)) return false;
  // why: the name ends at the first bracket or line break; searching for `]]` past those made every
  // unclosed `[[` scan the rest of the text (quadratic in the number of them).
  WIKI_NAME_END.lastIndex = state.pos + 2;
  const stop = WIKI_NAME_END.exec(state.src);
  const end = stop?.index ?? -1;
  if (end < 0 || !state.src.startsWith(']]', end)) return false;
  const inner = state.src.slice(state.pos + 2, end);
  if (inner === '') return false;
  if (!silent) {
    const bar = inner.indexOf('|');
    const label = (bar >= 0 ? inner.slice(0, bar) : inner).trim();
    const target = (bar >= 0 ? inner.slice(bar + 1) : inner).trim();
    if (IMAGE_EXT.test(target)) {
      const src = resolveLink(target, env.links, true, true);
      const open = state.push('link_open', 'a', 1);
      open.attrs = [['href', src]];
      const img = state.push('image', 'img', 0);
      img.attrs = [['src', src], ['alt', target], ['title', path.basename(target)]];
      const alt = new state.Token('text', '', 0);
      alt.content = target;
      img.children = [alt];
      img.content = target;
      state.push('link_close', 'a', -1);
    } else {
      const open = state.push('link_open', 'a', 1);
      open.attrs = [['href', resolveLink(target.replace(/ /g, '-'), env.links, true, false)]];
      state.push('text', '', 0).content = label;
      state.push('link_close', 'a', -1);
    }
  }
  state.pos = end + 2;
  return true;
}

/** Issue and pull references, mentions and commit ids in text outside links and code become links. */
function references(state: StateCore): void {
  const env = forgeEnv(state);
  if (!env.metas) return;
  const facts: ReferenceFacts = { app: env.links.app, repo: env.links.repo, short: env.shortRefs, mentionable: env.mentionable, commits: env.commits, keywords: env.keywords };
  for (const block of state.tokens) {
    if (block.type !== 'inline' || !block.children) continue;
    const out: Token[] = [];
    let inLink = 0;
    for (const t of block.children) {
      if (t.type === 'link_open') inLink++;
      if (t.type === 'link_close') inLink--;
      if (t.type !== 'text' || inLink > 0) {
        out.push(t);
        continue;
      }
      splitReferences(state, t, facts, out);
    }
    block.children = out;
  }
}

function splitReferences(state: StateCore, t: Token, facts: ReferenceFacts, out: Token[]): void {
  const text = t.content;
  const refs = findReferences(text, facts);
  if (refs.length === 0) {
    out.push(t);
    return;
  }
  const push = (type: string, tag: string, nesting: -1 | 0 | 1, content = '') => {
    const tok = new state.Token(type, tag, nesting);
    tok.content = content;
    out.push(tok);
    return tok;
  };
  let last = 0;
  for (const r of refs) {
    const from = r.keyword?.start ?? r.start;
    if (from > last) push('text', '', 0, text.slice(last, from));
    if (r.keyword) {
      push('html_inline', '', 0, '<span class="issue-keyword">');
      push('text', '', 0, text.slice(r.keyword.start, r.keyword.end));
      push('html_inline', '', 0, '</span>');
      push('text', '', 0, text.slice(r.keyword.end, r.start));
    }
    push('link_open', 'a', 1).attrs = [['href', r.href], ['class', r.cls]];
    if (r.code) push('code_inline', 'code', 0, r.label);
    else push('text', '', 0, r.label);
    push('link_close', 'a', -1);
    last = r.end;
  }
  if (last < text.length) push('text', '', 0, text.slice(last));
}

/** Relative links and images resolved, `rel="nofollow"` on every link (as Gitea). */
function links(state: StateCore): void {
  const env = forgeEnv(state);
  for (const block of state.tokens) {
    for (const t of block.children ?? []) {
      if (t.type === 'link_open') {
        const href = t.attrGet('href');
        if (href !== null) t.attrSet('href', resolveLink(String(href), env.links, env.wiki, false));
        t.attrSet('rel', 'nofollow');
      } else if (t.type === 'image') {
        const src = t.attrGet('src');
        if (src !== null) t.attrSet('src', resolveLink(String(src), env.links, env.wiki, true));
      }
    }
  }
}

/** A heading's anchor as Gitea writes it: lower case, letters, digits, `-` and `_`, spaces as `-`. */
export function slugify(text: string): string {
  return text.trim().toLowerCase().replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '').replace(/\s/g, '-');
}

function headingIds(state: StateCore): void {
  const seen = new Map<string, number>();
  state.tokens.forEach((t, i) => {
    if (t.type !== 'heading_open') return;
    const text = (state.tokens[i + 1].children ?? []).filter((c) => c.type === 'text' || c.type === 'code_inline').map((c) => c.content).join('');
    const base = slugify(text);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    t.attrSet('id', `user-content-${n ? `${base}-${n}` : base}`);
  });
}

const TASK = /^\[([ xX])\][ \t]/;

/** GFM task lists: a list item's paragraph that starts with `[ ]` or `[x]` gets a read-only checkbox. */
function taskLists(state: StateCore): void {
  const tokens = state.tokens;
  // why: the lists open around each token, kept as a stack while walking forward once; looking back
  // for an item's list from every item cost time quadratic in the number of items.
  const open: Token[] = [];
  const marked = new Set<Token>();
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (t.type === 'bullet_list_open' || t.type === 'ordered_list_open') open.push(t);
    else if (t.type === 'bullet_list_close' || t.type === 'ordered_list_close') open.pop();
    if (i < 2 || t.type !== 'inline' || tokens[i - 1].type !== 'paragraph_open' || tokens[i - 2].type !== 'list_item_open') continue;
    const first = t.children?.[0];
    const m = first?.type === 'text' ? TASK.exec(first.content) : null;
    if (!first || !m) continue;
    first.content = first.content.slice(m[0].length);
    const box = new state.Token('html_inline', '', 0);
    box.content = `<input type="checkbox" disabled=""${m[1] === ' ' ? '' : ' checked=""'}> `;
    t.children!.unshift(box);
    tokens[i - 2].attrJoin('class', 'task-list-item');
    const list = open[open.length - 1];
    if (list && !marked.has(list)) {
      marked.add(list);
      list.attrJoin('class', 'contains-task-list');
    }
  }
}
