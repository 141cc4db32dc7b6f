/**
 * Gitea's references in text (its `modules/references` and the markup processors): `#12` and `!12`
 * (an issue, a pull request) of the document's repository, `owner/repo#12` and `owner/repo!12` of any
 * repository, `@user`, commit ids of the repository and `owner/repo@<id>`. Pure: what exists is
 * given by the caller. As in Gitea, an issue reference links whether or not the issue exists or the
 * reader may see it (the link's page answers that); a mention links only a user the reader may see,
 * and a bare commit id only one the repository holds.
 */

// why: Gitea's boundaries differ per kind. A reference starts the text or follows a space or an
// opening bracket (an issue number also a quote), and ends the text or comes before a space, a
// closing bracket or punctuation that ends a sentence.
const SHORT_ISSUE = /(?<=^|[\s(['"])[#!](\d+)(?=$|[\s)\]'"]|[:;,.?!](?:\s|$))/g;
const CROSS_ISSUE = /(?<=^|[\s([])([0-9a-zA-Z_.-]+)\/([0-9a-zA-Z_.-]+)([#!])(\d+)(?=$|[\s)\]]|[:;,.?!](?:\s|$))/g;
const MENTION = /(?<=^|[\s([])@([-\w][-.\w]*?)(?=$|\s|[:,;.?!](?:\s|$)|'|\)|\])/g;
const CROSS_COMMIT = /(?<=^|[\s([])([0-9a-zA-Z_.-]+)\/([0-9a-zA-Z_.-]+)@([0-9a-f]{7,64})(?=$|[\s)\]]|[:;,.?!](?:\s|$))/g;
const COMMIT = /(?<=^|[\s([])([0-9a-f]{7,64})(?=$|[\s)\]]|[.,:](?:\s|$))/g;
// why: Gitea's default [repository.pull-request] CLOSE_KEYWORDS and REOPEN_KEYWORDS, for a caller that gives none.
const DEFAULT_KEYWORDS = ['close', 'closes', 'closed', 'fix', 'fixes', 'fixed', 'resolve', 'resolves', 'resolved', 'reopen', 'reopens', 'reopened'];

/** A keyword pattern and how far back of a reference to look for it. */
interface KeywordPattern { re: RegExp | null; window: number }
const keywordPatterns = new Map<string, KeywordPattern>();

/**
 * The pattern of `words`: a keyword counts when it stands right before the reference, with an
 * optional colon and one space; the window is the longest keyword and four more characters, so it
 * cannot start inside a keyword.
 */
function keywordPattern(words: string[]): KeywordPattern {
  const key = words.join('\n');
  let p = keywordPatterns.get(key);
  if (!p) {
    const accepted = words.map((w) => w.trim().toLowerCase()).filter((w) => /^\p{L}+$/u.test(w));
    p = { re: accepted.length ? new RegExp(`(?<=^|[\\s([])(?:${accepted.join('|')})(?=:? $)`, 'iu') : null, window: Math.max(0, ...accepted.map((w) => w.length)) + 4 };
    if (keywordPatterns.size > 16) keywordPatterns.clear();
    keywordPatterns.set(key, p);
  }
  return p;
}
const MAX_INDEX = 2n ** 63n - 1n;
const NAME = /^[a-z0-9_.-]+$/;

/** What the text may link to besides issues. */
export interface ReferenceFacts {
  /** The forge's URL, ending with `/`. */
  app: string;
  /** The document's repository page (`<app>owner/name`); without it `#12` and commit ids stay text. */
  repo?: string;
  /** `#12` and `!12` link (comments, wiki pages); otherwise only `owner/repo#12` (files, READMEs). */
  short: boolean;
  /** Lower-case names an `@mention` may link to. */
  mentionable: Set<string>;
  /** Commit ids as written (lower-case) that the repository holds, with their full id. */
  commits: Map<string, string>;
  /** The words that close or reopen an issue before a reference, marked as keywords (Gitea's defaults when absent). */
  keywords?: string[];
}

/** A reference found in a text, with where it links. */
export interface Reference {
  start: number;
  end: number;
  href: string;
  /** `ref-issue`, `mention` or `commit`. */
  cls: 'ref-issue' | 'mention' | 'commit';
  label: string;
  /** The label is a commit id, shown as code. */
  code: boolean;
  /** A closing or reopening keyword right before an issue reference: where it starts and ends. */
  keyword?: { start: number; end: number };
}

/** Every reference of `text` that links, in order, none overlapping. */
export function findReferences(text: string, facts: ReferenceFacts): Reference[] {
  const found: Reference[] = [];
  for (const m of text.matchAll(MENTION)) {
    if (facts.mentionable.has(m[1].toLowerCase())) found.push(ref(m, `${facts.app}${m[1]}`, 'mention', m[0], false));
  }
  if (facts.short && facts.repo) {
    for (const m of text.matchAll(SHORT_ISSUE)) {
      if (validIndex(m[1])) found.push(issueRef(text, m, `${facts.repo}/${m[0][0] === '!' ? 'pulls' : 'issues'}/${m[1]}`, facts));
    }
  }
  for (const m of text.matchAll(CROSS_ISSUE)) {
    const [owner, name] = [m[1].toLowerCase(), m[2].toLowerCase()];
    if (NAME.test(owner) && NAME.test(name) && validIndex(m[4])) found.push(issueRef(text, m, `${facts.app}${owner}/${name}/${m[3] === '!' ? 'pulls' : 'issues'}/${m[4]}`, facts));
  }
  for (const m of text.matchAll(CROSS_COMMIT)) {
    found.push(ref(m, `${facts.app}${m[1]}/${m[2]}/commit/${m[3]}`, 'commit', `${m[1]}/${m[2]}@${m[3].slice(0, 10)}`, false));
  }
  if (facts.repo) {
    for (const m of text.matchAll(COMMIT)) {
      const full = facts.commits.get(m[1]);
      if (full) found.push(ref(m, `${facts.repo}/commit/${full}`, 'commit', m[1].slice(0, 10), true));
    }
  }
  // why: the patterns cannot overlap (each starts after a space or bracket and holds characters
  // the others' boundaries refuse), so the references only need putting in order.
  return found.sort((a, b) => a.start - b.start);
}

/** The `@name` candidates (lower-case) and commit-id candidates of a text, for the caller to check. */
export function referenceCandidates(text: string): { users: string[]; shas: string[] } {
  const users = new Set<string>();
  const shas = new Set<string>();
  for (const m of text.matchAll(MENTION)) users.add(m[1].toLowerCase());
  for (const m of text.matchAll(COMMIT)) shas.add(m[1]);
  return { users: [...users], shas: [...shas] };
}

function ref(m: RegExpMatchArray, href: string, cls: Reference['cls'], label: string, code: boolean): Reference {
  return { start: m.index!, end: m.index! + m[0].length, href, cls, label, code };
}

function issueRef(text: string, m: RegExpMatchArray, href: string, facts: ReferenceFacts): Reference {
  const r = ref(m, href, 'ref-issue', m[0], false);
  const kw = keywordPattern(facts.keywords ?? DEFAULT_KEYWORDS);
  const from = Math.max(0, r.start - kw.window);
  const k = kw.re?.exec(text.slice(from, r.start));
  if (k) r.keyword = { start: from + k.index, end: from + k.index + k[0].length };
  return r;
}

/** An issue number Gitea accepts: it fits a signed 64-bit integer. */
function validIndex(digits: string): boolean {
  return digits.length < 19 || (digits.length <= 20 && BigInt(digits) <= MAX_INDEX);
}

/** A plain text (a commit message) as HTML: escaped, with its references linked. */
export function linkReferences(text: string, facts: ReferenceFacts): string {
  let out = '';
  let last = 0;
  for (const r of findReferences(text, facts)) {
    const from = r.keyword?.start ?? r.start;
    out += escapeText(text.slice(last, from));
    if (r.keyword) out += `<span class="issue-keyword">${escapeText(text.slice(r.keyword.start, r.keyword.end))}</span>${escapeText(text.slice(r.keyword.end, r.start))}`;
    const label = r.code ? `<code>${escapeText(r.label)}</code>` : escapeText(r.label);
    out += `<a href="${escapeText(r.href)}" class="${r.cls}" rel="nofollow">${label}</a>`;
    last = r.end;
  }
  return out + escapeText(text.slice(last));
}

function escapeText(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
