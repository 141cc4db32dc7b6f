/** Reading refs and commit summaries of a bare repository for push processing. */
import { readCommits } from './history';
import { gitRefused, runGit } from './run';

/** The all-zero object id git uses for "no ref" in hook input. */
export const ZERO_ID = '0000000000000000000000000000000000000000';

/**
 * Every branch and tag with the commit it points at (annotated tags peeled to their commit), in
 * `for-each-ref` order (by ref name).
 */
export async function listBranchAndTagRefs(gitDir: string): Promise<Map<string, string>> {
  const out = (await runGit(['for-each-ref', '--format=%(objectname) %(*objectname) %(refname)', 'refs/heads', 'refs/tags'], { gitDir })).stdout.toString();
  const refs = new Map<string, string>();
  for (const line of out.split('\n')) {
    if (!line) continue;
    const [id, peeled, ...rest] = line.split(' ');
    refs.set(rest.join(' '), peeled || id);
  }
  return refs;
}

/** Subject and committer time of a commit. */
export interface CommitSummary { subject: string; committedAt: Date }

/**
 * Summaries of the given commits (unknown or non-commit ids are left out): the subject as `git log
 * %s` gives it (the first paragraph on one line) and the committer time. why: read through the
 * repository's long-running cat-file (history.ts readCommits), so a ref sync starts no git for them.
 */
export async function commitSummaries(gitDir: string, ids: string[]): Promise<Map<string, CommitSummary>> {
  const out = new Map<string, CommitSummary>();
  for (const c of await readCommits(gitDir, [...new Set(ids)])) {
    const subject = c.message.replace(/^\n+/, '').split(/\n[ \t]*\n/)[0].split('\n').map((l) => l.trim()).join(' ').trim();
    out.set(c.id, { subject, committedAt: new Date(c.committer.date) });
  }
  return out;
}

/** The branch HEAD points at, or null when HEAD is detached or not a branch. */
export async function headBranch(gitDir: string): Promise<string | null> {
  const r = await runGit(['symbolic-ref', '--quiet', 'HEAD'], { gitDir }).catch(gitRefused);
  const ref = r?.stdout.toString().trim() ?? '';
  return ref.startsWith('refs/heads/') ? ref.slice('refs/heads/'.length) : null;
}

/** Is `commit` (a full id) reachable from a branch or tag of the repository? */
export async function isReachable(gitDir: string, commit: string): Promise<boolean> {
  const out = (await runGit(['for-each-ref', '--count=1', '--format=%(refname)', `--contains=${commit}`, 'refs/heads', 'refs/tags'], { gitDir })).stdout.toString();
  return out.trim() !== '';
}
