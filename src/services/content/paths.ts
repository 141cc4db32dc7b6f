/**
 * Checks on user-supplied tree paths, branch names and base64 content. A path written through the
 * API must never reach `.git` (in any case or spelling a filesystem folds to `.git`), leave the tree
 * (`..`, absolute paths) or smuggle separators (backslash, NUL).
 */
import { Validation } from '../../errors';

/** Gitea's ErrFilenameInvalid. */
export function filenameInvalid(path: string): Validation {
  return new Validation(`path contains a malformed path component [path: ${path}]`);
}

// why: HFS+ ignores these code points when comparing names, so ".g\u200Cit" is ".git" there (git's protectHFS).
const HFS_IGNORABLE = /[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]/g;

/** Would a filesystem (case-folding, NTFS trailing dots/spaces, 8.3 short names, HFS+) see `.git` here? */
export function isGitDirName(segment: string): boolean {
  const folded = segment.replace(HFS_IGNORABLE, '').toLowerCase();
  const trimmed = folded.replace(/[. ]+$/, '');
  return trimmed === '.git' || folded.startsWith('.git:') || /^git~\d+$/.test(trimmed);
}

/**
 * The normalized path a write may touch, or a 422 when any segment is empty, `.`, `..` or a `.git`
 * variant, or the path is absolute or holds a backslash or a control character.
 */
export function checkWritePath(raw: string): string {
  if (typeof raw !== 'string' || raw === '' || raw.length > 4096) throw filenameInvalid(raw ?? '');
  // why: a backslash is a separator on Windows clients (GHSA-89mr), and control characters never belong in a path.
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
  if (raw.startsWith('/') || /[\\\0-\x1f\x7f]/.test(raw)) throw filenameInvalid(raw);
  const parts = raw.split('/');
  for (const p of parts) {
    if (p === '' || p === '.' || p === '..' || isGitDirName(p)) throw filenameInvalid(raw);
  }
  return parts.join('/');
}

/**
 * The path a read looks up ('' = root): leading/trailing slashes and `.` segments dropped as Gitea
 * does; `..`, `.git` variants and control characters are refused (422).
 */
export function cleanReadPath(raw: string | undefined): string {
  const p = (raw ?? '').replace(/^\/+|\/+$/g, '');
  if (p === '' || p === '.') return '';
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
  if (/[\0-\x1f\x7f]/.test(p)) throw filenameInvalid(p);
  const parts = p.split('/').filter((s) => s !== '' && s !== '.');
  if (parts.some((s) => s === '..' || isGitDirName(s))) throw filenameInvalid(p);
  return parts.join('/');
}

/** git check-ref-format's rules for a branch name, plus no leading '-' (Gitea's GitRefName binding). */
export function isValidBranchName(name: string): boolean {
  if (!name || name.length > 255 || name === '@' || name.startsWith('-') || name.startsWith('/') || name.endsWith('/') || name.endsWith('.')) return false;
  if (/[\0-\x20\x7f~^:?*[\\]/.test(name) || name.includes('..') || name.includes('//') || name.includes('@{')) return false;
  return name.split('/').every((c) => c !== '' && !c.startsWith('.') && !c.endsWith('.lock'));
}

/**
 * Decode base64 strictly as Go's StdEncoding (padding required; CR and LF ignored); throws 422 with
 * Go's message naming the first bad byte.
 */
export function decodeBase64(s: string): Buffer {
  const text = (s ?? '').replace(/[\r\n]/g, '');
  const bad = (i: number) => new Validation(`illegal base64 data at input byte ${i}`);
  const m = /[^A-Za-z0-9+/=]/.exec(text);
  if (m) throw bad(m.index);
  const pad = text.indexOf('=');
  if (pad >= 0 && !/^={1,2}$/.test(text.slice(pad))) throw bad(pad + (text.slice(pad).search(/[^=]/) >= 0 ? text.slice(pad).search(/[^=]/) : 0));
  if (text.length % 4 !== 0) throw bad(text.length - (text.length % 4));
  return Buffer.from(text, 'base64');
}
