/**
 * Wiki page names, following Gitea's wiki_path.go. Three forms of one page:
 * - title (what people read): `Home Page`, `2000-01-02 meeting`;
 * - web path (`sub_url`, what the API takes in `{pageName}`): `Home-Page`, `2000-01-02+meeting.-`;
 * - git path (the file in the wiki repository): `Home-Page.md`, `2000-01-02 meeting.-.md`.
 * Spaces become `-` unless the title already holds a `-` or ends in `.md`; then the segment keeps its
 * spaces and gets the "dash marker" suffix `.-`. Segments are query-escaped as Go's url package does.
 * Pure functions, no I/O.
 */
import { isGitDirName } from '../content/paths';

/** Names the wiki's web routes use; a page may not be called so (Gitea's reservedWikiNames). */
export const RESERVED_WIKI_NAMES = ['_pages', '_new', '_edit', 'raw'];

const DASH_MARKER = '.-';

/** Go's url.QueryEscape: unreserved bytes stay, space is `+`, everything else `%XX` (upper case). */
export function queryEscape(s: string): string {
  let out = '';
  for (const b of Buffer.from(s, 'utf8')) {
    if ((b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a) || b === 0x2d || b === 0x5f || b === 0x2e || b === 0x7e) out += String.fromCharCode(b);
    else if (b === 0x20) out += '+';
    else out += `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

const HEX = /^[0-9A-Fa-f]{2}$/;

/** Go's url.QueryUnescape (`plus` true: `+` is a space) or url.PathUnescape; null on a malformed `%`. */
function unescape(s: string, plus: boolean): string | null {
  const parts: Buffer[] = [];
  let run = '';
  const flush = () => { if (run) parts.push(Buffer.from(run, 'utf8')); run = ''; };
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '%') {
      const hex = s.slice(i + 1, i + 3);
      if (!HEX.test(hex)) return null;
      flush();
      parts.push(Buffer.from([parseInt(hex, 16)]));
      i += 2;
    } else {
      run += plus && c === '+' ? ' ' : c;
    }
  }
  flush();
  return Buffer.concat(parts).toString('utf8');
}

/** Go's url.QueryUnescape; null when malformed. */
export const queryUnescape = (s: string) => unescape(s, true);
/** Go's url.PathUnescape; null when malformed. */
export const pathUnescape = (s: string) => unescape(s, false);

/** Clean one element as Go's path.Clean("/" + e) and return its segments (`..` never climbs out of the element). */
function cleanSegments(e: string): string[] {
  const out: string[] = [];
  for (const seg of e.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') out.pop();
    else out.push(seg);
  }
  return out;
}

/**
 * Gitea's util.PathJoinRelX: each element is cleaned on its own (backslashes are separators),
 * joined, and made relative; `..` can never leave the root. "" when every element is empty, "."
 * when the result is the root.
 */
export function pathJoinRelX(...elems: string[]): string {
  const given = elems.filter((e) => e !== '');
  if (given.length === 0) return '';
  const segs = given.flatMap((e) => cleanSegments(e.replace(/\\/g, '/')));
  return segs.length ? segs.join('/') : '.';
}

const hasDashMarker = (s: string) => s.endsWith(DASH_MARKER);

/** A web path segment back to its title text; `ok` false when its escapes are malformed (the text is still usable). */
function unescapeSegment(s: string): { text: string; ok: boolean } {
  const t = hasDashMarker(s) ? s.slice(0, -DASH_MARKER.length) : s.replace(/-/g, ' ');
  const u = queryUnescape(t);
  return u === null ? { text: t, ok: false } : { text: u, ok: true };
}

/** A title segment to its web form. */
function escapeSegToWeb(s: string, hadDashMarker: boolean): string {
  const t = hadDashMarker || s.includes('-') || s.endsWith('.md') ? `${s}${DASH_MARKER}` : s.replace(/ /g, '-');
  return queryEscape(t);
}

/** The titles of each segment of a web path. */
export function webPathSegments(wp: string): string[] {
  return wp.split('/').map((s) => unescapeSegment(s).text);
}

/**
 * The file of a web path: `<segment>.md` with spaces kept; a web path ending in `.md` names its
 * file directly (unescaped), so raw files can be reached.
 */
export function webPathToGitPath(wp: string): string {
  if (wp.endsWith('.md')) return pathJoinRelX(pathUnescape(wp) ?? '');
  const segs = wp.split('/').map((s) => {
    const marker = hasDashMarker(s);
    return escapeSegToWeb(unescapeSegment(s).text, marker).replace(/%20/g, ' ').replace(/\+/g, ' ');
  });
  return `${segs.join('/')}.md`;
}

/** The web path of a file, or null when the file is not a page (not `.md`, or malformed escapes). */
export function gitPathToWebPath(gp: string): string | null {
  if (!gp.endsWith('.md')) return null;
  const segs: string[] = [];
  for (const s of gp.slice(0, -3).split('/')) {
    const marker = hasDashMarker(s);
    const u = unescapeSegment(s);
    // why: Gitea answers 500 for such a file; a listing skips it instead, as it skips any non-page.
    if (!u.ok) return null;
    segs.push(escapeSegToWeb(u.text, marker));
  }
  return segs.join('/');
}

/** The title people read for a web path (its last segment). */
export function webPathToTitle(wp: string): string {
  const trimmed = wp.replace(/\/+$/, '');
  let display = trimmed === '' ? (wp === '' ? '.' : '/') : trimmed.slice(trimmed.lastIndexOf('/') + 1);
  if (display.endsWith('.md')) display = pathUnescape(display.slice(0, -3)) ?? '';
  return unescapeSegment(display).text;
}

/**
 * The web path the request's raw (still escaped) `{pageName}` names. why: as Gitea, slashes are kept
 * as `%2F` inside one segment (older wikis stored such names), never as subdirectories.
 */
export function webPathFromRequest(raw: string): string {
  return pathJoinRelX(raw).replace(/\//g, '%2F');
}

/** The web path of a new page's title (`unnamed` when nothing is left). */
export function titleToWebPath(title: string): string {
  const wp = pathJoinRelX(escapeSegToWeb(title.trim(), false));
  return wp === '' || wp === '.' ? 'unnamed' : wp;
}

/** The reserved segment of a web path, if any. */
export function reservedSegment(wp: string): string | null {
  return webPathSegments(wp).find((s) => RESERVED_WIKI_NAMES.includes(s)) ?? null;
}

// eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
const CONTROL = /[\0-\x1f\x7f]/;

/**
 * Is `gp` a file path the wiki may hold: relative, no empty, `.` or `..` segment, no `.git` in any
 * spelling, no control characters or backslashes; for writes, also no segment starting with `-`.
 * why: Gitea escapes titles so these rarely arise, but a `{pageName}` ending in `.md` names a file
 * directly, and the forge refuses every such name before it reaches git.
 */
export function isSafeGitPath(gp: string, write: boolean): boolean {
  if (!gp || gp.length > 4096 || CONTROL.test(gp) || gp.includes('\\') || gp.startsWith('/')) return false;
  return gp.split('/').every((s) => s !== '' && s !== '.' && s !== '..' && !isGitDirName(s) && !(write && s.startsWith('-')));
}

/** Is a title acceptable for a new page name: no control characters, not `.`/`..`/`.git`, no leading `-`. */
export function isSafeTitle(title: string): boolean {
  const t = title.trim();
  return !CONTROL.test(t) && t !== '.' && t !== '..' && !isGitDirName(t) && !t.startsWith('-');
}
