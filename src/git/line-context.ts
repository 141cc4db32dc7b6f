/**
 * What a comment on one line of a diff keeps: the few diff lines that end at it (Gitea's
 * CutDiffAroundLine, so a review shows the code it talked about after the branch moved on) and
 * the commit that last changed the line (git blame).
 */
import { runGit } from './run';

/** One file's diff between two commits, with git's header lines. */
export async function fileDiff(gitDir: string, from: string, to: string, path: string): Promise<string> {
  const { stdout } = await runGit(['diff', '--no-color', '--no-ext-diff', '-M', from, to, '--', path], { gitDir });
  return stdout.toString('utf8');
}

/** The commit that last changed line `line` of `path` at `commit`, and the line's number there; null when the file has no such line. */
export async function lineBlame(gitDir: string, commit: string, path: string, line: number): Promise<{ commit: string; line: number } | null> {
  const r = await runGit(['blame', '--porcelain', '-L', `${line},${line}`, commit, '--', path], { gitDir, answerCodes: [128] });
  const m = /^([0-9a-f]{40,64}) (\d+) /.exec(r.stdout.toString('utf8'));
  return r.code === 0 && m ? { commit: m[1], line: Number(m[2]) } : null;
}

/**
 * The header of a one-file diff and the last `count` lines of its hunk up to line `line` (of the
 * old side when `old`), under a recounted `@@` line; "" when the diff does not show that line.
 */
export function cutDiffAroundLine(diff: string, line: number, old: boolean, count: number): string {
  const lines = diff.split('\n');
  const first = lines.findIndex((l) => l.startsWith('@@'));
  if (first < 0) return '';
  const header = lines.slice(0, first);
  let hunk: string[] = [];
  let oldAt = 0;
  let newAt = 0;
  let found = false;
  for (const text of lines.slice(first)) {
    const start = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(text);
    if (start) {
      // why: an empty side's start is the line before the hunk, not its first line.
      [oldAt, newAt] = [Number(start[1]) - (start[2] === '0' ? 0 : 1), Number(start[3]) - (start[4] === '0' ? 0 : 1)];
      hunk = [];
      continue;
    }
    // why: "\ No newline at end of file" is no line of either side, and the text ends with an empty piece.
    if (text === '' || text.startsWith('\\')) continue;
    const kind = text[0];
    if (kind === '+') newAt += 1;
    else if (kind === '-') oldAt += 1;
    else { oldAt += 1; newAt += 1; }
    hunk.push(text);
    if (old ? kind !== '+' && oldAt === line : kind !== '-' && newAt === line) { found = true; break; }
  }
  if (!found) return '';
  const kept = hunk.slice(-count);
  const oldLines = kept.filter((l) => l[0] !== '+').length;
  const newLines = kept.filter((l) => l[0] !== '-').length;
  const lastOld = old ? line : oldAt;
  const lastNew = old ? newAt : line;
  const range = (end: number, n: number) => `${n === 0 ? end : end - n + 1},${n}`;
  return [...header, `@@ -${range(lastOld, oldLines)} +${range(lastNew, newLines)} @@`, ...kept].join('\n');
}
