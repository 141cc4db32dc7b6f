/**
 * Gitea's template variables for repositories generated from a template: the `.gitea/template`
 * glob list that selects the files to expand, the variables ($REPO_NAME, $REPO_OWNER, ... with
 * their _SNAKE, _KEBAB, _CAMEL, _PASCAL, _LOWER, _UPPER and _TITLE forms) and the expansion itself,
 * which follows Go's os.Expand as Gitea uses it: `$NAME` and `${NAME}` are replaced, an unknown
 * name is replaced by the bare name (its `$` is dropped), `$$` is `$`. Pure functions.
 */

/** What the variables are made of. */
export interface TemplateInfo {
  repoName: string; repoOwner: string; repoDescription: string; repoLink: string; repoHttpsUrl: string; repoSshUrl: string;
  templateName: string; templateOwner: string; templateDescription: string; templateLink: string; templateHttpsUrl: string; templateSshUrl: string;
  now: Date;
}

/** Words of an identifier: split at separators, lower-to-upper changes and the end of an upper-case run. */
function words(s: string): string[] {
  return s
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean);
}

const cap = (w: string) => w.charAt(0).toUpperCase() + w.slice(1);

/** PascalCase as xstrings.ToCamelCase: words split at space, `_` and `-`; an all-caps word is lowered first. */
function pascal(s: string): string {
  return s.split(/[\s_-]+/).filter(Boolean).map((w) => cap(w === w.toUpperCase() ? w.toLowerCase() : w)).join('');
}

/** Title case (golang.org/x/text/cases Title): each word's first letter upper, the rest lower. */
function title(s: string): string {
  return s.toLowerCase().replace(/(^|[^\p{L}\p{N}_'])(\p{L})/gu, (_, sep: string, c: string) => sep + c.toUpperCase());
}

const TRANSFORMERS: [string, (s: string) => string][] = [
  ['SNAKE', (s) => words(s).map((w) => w.toLowerCase()).join('_')],
  ['KEBAB', (s) => words(s).map((w) => w.toLowerCase()).join('-')],
  ['CAMEL', (s) => { const p = pascal(s); return p.charAt(0).toLowerCase() + p.slice(1); }],
  ['PASCAL', pascal],
  ['LOWER', (s) => s.toLowerCase()],
  ['UPPER', (s) => s.toUpperCase()],
  ['TITLE', title],
];

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** Every variable with its value, as Gitea defines them. */
export function templateVariables(i: TemplateInfo): Map<string, string> {
  const two = (n: number) => String(n).padStart(2, '0');
  const base: [string, string, boolean][] = [
    ['YEAR', String(i.now.getFullYear()), false], ['MONTH', two(i.now.getMonth() + 1), false],
    ['MONTH_ENGLISH', MONTHS[i.now.getMonth()], true], ['DAY', two(i.now.getDate()), false],
    ['REPO_NAME', i.repoName, true], ['TEMPLATE_NAME', i.templateName, true],
    ['REPO_DESCRIPTION', i.repoDescription, false], ['TEMPLATE_DESCRIPTION', i.templateDescription, false],
    ['REPO_OWNER', i.repoOwner, true], ['TEMPLATE_OWNER', i.templateOwner, true],
    ['REPO_LINK', i.repoLink, false], ['TEMPLATE_LINK', i.templateLink, false],
    ['REPO_HTTPS_URL', i.repoHttpsUrl, false], ['TEMPLATE_HTTPS_URL', i.templateHttpsUrl, false],
    ['REPO_SSH_URL', i.repoSshUrl, false], ['TEMPLATE_SSH_URL', i.templateSshUrl, false],
  ];
  const vars = new Map<string, string>();
  for (const [name, value, transform] of base) {
    vars.set(name, value);
    if (transform) for (const [t, fn] of TRANSFORMERS) vars.set(`${name}_${t}`, fn(value));
  }
  return vars;
}

// why: control characters are part of Gitea's list (file names must not carry them).
// eslint-disable-next-line no-control-regex
const SANITIZE = /\.\.|[<>:"/\\|?*\u0000-\u001f]|^(con|prn|aux|nul|com\d|lpt\d)$/gi;

/** Gitea's fileNameSanitize: a value put into a file name cannot add directories, `..` or reserved names. */
export function sanitizeFileName(s: string): string {
  return s.replace(SANITIZE, '_').trim();
}

const SPECIAL = new Set(['*', '#', '$', '@', '!', '?', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9']);
const NAME_CHAR = /[A-Za-z0-9_]/;

/** The variable name after a `$` at `s` (os.Expand's getShellName): the name and how many characters it used. */
function shellName(s: string): [string, number] {
  if (s[0] === '{') {
    if (s.length > 2 && SPECIAL.has(s[1]) && s[2] === '}') return [s[1], 3];
    const close = s.indexOf('}', 1);
    if (close === 1) return ['', 2];
    return close < 0 ? ['', 1] : [s.slice(1, close), close + 1];
  }
  if (SPECIAL.has(s[0])) return [s[0], 1];
  let n = 0;
  while (n < s.length && NAME_CHAR.test(s[n])) n++;
  return [s.slice(0, n), n];
}

/**
 * Expand the variables in `src` (os.Expand semantics). With `forFileName`, each substituted value is
 * sanitized for use in a path (Gitea does so for file names).
 */
export function expandVariables(src: string, vars: Map<string, string>, forFileName = false): string {
  let out = '';
  let i = 0;
  for (let j = 0; j < src.length; j++) {
    if (src[j] !== '$' || j + 1 >= src.length) continue;
    out += src.slice(i, j);
    const [name, w] = shellName(src.slice(j + 1));
    if (name === '' && w > 0) { /* bad syntax: the characters are dropped */ } else if (name === '') out += '$';
    else {
      const v = vars.get(name);
      out += v === undefined ? name : forFileName ? sanitizeFileName(v) : v;
    }
    j += w;
    i = j + 1;
  }
  return out + src.slice(i);
}

/**
 * Expand the variables of a byte string, leaving every byte outside the variables as it is (Go
 * expands bytes, so files need not be valid UTF-8). Values are inserted as UTF-8.
 */
export function expandBytes(content: Buffer, vars: Map<string, string>): Buffer {
  const asBytes = new Map([...vars].map(([k, v]) => [k, Buffer.from(v, 'utf8').toString('latin1')]));
  return Buffer.from(expandVariables(content.toString('latin1'), asBytes), 'latin1');
}

/** Translate one glob of `.gitea/template` (gobwas/glob with `/` as separator) into an anchored regular expression. */
export function globToRegExp(glob: string): RegExp {
  let re = '';
  let depth = 0;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '\\' && i + 1 < glob.length) re += escape(glob[++i]);
    else if (c === '*') {
      if (glob[i + 1] === '*') { re += '.*'; i++; } else re += '[^/]*';
    } else if (c === '?') re += '[^/]';
    else if (c === '[') {
      const close = glob.indexOf(']', i + 2);
      if (close < 0) throw new Error(`unclosed [ in ${glob}`);
      let body = glob.slice(i + 1, close);
      const negate = body.startsWith('!');
      if (negate) body = body.slice(1);
      re += `[${negate ? '^' : ''}${body.replace(/[\\\]^]/g, '\\$&')}]`;
      i = close;
    } else if (c === '{') { re += '(?:'; depth++; } else if (c === '}' && depth > 0) { re += ')'; depth--; } else if (c === ',' && depth > 0) re += '|';
    else re += escape(c);
  }
  if (depth !== 0) throw new Error(`unclosed { in ${glob}`);
  return new RegExp(`^${re}$`, 's');
}

function escape(c: string): string {
  return c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/** The globs of a `.gitea/template` file: one per line, blank lines and `#` comments skipped, invalid ones ignored (as Gitea). */
export function parseTemplateGlobs(text: string): RegExp[] {
  const out: RegExp[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    try { out.push(globToRegExp(line)); } catch { /* skipped, as Gitea logs and skips an invalid glob */ }
  }
  return out;
}
