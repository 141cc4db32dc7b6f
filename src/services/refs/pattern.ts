/**
 * Tag protection name patterns, as Gitea reads them: `/.../` is a regular expression, anything
 * else a glob (gobwas/glob without separators: `*`, `**`, `?`, `[abc]`, `[!a-z]`, `{a,b}`, `\`
 * escapes). Globs are matched here by a linear state walk (no backtracking); regular expressions,
 * which could backtrack for ever on V8, only ever run in the worker pool under a time limit.
 */
import { runTask } from '../../pool';

type Token =
  | { t: 'lit'; c: string }
  | { t: 'one' }
  /** `any`: also across separators (`**`, or every star of a glob without a separator) */
  | { t: 'star'; any: boolean }
  | { t: 'class'; neg: boolean; items: [string, string][] };

const MAX_ALTERNATIVES = 256;

/** A pattern that does not compile. */
export class PatternError extends Error {}

/** A compiled glob: one token list per brace alternative, and its separator characters ('' for none). */
export interface Glob { seqs: Token[][]; seps: string }

/** Is the pattern a `/regex/`? */
export function isRegexPattern(p: string): boolean {
  return p.length >= 2 && p.startsWith('/') && p.endsWith('/');
}

function parseClass(chars: string[], start: number): { tok: Token; next: number } {
  let i = start;
  const neg = chars[i] === '!';
  if (neg) i++;
  const items: [string, string][] = [];
  while (i < chars.length && chars[i] !== ']') {
    let lo = chars[i];
    if (lo === '\\') lo = chars[++i] ?? '';
    let hi = lo;
    if (chars[i + 1] === '-' && i + 2 < chars.length && chars[i + 2] !== ']') {
      hi = chars[i + 2] === '\\' ? chars[i + 3] ?? '' : chars[i + 2];
      i += chars[i + 2] === '\\' ? 3 : 2;
    }
    if (lo === '' || hi === '' || hi < lo) throw new PatternError('invalid character class');
    items.push([lo, hi]);
    i++;
  }
  if (i >= chars.length || items.length === 0) throw new PatternError('unclosed or empty character class');
  return { tok: { t: 'class', neg, items }, next: i + 1 };
}

function cross(a: Token[][], b: Token[][]): Token[][] {
  if (a.length * b.length > MAX_ALTERNATIVES) throw new PatternError('too many brace alternatives');
  return a.flatMap((x) => b.map((y) => [...x, ...y]));
}

function parseSeq(chars: string[], start: number, inBrace: boolean, seps: string): { seqs: Token[][]; next: number } {
  let seqs: Token[][] = [[]];
  let i = start;
  const add = (tok: Token) => seqs.forEach((s) => s.push(tok));
  while (i < chars.length) {
    const c = chars[i];
    if (inBrace && (c === ',' || c === '}')) break;
    if (c === '{') {
      const alts: Token[][] = [];
      i++;
      for (;;) {
        const r = parseSeq(chars, i, true, seps);
        alts.push(...r.seqs);
        i = r.next;
        if (chars[i] === ',') { i++; continue; }
        if (chars[i] === '}') { i++; break; }
        throw new PatternError('unclosed brace');
      }
      seqs = cross(seqs, alts);
    } else if (c === '[') {
      const r = parseClass(chars, i + 1);
      add(r.tok);
      i = r.next;
    } else if (c === '*') {
      let n = 1;
      while (chars[i + n] === '*') n++;
      add({ t: 'star', any: seps === '' || n > 1 });
      i += n;
    } else if (c === '?') {
      add({ t: 'one' });
      i++;
    } else if (c === '\\') {
      if (i + 1 >= chars.length) throw new PatternError('trailing escape');
      add({ t: 'lit', c: chars[i + 1] });
      i += 2;
    } else {
      add({ t: 'lit', c });
      i++;
    }
  }
  return { seqs, next: i };
}

/**
 * Compile a glob; throws PatternError. With separators (branch rules: '/'; protected file
 * patterns: '.' and '/'), `*` and `?` never match one and `**` does, as gobwas/glob compiled with
 * separators.
 */
export function compileGlob(pattern: string, seps = ''): Glob {
  const chars = [...pattern];
  const r = parseSeq(chars, 0, false, seps);
  if (r.next !== chars.length) throw new PatternError('unbalanced brace');
  return { seqs: r.seqs, seps };
}

function accepts(tok: Token, c: string, seps: string): boolean {
  if (tok.t === 'lit') return tok.c === c;
  if (tok.t === 'one') return !seps.includes(c);
  if (tok.t === 'class') return tok.items.some(([lo, hi]) => c >= lo && c <= hi) !== tok.neg;
  return false;
}

function matchSeq(tokens: Token[], s: string[], seps: string): boolean {
  const close = (set: Set<number>) => {
    for (const i of set) if (tokens[i]?.t === 'star') set.add(i + 1);
    return set;
  };
  let cur = close(new Set([0]));
  for (const c of s) {
    const next = new Set<number>();
    for (const i of cur) {
      const tok = tokens[i];
      if (!tok) continue;
      if (tok.t === 'star') {
        if (tok.any || !seps.includes(c)) next.add(i);
      } else if (accepts(tok, c, seps)) next.add(i + 1);
    }
    if (next.size === 0) return false;
    cur = close(next);
  }
  return cur.has(tokens.length);
}

/** Does the whole name match the glob? */
export function globMatches(g: Glob, name: string): boolean {
  const s = [...name];
  return g.seqs.some((seq) => matchSeq(seq, s, g.seps));
}

/** The JavaScript form of a `/regex/` pattern (Go's leading `(?i)` becomes the i flag); throws PatternError. */
export function regexSource(pattern: string): { source: string; flags: string } {
  let source = pattern.slice(1, -1);
  let flags = '';
  if (source.startsWith('(?i)')) {
    source = source.slice(4);
    flags = 'i';
  }
  try {
    new RegExp(source, flags);
  } catch (err) {
    throw new PatternError((err as Error).message);
  }
  return { source, flags };
}

/** Throw PatternError unless the pattern compiles. */
export function assertPattern(pattern: string): void {
  if (isRegexPattern(pattern)) regexSource(pattern);
  else compileGlob(pattern);
}

const REGEX_TIME_LIMIT_MS = 2000;

/**
 * matches[i][j]: does pattern i match name j? An invalid pattern matches nothing; a regular
 * expression that runs out of time matches everything (fail closed: the tag counts as protected).
 */
export async function matchPatterns(patterns: string[], names: string[]): Promise<boolean[][]> {
  const out = patterns.map(() => names.map(() => false));
  const regexes: { i: number; source: string; flags: string }[] = [];
  patterns.forEach((p, i) => {
    try {
      if (isRegexPattern(p)) regexes.push({ i, ...regexSource(p) });
      else {
        const g = compileGlob(p);
        names.forEach((n, j) => { out[i][j] = globMatches(g, n); });
      }
    } catch {
      // an invalid stored pattern protects nothing, as it could never match in Gitea either
    }
  });
  if (regexes.length === 0 || names.length === 0) return out;
  try {
    const res = await runTask('matchRegexes', { regexes: regexes.map(({ source, flags }) => ({ source, flags })), names, timeoutMs: REGEX_TIME_LIMIT_MS });
    regexes.forEach((r, k) => { out[r.i] = res[k]; });
  } catch {
    for (const r of regexes) out[r.i] = names.map(() => true);
  }
  return out;
}
