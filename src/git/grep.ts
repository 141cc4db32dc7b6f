/**
 * Code search in one commit's tree with `git grep` (fixed string, case-insensitive, text files
 * only), as Gitea searches a repository when no code indexer is set up.
 */
import { runGit } from './run';

/** A file with the lines that match, numbered. */
export interface GrepFile { path: string; lines: { no: number; text: string }[] }

/**
 * Files of `commit` (a full commit id) containing `query`, in path order: at most `maxFiles`
 * files and `maxLines` lines of each.
 */
export async function grepTree(gitDir: string, commit: string, query: string, maxFiles: number, maxLines: number): Promise<{ files: GrepFile[]; more: boolean }> {
  const r = await runGit(['grep', '-n', '-I', '-i', '-F', '--full-name', '--null', '-m', String(maxLines), '-e', query, commit, '--'], {
    gitDir, answerCodes: [1], maxOutputBytes: 16 * 1024 * 1024,
  });
  const out = r.stdout.toString('utf8');
  const prefix = `${commit}:`;
  const files: GrepFile[] = [];
  let more = false;
  for (let at = 0; at < out.length;) {
    const pathEnd = out.indexOf('\0', at);
    const noEnd = out.indexOf('\0', pathEnd + 1);
    const lineEnd = out.indexOf('\n', noEnd + 1);
    if (pathEnd < 0 || noEnd < 0) break;
    const path = out.slice(at + (out.startsWith(prefix, at) ? prefix.length : 0), pathEnd);
    const text = out.slice(noEnd + 1, lineEnd < 0 ? out.length : lineEnd);
    at = lineEnd < 0 ? out.length : lineEnd + 1;
    let f = files[files.length - 1];
    if (!f || f.path !== path) {
      if (files.length === maxFiles) {
        more = true;
        break;
      }
      f = { path, lines: [] };
      files.push(f);
    }
    f.lines.push({ no: Number(out.slice(pathEnd + 1, noEnd)), text });
  }
  return { files, more };
}
