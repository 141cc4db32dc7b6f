/**
 * Finding issue references in text, with Gitea's grammar (modules/references): `#12`, `!12` and
 * `owner/repo#12` between Gitea's boundaries, links to this forge's issue and pull request pages,
 * and an action keyword right before a reference (`Fixes #1`, `closes owner/repo#2`), taken from
 * `[repository.pull-request] CLOSE_KEYWORDS` and `REOPEN_KEYWORDS`. Pure: nothing is looked up;
 * the caller resolves the references to issues and checks who may act on them.
 */
import MarkdownIt from 'markdown-it';
import { settings } from '../../config';

/** What a reference asks of the referenced issue (Gitea's XRefAction, stored as comment.ref_action). */
export enum RefAction { None = 0, Closes = 1, Reopens = 2, Neutered = 3 }

/** An unverified reference: an issue number, in another repository when `owner` is set. */
export interface IssueReference { index: number; owner: string; name: string; action: RefAction; isPull: boolean }

// why: Go's \s (RE2) is ASCII whitespace only; JavaScript's would also take Unicode spaces.
const S = '[\\t\\n\\f\\r ]';
const END = `(?:${S}|$|\\)|\\]|[:;,.?!]${S}|[:;,.?!]$)`;
const NUMERIC = new RegExp(`(?:${S}|^|\\(|\\[|'|")([#!][0-9]+)(?:${S}|$|\\)|\\]|'|"|[:;,.?!]${S}|[:;,.?!]$)`);
const CROSS = new RegExp(`(?:${S}|^|\\(|\\[)([0-9a-zA-Z-_.]+/[0-9a-zA-Z-_.]+[#!][0-9]+)${END}`);
const VALID_NAME = /^[a-z0-9_.-]+$/;

interface Keywords { close: RegExp | null; reopen: RegExp | null; window: number; source: string }
let keywords: Keywords | null = null;

function keywordPattern(words: string[]): RegExp | null {
  const accepted = words.map((w) => w.trim().toLowerCase()).filter((w) => /^\p{L}+$/u.test(w));
  return accepted.length ? new RegExp(`(?:${S}|^|\\(|\\[)(${accepted.join('|')}):? $`, 'iu') : null;
}

/** The keyword patterns of the current settings (built again when the settings' lists change). */
function currentKeywords(): Keywords {
  const { closeKeywords, reopenKeywords } = settings().repositoryPullRequest;
  const source = `${closeKeywords.join(',')}\n${reopenKeywords.join(',')}`;
  if (keywords?.source !== source) {
    // why: as Gitea, a keyword ends right before the reference (an optional colon, one space), so
    // looking back the longest keyword plus four characters finds every match.
    const longest = Math.max(0, ...[...closeKeywords, ...reopenKeywords].map((w) => w.trim().length));
    keywords = { close: keywordPattern(closeKeywords), reopen: keywordPattern(reopenKeywords), window: longest + 4, source };
  }
  return keywords;
}

/** The action keyword that ends right before `start`, if any. */
function actionBefore(content: string, start: number): RefAction {
  const k = currentKeywords();
  const prefix = content.slice(Math.max(0, start - k.window), start);
  if (k.close?.test(prefix)) return RefAction.Closes;
  if (k.reopen?.test(prefix)) return RefAction.Reopens;
  return RefAction.None;
}

/** The reference written in content[start, end): `#12`, `!12` or `owner/repo#12`. */
function referenceAt(content: string, start: number, end: number, fromLink: boolean): IssueReference | null {
  const text = content.slice(start, end);
  const sep = text.search(/[#!]/);
  if (sep < 0) return null;
  const index = Number(text.slice(sep + 1));
  if (!/^[0-9]+$/.test(text.slice(sep + 1)) || !Number.isSafeInteger(index)) return null;
  const isPull = text[sep] === '!';
  const repo = text.slice(0, sep);
  const action = fromLink ? RefAction.None : actionBefore(content, start);
  if (repo === '') return fromLink ? null : { index, owner: '', name: '', action, isPull };
  const parts = repo.toLowerCase().split('/');
  if (parts.length !== 2 || !VALID_NAME.test(parts[0]) || !VALID_NAME.test(parts[1])) return null;
  return { index, owner: parts[0], name: parts[1], action, isPull };
}

/**
 * Every match of `re`'s first group, searching again right after each one.
 * why: Gitea matches on the rest of the text after each reference, so the boundary that ended one
 * reference (a space) can start the next, and `^` matches where that search starts.
 */
function scan(content: string, re: RegExp, out: IssueReference[]): void {
  let pos = 0;
  for (;;) {
    const rest = content.slice(pos);
    const m = re.exec(rest);
    if (!m) return;
    const start = pos + m.index + m[0].indexOf(m[1]);
    const end = start + m[1].length;
    const ref = referenceAt(content, start, end, false);
    if (ref) out.push(ref);
    pos = end;
  }
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** `<root>owner/repo/issues/12` -> `owner/repo#12` (`!12` for pulls), as Gitea shortens full links in plain text. */
function shortenLinks(content: string): string {
  const root = settings().server.rootUrl.trim();
  if (!root || !content.includes(root)) return content;
  const re = new RegExp(`(${S}|^|\\(|\\[)${escapeRegExp(root)}([0-9a-zA-Z-_.]+/[0-9a-zA-Z-_.]+)/(issues|pulls)/([0-9]+)${END}`);
  let out = '';
  let rest = content;
  for (;;) {
    const m = re.exec(rest);
    if (!m) return out + rest;
    const short = `${m[1]}${m[2]}${m[3] === 'pulls' ? '!' : '#'}${m[4]}`;
    const tail = m.index + m[1].length + root.length + m[2].length + 1 + m[3].length + 1 + m[4].length;
    out += rest.slice(0, m.index) + short;
    rest = rest.slice(tail);
  }
}

function findInText(content: string, links: string[]): IssueReference[] {
  const out: IssueReference[] = [];
  scan(content, NUMERIC, out);
  scan(content, CROSS, out);
  const rootUrl = settings().server.rootUrl;
  const host = new URL(rootUrl).host.toLowerCase();
  for (const link of links) {
    let u: URL;
    try { u = new URL(link, rootUrl); } catch { continue; }
    if (u.host.toLowerCase() !== host) continue;
    const parts = u.pathname.split('/');
    if (parts.length !== 5 || parts[0] !== '') continue;
    const sep = parts[3] === 'issues' ? '#' : parts[3] === 'pulls' ? '!' : '';
    if (!sep) continue;
    const text = `${parts[1]}/${parts[2]}${sep}${parts[4]}`;
    const ref = referenceAt(text, 0, text.length, true);
    if (ref) out.push(ref);
  }
  return out;
}

/** The references of plain text (commit messages, titles); full links to this forge's issues count. */
export function findIssueReferences(text: string): IssueReference[] {
  if (!mayReference(text)) return [];
  return findInText(shortenLinks(text), []);
}

// why: the same parser options as rendering (linkify), so a bare link counts as the reader sees it.
const md = new MarkdownIt({ html: true, linkify: true });

/**
 * The text of a Markdown document as Gitea's mdstripper reads it for references: the words of its
 * paragraphs, headings, lists and tables, without code (blocks or inline) or raw HTML; links are
 * collected apart (their text is not searched).
 */
function stripMarkdown(text: string): { plain: string; links: string[] } {
  const parts: string[] = [];
  const links: string[] = [];
  for (const block of md.parse(text, {})) {
    if (block.type !== 'inline' || !block.children) continue;
    let line = '';
    let inLink = 0;
    for (const t of block.children) {
      if (t.type === 'link_open') {
        links.push(String(t.attrGet('href') ?? ''));
        inLink++;
      } else if (t.type === 'link_close') {
        inLink = Math.max(0, inLink - 1);
      } else if (inLink > 0) {
        continue;
      } else if (t.type === 'text') {
        line += t.content;
      } else if (t.type === 'code_inline') {
        // why: as Gitea's mdstripper, inline code is no reference; a space keeps the words around it apart.
        line += ' ';
      } else if (t.type === 'softbreak' || t.type === 'hardbreak') {
        line += '\n';
      }
    }
    parts.push(line);
  }
  return { plain: parts.join('\n'), links };
}

/** The references of a Markdown document (bodies, comments, reviews). */
export function findIssueReferencesMarkdown(text: string): IssueReference[] {
  if (!mayReference(text)) return [];
  const { plain, links } = stripMarkdown(text);
  return findInText(plain, links);
}

/** Can the text hold a reference at all? A cheap test before any parsing. */
export function mayReference(text: string): boolean {
  return /[#!][0-9]/.test(text) || /\/(issues|pulls)\/[0-9]/.test(text);
}
