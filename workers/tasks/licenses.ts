/**
 * Which SPDX licenses a repository's license files hold, in the manner of go-license-detector: an
 * `SPDX-License-Identifier:` line names them outright; otherwise each file's text is normalized
 * (case, punctuation, copyright lines and template placeholders dropped, spelling variants unified)
 * and compared with every SPDX full text (`spdx-license-list/full`) by the overlap of their word
 * pairs (the Dice coefficient); the best match counts when it reaches the threshold. Pure: no git,
 * no database; the prepared SPDX texts are kept per thread.
 */

interface SpdxEntry { name: string; licenseText: string }

/** How close a text must come to an SPDX text to count as that license (go-license-detector's 0.75). */
export const LICENSE_THRESHOLD = 0.75;

/** A text's comparable form: its word pairs and its word count. */
interface Prepared { id: string; pairs: Set<string>; words: number }

// why: the same text in other clothes: British and American spelling, quotes, dashes and URL schemes.
const VARIANTS: [RegExp, string][] = [
  [/\blicence(s?)\b/g, 'license$1'], [/\bhttps?:\/\//g, ''], [/\bwww\./g, ''],
  [/[‘’“”"'`]/g, ''], [/[‐-―−]/g, '-'],
];

/** The words a license text reduces to once what varies between copies is taken out. */
export function normalizeLicenseText(text: string): string[] {
  let t = text.toLowerCase();
  // why: copyright lines name the holder and year, which every copy of the same license changes.
  t = t.split(/\r?\n/).filter((l) => !/^\s*(?:copyright\b|\(c\)|©|all rights reserved)/.test(l)).join('\n');
  // why: SPDX's texts carry placeholders (`<year>`, `[name of author]`) that a real file fills in.
  t = t.replace(/<[^<>\n]{1,80}>/g, ' ').replace(/\[[^[\]\n]{1,80}\]/g, ' ');
  for (const [re, to] of VARIANTS) t = t.replace(re, to);
  return t.split(/[^a-z0-9]+/).filter((w) => w.length > 0);
}

function prepare(id: string, text: string): Prepared {
  const words = normalizeLicenseText(text);
  const pairs = new Set<string>();
  for (let i = 0; i + 1 < words.length; i++) pairs.add(`${words[i]} ${words[i + 1]}`);
  if (words.length === 1) pairs.add(words[0]);
  return { id, pairs, words: words.length };
}

/** Dice similarity of two prepared texts (0..1). */
function dice(a: Prepared, b: Prepared): number {
  if (a.pairs.size === 0 || b.pairs.size === 0) return 0;
  const [small, large] = a.pairs.size <= b.pairs.size ? [a.pairs, b.pairs] : [b.pairs, a.pairs];
  let common = 0;
  for (const p of small) if (large.has(p)) common++;
  return (2 * common) / (a.pairs.size + b.pairs.size);
}

let corpus: Prepared[] | null = null;
let known: Map<string, string> | null = null;

function spdx(): Record<string, SpdxEntry> {
  return require('spdx-license-list/full') as Record<string, SpdxEntry>;
}

function theCorpus(): Prepared[] {
  corpus ??= Object.entries(spdx()).map(([id, l]) => prepare(id, l.licenseText));
  return corpus;
}

/** SPDX ids by lower-cased id (identifiers are case-insensitive). */
function ids(): Map<string, string> {
  known ??= new Map(Object.keys(spdx()).map((id) => [id.toLowerCase(), id]));
  return known;
}

// why: several SPDX ids share one text (GPL-3.0-only and -or-later, the deprecated bare GPL-3.0 and
// GPL-3.0+); a text cannot tell them apart, so the current, narrower id is reported, as Gitea's aliases do.
const DEPRECATED = /^(?:[AL]?GPL-[0-9.]+|GFDL-[0-9.]+|LGPL-2\.0|eCos-2\.0|wxWindows|Nunit|StandardML-NJ)$|\+$|-with-/;
function rank(id: string): number {
  if (DEPRECATED.test(id)) return 2;
  return id.endsWith('-or-later') ? 1 : 0;
}

/** The ids an `SPDX-License-Identifier:` line names (known ids only). */
function declared(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/SPDX-License-Identifier:\s*([^\n\r*/#]+)/gi)) {
    for (const tok of m[1].split(/[\s()]+/)) {
      const id = ids().get(tok.toLowerCase().replace(/\+$/, ''));
      if (id && !['and', 'or', 'with'].includes(tok.toLowerCase())) out.push(id);
    }
  }
  return out;
}

/** The best-matching SPDX id of one text with its score, or null below the threshold. */
export function bestLicense(text: string): { id: string; score: number } | null {
  const doc = prepare('', text);
  if (doc.words < 5) return null;
  let best: { id: string; score: number } | null = null;
  for (const lic of theCorpus()) {
    // why: Dice cannot reach the threshold when one text is much shorter than the other; skip those unread.
    const ratio = Math.min(doc.words, lic.words) / Math.max(doc.words, lic.words);
    if ((2 * ratio) / (1 + ratio) < LICENSE_THRESHOLD) continue;
    const score = Math.round(dice(doc, lic) * 1000) / 1000;
    if (score < LICENSE_THRESHOLD) continue;
    if (!best || score > best.score || (score === best.score && (rank(lic.id) < rank(best.id) || (rank(lic.id) === rank(best.id) && lic.id < best.id)))) {
      best = { id: lic.id, score };
    }
  }
  return best;
}

/** The SPDX ids the given license files hold, sorted and without repeats. */
export function detectLicenseIds(texts: string[]): string[] {
  const found = new Set<string>();
  for (const text of texts) {
    const named = declared(text);
    if (named.length) {
      named.forEach((id) => found.add(id));
      continue;
    }
    const best = bestLicense(text);
    if (best) found.add(best.id);
  }
  return [...found].sort((a, b) => a.localeCompare(b));
}

/** Pool task: the licenses of a repository's license files. */
export async function detectLicenses(arg: { texts: string[] }): Promise<string[]> {
  return detectLicenseIds(arg.texts);
}
