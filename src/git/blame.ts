/**
 * `git blame --porcelain` read into hunks: runs of lines last changed by the same commit, with
 * that commit's author, time and subject. A blame of a commit and path never changes, so it is
 * kept, weighed by its lines.
 */
import { WeightedLru } from './lru';
import { runGit } from './run';

/** Consecutive lines last changed by one commit. */
export interface BlameHunk { sha: string; start: number; lines: number }

/** What a blame shows of each commit it names. */
export interface BlameCommit { author: string; authorMail: string; time: Date; summary: string; previous: string | null }

/** A file's blame: its hunks in order and the commits they name. */
export interface Blame { hunks: BlameHunk[]; commits: Map<string, BlameCommit>; lines: number }

const kept = new WeightedLru<Blame>(200_000, (b) => b.lines + b.commits.size * 4 + 1);

/** The blame of `path` at `commit` (a full commit id). */
export async function blameFile(gitDir: string, commit: string, path: string): Promise<Blame> {
  const key = `${gitDir}\0${commit}\0${path}`;
  const known = kept.get(key);
  if (known) return known;
  const out = (await runGit(['blame', '--porcelain', commit, '--', path], { gitDir, maxOutputBytes: 256 * 1024 * 1024 })).stdout.toString('utf8');
  const blame = parseBlame(out);
  kept.set(key, blame);
  return blame;
}

const HEADER = /^([0-9a-f]{40}(?:[0-9a-f]{24})?) \d+ (\d+)(?: \d+)?$/;

/** Parse porcelain output: a header per line, the commit's fields on its first appearance, then the line after a tab. */
export function parseBlame(text: string): Blame {
  const hunks: BlameHunk[] = [];
  const commits = new Map<string, BlameCommit>();
  let cur: BlameCommit | null = null;
  let lines = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith('\t')) {
      lines++;
      continue;
    }
    const h = HEADER.exec(line);
    if (h) {
      const [, sha, finalLine] = h;
      const final = Number(finalLine);
      const last = hunks[hunks.length - 1];
      if (last && last.sha === sha && last.start + last.lines === final) last.lines++;
      else hunks.push({ sha, start: final, lines: 1 });
      cur = commits.get(sha) ?? null;
      if (!cur) {
        cur = { author: '', authorMail: '', time: new Date(0), summary: '', previous: null };
        commits.set(sha, cur);
      }
      continue;
    }
    if (!cur) continue;
    const sp = line.indexOf(' ');
    const field = sp < 0 ? line : line.slice(0, sp);
    const value = sp < 0 ? '' : line.slice(sp + 1);
    if (field === 'author') cur.author = value;
    else if (field === 'author-mail') cur.authorMail = value.replace(/^<|>$/g, '');
    else if (field === 'author-time') cur.time = new Date(Number(value) * 1000);
    else if (field === 'summary') cur.summary = value;
    else if (field === 'previous') cur.previous = value.split(' ')[0];
  }
  return { hunks, commits, lines };
}
