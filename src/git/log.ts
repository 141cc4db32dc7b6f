/**
 * Commit history through `git log` and `git rev-list`: one page of commits with optional changed
 * files and line stats, and the number of commits a listing has. Revisions reaching these functions
 * are full object ids or names already checked with assertSafeGitArg.
 */
import { runGit } from './run';

/** Name, email and ISO 8601 date (with the commit's own offset) of an author or committer. */
export interface GitIdentity { name: string; email: string; date: string }

/** A file a commit changed: git's status letter and its path. */
export interface ChangedFile { status: string; path: string }

/** One commit of a page. */
export interface CommitRecord {
  id: string;
  tree: string;
  parents: string[];
  author: GitIdentity;
  committer: GitIdentity;
  message: string;
  /** Present when files were asked for. */
  files?: ChangedFile[];
  /** Present when stats were asked for. */
  additions?: number;
  deletions?: number;
}

/** Which commits a listing covers. */
export interface HistoryRange {
  /** Full commit id to start from. */
  rev: string;
  /** Full commit ids whose history is excluded. */
  not?: string[];
  /** Only commits touching this path. */
  path?: string;
  /** Committed at or after / before these times. */
  since?: Date;
  until?: Date;
}

function rangeArgs(r: HistoryRange): string[] {
  const args: string[] = [];
  if (r.since) args.push(`--since=${Math.floor(r.since.getTime() / 1000)}`);
  if (r.until) args.push(`--until=${Math.floor(r.until.getTime() / 1000)}`);
  args.push('--end-of-options', r.rev, ...(r.not ?? []).map((n) => `^${n}`));
  if (r.path !== undefined) args.push('--', r.path);
  return args;
}

const FIELD = '\x01';
const HEADER = new RegExp(`^C[0-9a-f]{40,64}${FIELD}`);

/** Parse `git log -z --format=C%H%x01...` output with optional --raw and --numstat entries. */
export function parseLog(out: string, wantFiles: boolean, wantStats: boolean): CommitRecord[] {
  const tokens = out.split('\0');
  const commits: CommitRecord[] = [];
  let i = 0;
  while (i < tokens.length) {
    const head = tokens[i++].replace(/^\n/, '');
    if (!HEADER.test(head)) continue;
    const [id, tree, parents, an, ae, ad, cn, ce, cd, ...msg] = head.slice(1).split(FIELD);
    const c: CommitRecord = {
      id, tree, parents: parents ? parents.split(' ') : [],
      author: { name: an, email: ae, date: ad }, committer: { name: cn, email: ce, date: cd },
      message: msg.join(FIELD),
    };
    if (wantFiles) c.files = [];
    if (wantStats) { c.additions = 0; c.deletions = 0; }
    while (i < tokens.length) {
      const t = tokens[i].replace(/^\n/, '');
      if (t.startsWith(':')) {
        c.files?.push({ status: t.slice(t.lastIndexOf(' ') + 1), path: tokens[i + 1] });
        i += 2;
        continue;
      }
      const stat = /^(\d+|-)\t(\d+|-)\t/.exec(t);
      if (stat) {
        // why: binary files count as no lines, as in Gitea's diff totals.
        c.additions! += stat[1] === '-' ? 0 : Number(stat[1]);
        c.deletions! += stat[2] === '-' ? 0 : Number(stat[2]);
        i++;
        continue;
      }
      break;
    }
    commits.push(c);
  }
  return commits;
}

/** Page options of logPage. */
export interface PageOptions { skip: number; limit: number; files: boolean; stats: boolean; signal?: AbortSignal }

/**
 * One page of history, newest first. Merge commits are compared with their first parent, renames
 * are not detected (each side counts as its own file), as Gitea reports them.
 */
export async function logPage(gitDir: string, range: HistoryRange, page: PageOptions): Promise<CommitRecord[]> {
  const args = ['log', '-z', `--format=C%H${FIELD}%T${FIELD}%P${FIELD}%an${FIELD}%ae${FIELD}%aI${FIELD}%cn${FIELD}%ce${FIELD}%cI${FIELD}%B`,
    `--skip=${page.skip}`, `--max-count=${page.limit}`];
  if (page.files || page.stats) args.push('--no-renames', '--diff-merges=first-parent');
  if (page.files) args.push('--raw');
  if (page.stats) args.push('--numstat');
  const out = (await runGit([...args, ...rangeArgs(range)], { gitDir, signal: page.signal })).stdout.toString();
  return parseLog(out, page.files, page.stats);
}

/** How many commits the range covers. */
export async function countCommits(gitDir: string, range: HistoryRange, signal?: AbortSignal): Promise<number> {
  const out = (await runGit(['rev-list', '--count', ...rangeArgs(range)], { gitDir, signal })).stdout.toString();
  return Number(out.trim());
}

/**
 * Update the repository's commit-graph (with changed-path filters) for commits not yet in it.
 * why: history walks, counts and path-limited logs read the graph instead of parsing every commit,
 * so a deep page costs about what the first one does.
 */
export async function updateCommitGraph(gitDir: string): Promise<void> {
  await runGit(['commit-graph', 'write', '--reachable', '--changed-paths', '--split', '--no-progress'], { gitDir });
}
