/**
 * Commit history reads: the ordered ids of a history (`git rev-list`), commit objects parsed from a
 * long-running cat-file reader, and changed files and line stats of a set of commits
 * (`git diff-tree --stdin`). Revisions reaching these functions are full object ids or values
 * already checked with assertSafeGitArg.
 */
import crypto from 'node:crypto';
import { BatchCommand } from './batch';
import { readObjects, readQuarantinedObjects } from './cat-file';
import { WeightedLru } from './lru';
import { gitRefused, runGit } from './run';

/** Name, email and ISO 8601 date (with the commit's own offset) of an author or committer. */
export interface GitIdentity { name: string; email: string; date: string }

/** A file a commit changed: git's status letter and its path. */
export interface ChangedFile { status: string; path: string }

/** A commit's signature header and the bytes it signs (the object without that header). */
export interface RawSignature { signature: string; payload: string }

/** One parsed commit. */
export interface CommitRecord {
  id: string;
  tree: string;
  parents: string[];
  author: GitIdentity;
  committer: GitIdentity;
  message: string;
  signature: RawSignature | null;
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

/** The commit ids of the range, newest first, in `git log`'s order: all of them, or the first `max`. */
export async function listCommitIds(gitDir: string, range: HistoryRange, max?: number, skip = 0): Promise<string[]> {
  const limit = max !== undefined ? [`--max-count=${max}`] : [];
  const out = (await runGit(['rev-list', ...(skip ? [`--skip=${skip}`] : []), ...limit, ...rangeArgs(range)], { gitDir })).stdout.toString();
  return out.split('\n').filter(Boolean);
}

/** How many commits the range has (`rev-list --count`: the walk without its output). */
export async function countCommits(gitDir: string, range: HistoryRange): Promise<number> {
  return Number((await runGit(['rev-list', '--count', ...rangeArgs(range)], { gitDir })).stdout.toString().trim());
}

/**
 * "Name <email> 1700000000 +0130" -> identity with an RFC 3339 date in that offset ("Z" for a zero
 * offset), as Gitea (Go) writes a commit's time.
 */
export function parseIdentity(line: string): GitIdentity {
  const m = /^(.*?) ?<([^>]*)> (\d+) ([+-])(\d\d)(\d\d)$/.exec(line);
  if (!m) return { name: line, email: '', date: '1970-01-01T00:00:00Z' };
  const offsetMin = (m[4] === '-' ? -1 : 1) * (Number(m[5]) * 60 + Number(m[6]));
  const local = new Date((Number(m[3]) + offsetMin * 60) * 1000).toISOString().slice(0, 19);
  return { name: m[1], email: m[2], date: `${local}${offsetMin === 0 ? 'Z' : `${m[4]}${m[5]}:${m[6]}`}` };
}

const SIGNATURE_HEADERS = new Set(['gpgsig', 'gpgsig-sha256']);

/** Parse a commit object's text. */
export function parseCommit(id: string, text: string): CommitRecord {
  const end = text.indexOf('\n\n');
  const head = end < 0 ? text : text.slice(0, end);
  const message = end < 0 ? '' : text.slice(end + 2);
  const c: CommitRecord = {
    id, tree: '', parents: [], message, signature: null,
    author: parseIdentity(''), committer: parseIdentity(''),
  };
  const kept: string[] = [];
  let sig: string[] | null = null;
  let inSig = false;
  for (const line of head.split('\n')) {
    if (line.startsWith(' ')) {
      if (inSig) sig!.push(line.slice(1));
      else kept.push(line);
      continue;
    }
    const sp = line.indexOf(' ');
    const key = line.slice(0, sp);
    const value = line.slice(sp + 1);
    inSig = SIGNATURE_HEADERS.has(key) && sig === null;
    if (inSig) { sig = [value]; continue; }
    kept.push(line);
    if (key === 'tree') c.tree = value;
    else if (key === 'parent') c.parents.push(value);
    else if (key === 'author') c.author = parseIdentity(value);
    else if (key === 'committer') c.committer = parseIdentity(value);
  }
  if (sig) c.signature = { signature: `${sig.join('\n')}\n`, payload: `${kept.join('\n')}\n\n${message}` };
  return c;
}

// why: commit objects never change, and the same pages of a commit list are read again and again
// (CI polling, browsing); the cat-file round trip for fifty commits cost 0.8 ms of a 5 ms page.
// Their text is kept per repository, up to MAX_KEPT_CHARS: one string per commit, since the heap's
// object count is what a full garbage collection pays for (parsed records, a dozen objects each,
// made those pauses half as long again).
const MAX_KEPT_CHARS = 16 * 1024 * 1024;
const commitTexts = new WeightedLru<string>(MAX_KEPT_CHARS, (text) => text.length);

/**
 * Parsed commits for `ids` (in that order; ids that are not commits are left out). With
 * `quarantine` (the object directories of a push being decided), they are read in a process of
 * their own and not kept: the push may yet be refused.
 */
export async function readCommits(gitDir: string, ids: string[], quarantine?: Record<string, string>): Promise<CommitRecord[]> {
  if (quarantine) {
    const got = await readQuarantinedObjects(gitDir, [...new Set(ids)], quarantine);
    return ids.flatMap((id) => {
      const o = got.get(id);
      return o?.type === 'commit' ? [parseCommit(id, o.data.toString('utf8'))] : [];
    });
  }
  const texts = new Map<string, string>();
  const missing: string[] = [];
  for (const id of ids) {
    const text = commitTexts.get(`${gitDir}\0${id}`);
    if (text === undefined) missing.push(id);
    else texts.set(id, text);
  }
  if (missing.length) {
    for (const [id, o] of await readObjects(gitDir, [...new Set(missing)])) {
      if (o.type !== 'commit') continue;
      const text = o.data.toString('utf8');
      texts.set(id, text);
      if (text.length <= MAX_KEPT_CHARS / 64) commitTexts.set(`${gitDir}\0${id}`, text);
    }
  }
  const out: CommitRecord[] = [];
  for (const id of ids) {
    const text = texts.get(id);
    if (text !== undefined) out.push(parseCommit(id, text));
  }
  return out;
}

/** Changed files and line totals of one commit. */
export interface CommitDiff { files: ChangedFile[]; additions: number; deletions: number }

// why: one long-running diff-tree per repository; a line that is not an object id is echoed back
// (and flushed), so a random marker after the ids ends each answer. Stats are background work.
// --always names every commit it read, even one that changes nothing.
const DIFF_ARGS = ['-z', '-r', '--root', '--always', '--no-renames', '--diff-merges=first-parent', '--raw', '--numstat'];
const diffTree = new BatchCommand(['diff-tree', '--stdin', ...DIFF_ARGS], true);
const MARKER = Buffer.from(`forge-${crypto.randomBytes(8).toString('hex')}\n`);

/** Parse diff-tree's `-z --raw --numstat` output for a set of commits. */
function parseDiffs(text: string): Map<string, CommitDiff> {
  const out = new Map<string, CommitDiff>();
  const tokens = text.split('\0');
  let cur: CommitDiff | null = null;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i].replace(/^\n/, '');
    if (/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(t)) {
      cur = { files: [], additions: 0, deletions: 0 };
      out.set(t, cur);
    } else if (cur && t.startsWith(':')) {
      cur.files.push({ status: t.slice(t.lastIndexOf(' ') + 1), path: tokens[++i] });
    } else if (cur) {
      const stat = /^(\d+|-)\t(\d+|-)\t/.exec(t);
      if (stat) {
        cur.additions += stat[1] === '-' ? 0 : Number(stat[1]);
        cur.deletions += stat[2] === '-' ? 0 : Number(stat[2]);
      }
    }
  }
  return out;
}

/** Start the repository's diff-tree process ahead of the diffCommits call that will follow. */
export function prepareDiffs(gitDir: string): void {
  diffTree.prepare(gitDir);
}

/**
 * Files and line stats of each commit against its first parent (renames not detected, binary files
 * count no lines, as Gitea reports them). Ids must be full commit ids.
 */
export async function diffCommits(gitDir: string, ids: string[]): Promise<Map<string, CommitDiff>> {
  if (ids.length === 0) return new Map();
  if (ids.some((id) => !/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(id))) throw new Error('diffCommits takes full commit ids');
  const diffs = await diffTree.run(gitDir, {
    input: `${ids.join('\n')}\n${MARKER.toString()}`,
    parse: (buf) => {
      const end = buf.indexOf(MARKER);
      return end < 0 ? null : { used: end + MARKER.length, result: parseDiffs(buf.subarray(0, end).toString()) };
    },
  });
  // why: a commit the long-running process could not read is left out of its answer, and the
  // report of the damage on its stderr may come after the answer; a process of its own per such
  // commit fails with that damage (or "bad object") instead of an empty diff being given out.
  for (const id of ids.filter((i) => !diffs.has(i))) {
    const one = parseDiffs((await runGit(['diff-tree', ...DIFF_ARGS, '--end-of-options', id], { gitDir })).stdout.toString());
    diffs.set(id, one.get(id) ?? { files: [], additions: 0, deletions: 0 });
  }
  return diffs;
}

/** The best common ancestor of two commits, or null when they share no history; `otherObjects` adds another repository's objects. */
export async function mergeBase(gitDir: string, a: string, b: string, otherObjects?: string): Promise<string | null> {
  // why: `otherObjects` (another repository's objects directory) lets a fork's commit meet its parent's.
  const env = otherObjects ? { GIT_ALTERNATE_OBJECT_DIRECTORIES: otherObjects } : undefined;
  const r = await runGit(['merge-base', '--end-of-options', a, b], { gitDir, env }).catch(gitRefused);
  return r ? r.stdout.toString().trim() || null : null;
}

/** Do commits `a` and `b` bring the same changes onto `base` (the same blobs at the same paths, each against its merge base with it)? */
export async function sameChanges(gitDir: string, base: string, a: string, b: string): Promise<boolean> {
  if (a === b) return true;
  const raw = async (c: string) => (await runGit(['diff', '--raw', '--no-abbrev', '--no-renames', `${base}...${c}`, '--'], { gitDir })).stdout.toString();
  const [x, y] = await Promise.all([raw(a), raw(b)]);
  return x === y;
}

/** Files that differ between two commits (renames not detected), with git's status letters; `env` as for readCommits' quarantine. */
export async function diffFiles(gitDir: string, from: string, to: string, env?: Record<string, string>): Promise<ChangedFile[]> {
  const out = (await runGit(['diff', '-z', '--no-renames', '--name-status', from, to, '--'], { gitDir, env })).stdout.toString();
  const tokens = out.split('\0');
  const files: ChangedFile[] = [];
  for (let i = 0; i + 1 < tokens.length; i += 2) files.push({ status: tokens[i], path: tokens[i + 1] });
  return files;
}

/** A file two commits differ in, with its line counts (a binary file counts none). */
export interface FileChange { status: string; path: string; oldPath: string; additions: number; deletions: number; binary: boolean }

/**
 * The files `to` changes against `from`, renames and copies detected (`git diff -M -z --raw
 * --numstat`), in git's order; `flags` adds whitespace options (-w, -b, --ignore-space-at-eol).
 */
export async function diffWithStats(gitDir: string, from: string, to: string, flags: string[] = []): Promise<FileChange[]> {
  // why: the answer depends only on two immutable commits and the flags, and a pull request's files
  // are asked for again and again (pages, clients polling); it is kept, weighed by its file count.
  const key = `${gitDir}\0${from}\0${to}\0${flags.join(' ')}`;
  const known = fileChanges.get(key);
  if (known) return known;
  const files = await computeFileChanges(gitDir, from, to, flags);
  fileChanges.set(key, files);
  return files;
}

const fileChanges = new WeightedLru<FileChange[]>(1_000_000, (files) => files.length + 1);

async function computeFileChanges(gitDir: string, from: string, to: string, flags: string[]): Promise<FileChange[]> {
  const out = (await runGit(['diff', '-M', '-z', '--raw', '--numstat', ...flags, from, to, '--'], { gitDir })).stdout.toString();
  const t = out.split('\0');
  const files: FileChange[] = [];
  let i = 0;
  for (; i < t.length && t[i].startsWith(':'); i++) {
    const status = t[i].slice(t[i].lastIndexOf(' ') + 1);
    const two = status[0] === 'R' || status[0] === 'C';
    const [oldPath, path] = two ? [t[i + 1], t[i + 2]] : [t[i + 1], t[i + 1]];
    files.push({ status, path, oldPath, additions: 0, deletions: 0, binary: false });
    i += two ? 2 : 1;
  }
  for (const f of files) {
    const m = /^(\d+|-)\t(\d+|-)\t(.*)$/s.exec(t[i] ?? '');
    if (!m) break;
    f.binary = m[1] === '-';
    f.additions = f.binary ? 0 : Number(m[1]);
    f.deletions = f.binary ? 0 : Number(m[2]);
    // why: a rename's numstat names no path in its own field; the two paths follow it.
    i += m[3] === '' ? 3 : 1;
  }
  return files;
}

/**
 * Update the repository's commit-graph (with changed-path filters) for commits not yet in it.
 * why: history walks, counts and path-limited logs read the graph instead of parsing every commit.
 */
export async function updateCommitGraph(gitDir: string): Promise<void> {
  await runGit(['commit-graph', 'write', '--reachable', '--changed-paths', '--split', '--no-progress'], { gitDir });
}

/**
 * The paths that differ between commits `from` and `to` (full ids; `from` may be the zero id: then
 * the paths `to` changed against its first parent, or all its paths for a root commit).
 */
export async function changedPaths(gitDir: string, from: string, to: string): Promise<string[]> {
  const args = /^0+$/.test(from) ? ['diff-tree', '-r', '-z', '--name-only', '--no-renames', '--root', '--no-commit-id', to] : ['diff', '-z', '--name-only', '--no-renames', from, to, '--'];
  const out = (await runGit(args, { gitDir })).stdout.toString('utf8');
  return out.split('\0').filter(Boolean);
}
