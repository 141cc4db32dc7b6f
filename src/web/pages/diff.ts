/**
 * git's unified diff read into files and numbered lines, for a page to show (no HTML here: the
 * template escapes every line).
 */

/** A line of a diff: a hunk header, context, an addition or a deletion, with its line numbers. */
export interface DiffLine { kind: 'hunk' | 'ctx' | 'add' | 'del'; text: string; oldNo: number | null; newNo: number | null }

/** One file of a diff. */
export interface DiffFile { oldPath: string; newPath: string; status: 'added' | 'deleted' | 'renamed' | 'modified'; binary: boolean; lines: DiffLine[]; additions: number; deletions: number }

const HUNK = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/;

/** Split a `git diff` (or `git show`) output into files. */
export function parseDiff(text: string): DiffFile[] {
  const files: DiffFile[] = [];
  let f: DiffFile | null = null;
  let oldNo = 0;
  let newNo = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith('diff --git ')) {
      const m = / a\/(.*) b\/(.*)$/.exec(line);
      f = { oldPath: m?.[1] ?? '', newPath: m?.[2] ?? '', status: 'modified', binary: false, lines: [], additions: 0, deletions: 0 };
      files.push(f);
      continue;
    }
    if (!f) continue;
    const hunk = HUNK.exec(line);
    if (hunk) {
      oldNo = Number(hunk[1]);
      newNo = Number(hunk[2]);
      f.lines.push({ kind: 'hunk', text: line, oldNo: null, newNo: null });
    } else if (f.lines.length === 0) {
      if (line.startsWith('new file mode')) f.status = 'added';
      else if (line.startsWith('deleted file mode')) f.status = 'deleted';
      else if (line.startsWith('rename from ')) { f.status = 'renamed'; f.oldPath = line.slice(12); }
      else if (line.startsWith('rename to ')) f.newPath = line.slice(10);
      else if (line.startsWith('Binary files ')) f.binary = true;
    } else if (line.startsWith('+')) {
      f.lines.push({ kind: 'add', text: line.slice(1), oldNo: null, newNo: newNo++ });
      f.additions++;
    } else if (line.startsWith('-')) {
      f.lines.push({ kind: 'del', text: line.slice(1), oldNo: oldNo++, newNo: null });
      f.deletions++;
    } else if (line.startsWith(' ')) {
      f.lines.push({ kind: 'ctx', text: line.slice(1), oldNo: oldNo++, newNo: newNo++ });
    }
  }
  return files;
}
