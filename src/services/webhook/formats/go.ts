/**
 * The few behaviours of Go's libraries that Gitea's request bodies depend on, so that ours match
 * them byte for byte: its JSON encoding (two-space indent, `<`, `>` and `&` escaped), its HTML and
 * URL escaping, git ref names, and rune-based truncation.
 */

const JSON_ESCAPES: Record<string, string> = {
  '\\b': '\\u0008', '\\f': '\\u000c', '<': '\\u003c', '>': '\\u003e', '&': '\\u0026', '\u2028': '\\u2028', '\u2029': '\\u2029',
};

/**
 * A value as Gitea writes a webhook body (json.MarshalIndent with two spaces): JavaScript's layout
 * is the same; only some escapes differ. Escape pairs are matched whole so that `\\b` stays as is.
 * A field a payload lacks is written as Go writes an unset string, "".
 */
export function goJson(v: unknown): string {
  const json = JSON.stringify(v, (_key, value: unknown) => (value === undefined ? '' : value), 2);
  return json.replace(/\\[\\"/bfnrtu]|[<>&\u2028\u2029]/g, (m) => JSON_ESCAPES[m] ?? m);
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', "'": '&#39;', '<': '&lt;', '>': '&gt;', '"': '&#34;' };

/** Go's html.EscapeString. */
export function htmlEscape(s: string): string {
  return s.replace(/[&'<>"]/g, (c) => HTML_ESCAPES[c]);
}

/** Percent-encode the UTF-8 bytes of `s` except those `keep` accepts (upper-case hex, as Go). */
function escapeBytes(s: string, keep: (c: string) => boolean, spaceAsPlus: boolean): string {
  let out = '';
  for (const b of Buffer.from(s, 'utf8')) {
    const c = String.fromCharCode(b);
    if (b < 0x80 && keep(c)) out += c;
    else if (spaceAsPlus && c === ' ') out += '+';
    else out += `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

const UNRESERVED = /^[A-Za-z0-9\-_.~]$/;

/** Go's url.PathEscape: a path segment (keeps `$&+:=@`, escapes `/`). */
export function pathEscape(s: string): string {
  return escapeBytes(s, (c) => UNRESERVED.test(c) || '$&+:=@'.includes(c), false);
}

/** Go's url.QueryEscape (space as `+`). */
export function queryEscape(s: string): string {
  return escapeBytes(s, (c) => UNRESERVED.test(c), true);
}

/** Gitea's util.PathEscapeSegments: each `/`-separated segment path-escaped. */
export function pathEscapeSegments(s: string): string {
  return s.split('/').map(pathEscape).join('/');
}

/** The short name of a git ref (Gitea's RefName.ShortName): a name without a known prefix is itself. */
export function shortRefName(ref: string): string {
  for (const prefix of ['refs/heads/', 'refs/tags/', 'refs/remotes/', 'refs/for/']) {
    if (ref.startsWith(prefix)) return ref.slice(prefix.length);
  }
  const pull = ref.startsWith('refs/pull/') ? ref.slice('refs/pull/'.length) : '';
  return pull.includes('/') ? pull.slice(0, pull.lastIndexOf('/')) : ref;
}

/** The web path of a ref (Gitea's RefName.RefWebLinkPath): branch/…, tag/…, commit/… or '' when it is none of them. */
export function refWebLinkPath(ref: string): string {
  let kind = '';
  if (ref.startsWith('refs/heads/')) kind = 'branch';
  else if (ref.startsWith('refs/tags/')) kind = 'tag';
  else if (/^[0-9a-f]{6,64}$/.test(ref)) kind = 'commit';
  return kind ? `${kind}/${pathEscapeSegments(shortRefName(ref))}` : '';
}

/** Gitea's util.TruncateRunes: at most `limit` code points, without an ellipsis. */
export function truncateRunes(s: string, limit: number): string {
  const runes = Array.from(s);
  return runes.length < limit ? s : runes.slice(0, limit).join('');
}

/** Gitea's base.ShortSha: the first ten characters. */
export function shortSha(sha: string): string {
  return truncateRunes(sha, 10);
}

// Go's unicode.IsSpace set (JavaScript's \s also has U+FEFF and lacks U+0085).
const GO_SPACE = '[\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]';
const TRIM = new RegExp(`^${GO_SPACE}+|${GO_SPACE}+$`, 'g');

/** Go's strings.TrimSpace. */
export function trimSpace(s: string): string {
  return s.replace(TRIM, '');
}

/** Go's strings.TrimRight(s, cutset): every trailing character found in `cutset` removed. */
export function trimRight(s: string, cutset: string): string {
  let end = s.length;
  while (end > 0 && cutset.includes(s[end - 1])) end--;
  return s.slice(0, end);
}

/** A time as Go writes a time.Time it read (RFC 3339, fraction without trailing zeros, a zero offset as Z); the zero time when none. */
export function goTime(t: string | null | undefined): string {
  if (!t) return '0001-01-01T00:00:00Z';
  const m = /^(.*T\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)$/i.exec(t);
  if (!m) return t;
  const fraction = (m[2] ?? '').replace(/0+$/, '');
  const zone = /^(z|[+-]00:00)$/i.test(m[3]) ? 'Z' : m[3];
  return `${m[1]}${fraction ? `.${fraction}` : ''}${zone}`;
}
