/**
 * Reading trees, blobs and revisions of a bare repository with the git CLI. Every path goes after
 * `--` with literal pathspecs, and revisions travel on stdin (the long-running `cat-file`), so no
 * user value is ever read as an option or a pattern.
 */
import { settings } from '../config';
import { gitFailure, gitRefused, reportsDamage, runGit, spawnGit, startFailure } from './run';
import { parseIdentity, type GitIdentity } from './history';
import { WeightedLru } from './lru';
import { readObjects } from './cat-file';

export { objectInfo, firstObject, peekObjects } from './cat-file';

const FULL_ID = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;
// why: what a commit id and a path name never changes (the id fixes the tree and the history), so
// answers asked of a full commit id are kept: CI systems read the same file of the same commit all day.
const entryAnswers = new WeightedLru<TreeEntry | null>(50_000, () => 1);
const lastCommits = new WeightedLru<{ sha: string; committed: Date; authored: Date } | null>(50_000, () => 1);
// why: a blob's id fixes its bytes, and the same few files (READMEs, manifests) are read all day; small
// ones are kept per repository (the repository, since an id read in one must not answer for another).
const SMALL_BLOB = 256 * 1024;
const smallBlobs = new WeightedLru<Buffer>(32 * 1024 * 1024, (b) => b.length + 100);

/** The object type of a tree entry. */
export type EntryType = 'blob' | 'tree' | 'commit';

/** One tree entry as `git ls-tree -l` reports it. */
export interface TreeEntry {
  /** Six-digit octal mode: 100644, 100755, 120000 (symlink), 040000 (tree), 160000 (submodule). */
  mode: string;
  type: EntryType;
  oid: string;
  /** Blob size in bytes; 0 for trees and submodules. */
  size: number;
  /** Full path from the root of the tree. */
  path: string;
}

/** Environment for path-taking commands. why: `*`, `?` and `:(...)` in a user's path are plain characters. */
export const LITERAL_PATHS = { GIT_LITERAL_PATHSPECS: '1' };

/** Is the entry a symbolic link? */
export const isSymlink = (e: TreeEntry) => e.mode === '120000';
/** Is the entry a submodule (gitlink)? */
export const isSubmodule = (e: TreeEntry) => e.type === 'commit';
/** Is the entry a directory? */
export const isTree = (e: TreeEntry) => e.type === 'tree';

/** Parse `ls-tree -l -z` output. */
export function parseLsTree(out: Buffer | string): TreeEntry[] {
  const text = typeof out === 'string' ? out : out.toString('utf8');
  const entries: TreeEntry[] = [];
  for (const rec of text.split('\0')) {
    if (!rec) continue;
    const tab = rec.indexOf('\t');
    const [mode, type, oid, size] = rec.slice(0, tab).split(/ +/);
    entries.push({ mode: mode.padStart(6, '0'), type: type as EntryType, oid, size: size === '-' ? 0 : Number(size), path: rec.slice(tab + 1) });
  }
  return entries;
}

/** Why a tree walk stopped before the end of the tree. */
export type WalkStop = 'entries' | 'depth' | null;

// why: a tree nested this deep exists only to hurt (git itself recurses once per level).
const MAX_TREE_DEPTH = 128;

/**
 * Walk `ls-tree -l -z [-r -t] <tree>` as git writes it, one entry at a time, never holding the
 * listing: `onEntry` sees each entry and returns false to stop. The walk also stops (git is
 * killed) after [git] MAX_TREE_ENTRIES entries or at an entry deeper than 128 directories, and
 * answers why, so a crafted tree of billions of paths costs a bounded read.
 */
export function walkTree(gitDir: string, tree: string, recursive: boolean, onEntry: (e: TreeEntry) => boolean | void): Promise<WalkStop> {
  const args = ['ls-tree', '-l', '-z', ...(recursive ? ['-r', '-t'] : []), '--end-of-options', tree];
  const maxEntries = settings().git.maxTreeEntries;
  return new Promise((resolve, reject) => {
    const child = spawnGit(args, { gitDir });
    let rest = Buffer.alloc(0);
    let seen = 0;
    let stop: WalkStop | undefined;
    let err = '';
    const end = (why: WalkStop) => {
      if (stop !== undefined) return;
      stop = why;
      child.kill('SIGKILL');
    };
    child.stdout.on('data', (d: Buffer) => {
      if (stop !== undefined) return;
      let buf = rest.length ? Buffer.concat([rest, d]) : d;
      let nul = buf.indexOf(0);
      while (nul >= 0 && stop === undefined) {
        const [entry] = parseLsTree(buf.subarray(0, nul + 1));
        buf = buf.subarray(nul + 1);
        if (++seen > maxEntries) end('entries');
        else if (entry.path.split('/').length > MAX_TREE_DEPTH) end('depth');
        else if (onEntry(entry) === false) end(null);
        nul = buf.indexOf(0);
      }
      rest = Buffer.from(buf);
    });
    child.stderr.on('data', (d: Buffer) => { if (err.length < 4096) err += d.toString(); });
    child.once('error', (e: Error) => reject(startFailure(e, gitDir)));
    child.once('close', (code) => {
      if (stop !== undefined) resolve(stop);
      else if (code === 0 && !reportsDamage(err)) resolve(null);
      else reject(gitFailure(args, code, err, gitDir));
    });
  });
}

/**
 * The entries at exactly the given paths (those that exist), keyed by path. why: `ls-tree` shows a
 * tree named by one path instead of descending into it for another, so paths of one depth (which can
 * never be prefixes of each other) go in one call, one call per depth.
 */
export async function entriesAt(gitDir: string, treeish: string, paths: string[]): Promise<Map<string, TreeEntry>> {
  const out = new Map<string, TreeEntry>();
  const byDepth = new Map<number, string[]>();
  const keep = FULL_ID.test(treeish);
  const wanted = [...new Set(paths.filter((x) => x !== ''))];
  const unknown = keep ? wanted.filter((p) => {
    const hit = entryAnswers.get(`${treeish}\0${p}`);
    if (hit) out.set(p, hit);
    return hit === undefined;
  }) : wanted;
  for (const p of unknown) {
    const d = p.split('/').length;
    byDepth.set(d, [...(byDepth.get(d) ?? []), p]);
  }
  for (const group of byDepth.values()) {
    const r = await runGit(['ls-tree', '-l', '-z', treeish, '--', ...group], { gitDir, env: LITERAL_PATHS });
    for (const e of parseLsTree(r.stdout)) if (group.includes(e.path)) out.set(e.path, e);
    if (keep) for (const p of group) entryAnswers.set(`${treeish}\0${p}`, out.get(p) ?? null);
  }
  return out;
}

/** The entries of directory `dir` ('' = root) of `treeish`, in git's order. */
export async function listDir(gitDir: string, treeish: string, dir: string): Promise<TreeEntry[]> {
  const args = ['ls-tree', '-l', '-z', treeish];
  if (dir) args.push('--', `${dir}/`);
  return parseLsTree((await runGit(args, { gitDir, env: LITERAL_PATHS })).stdout);
}

/** The content of blob `oid` (for small blobs; stream big ones with `streamBlob`). The buffer may be shared: never change it. */
export async function readBlob(gitDir: string, oid: string): Promise<Buffer> {
  const full = FULL_ID.test(oid);
  const key = `${gitDir}\0${oid}`;
  const kept = full ? smallBlobs.get(key) : undefined;
  if (kept) return kept;
  // why: a full id is read by the repository's long-running cat-file, which starts no process.
  const o = full ? (await readObjects(gitDir, [oid])).get(oid) : undefined;
  if (o?.type === 'blob') {
    if (o.data.length <= SMALL_BLOB) smallBlobs.set(key, o.data);
    return o.data;
  }
  return (await runGit(['cat-file', 'blob', oid], { gitDir })).stdout;
}

/** Store `content` as a blob (into `objects`' GIT_OBJECT_DIRECTORY when given: a quarantine); returns its id. */
export async function writeBlob(gitDir: string, content: Buffer | string, objects: Record<string, string> = {}): Promise<string> {
  return (await runGit(['hash-object', '-w', '--stdin'], { gitDir, input: content, env: objects })).stdout.toString().trim();
}

/** The first `max` bytes of blob `oid`. */
export function readBlobHead(gitDir: string, oid: string, max: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawnGit(['cat-file', 'blob', oid], { gitDir });
    const parts: Buffer[] = [];
    let n = 0;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      child.kill('SIGKILL');
      resolve(Buffer.concat(parts).subarray(0, max));
    };
    child.stdout.on('data', (d: Buffer) => {
      parts.push(d);
      n += d.length;
      if (n >= max) finish();
    });
    child.stderr.resume();
    child.once('error', reject);
    child.once('close', (code) => (code === 0 || done ? finish() : reject(new Error(`cat-file ${oid} failed`))));
  });
}

/** A git child streaming blob `oid` on stdout (killed with the client of the request it serves). */
export function streamBlob(gitDir: string, oid: string) {
  return spawnGit(['cat-file', 'blob', oid], { gitDir });
}

/** The last commit touching `path` at or before `commit`: id and committer/author times, or null. */
export async function lastCommitOfPath(gitDir: string, commit: string, path: string): Promise<{ sha: string; committed: Date; authored: Date } | null> {
  const key = `${commit}\0${path}`;
  const known = FULL_ID.test(commit) ? lastCommits.get(key) : undefined;
  if (known !== undefined) return known;
  const args = ['log', '-1', '--format=%H %ct %at', commit];
  if (path) args.push('--', path);
  const out = (await runGit(args, { gitDir, env: LITERAL_PATHS })).stdout.toString().trim();
  const [sha, ct, at] = out.split(' ');
  const last = out ? { sha, committed: new Date(Number(ct) * 1000), authored: new Date(Number(at) * 1000) } : null;
  if (FULL_ID.test(commit)) lastCommits.set(key, last);
  return last;
}

/** The url of the submodule at `path` from the commit's .gitmodules, or null. */
export async function submoduleUrl(gitDir: string, commit: string, path: string): Promise<string | null> {
  const r = await runGit(['config', '-z', '--blob', `${commit}:.gitmodules`, '--list'], { gitDir }).catch(gitRefused);
  if (!r) return null;
  const paths = new Map<string, string>();
  const urls = new Map<string, string>();
  for (const rec of r.stdout.toString().split('\0')) {
    const nl = rec.indexOf('\n');
    if (nl < 0) continue;
    const key = rec.slice(0, nl);
    const m = /^submodule\.(.*)\.(path|url)$/.exec(key);
    if (m) (m[2] === 'path' ? paths : urls).set(m[1], rec.slice(nl + 1));
  }
  for (const [name, p] of paths) if (p === path) return urls.get(name) ?? null;
  return null;
}

/** The header fields (first value of each) and the message of a commit or tag object. */
function parseObject(raw: string): { headers: Map<string, string[]>; message: string } {
  const cut = raw.indexOf('\n\n');
  const head = cut < 0 ? raw : raw.slice(0, cut);
  const headers = new Map<string, string[]>();
  let last = '';
  for (const line of head.split('\n')) {
    if (line.startsWith(' ') && last) {
      const vals = headers.get(last)!;
      vals[vals.length - 1] += `\n${line.slice(1)}`;
      continue;
    }
    const sp = line.indexOf(' ');
    last = sp < 0 ? line : line.slice(0, sp);
    headers.set(last, [...(headers.get(last) ?? []), sp < 0 ? '' : line.slice(sp + 1)]);
  }
  return { headers, message: cut < 0 ? '' : raw.slice(cut + 2) };
}

/** A parsed annotated tag object. */
export interface GitTag { sha: string; object: string; type: string; tag: string; tagger: GitIdentity | null; message: string; signature: string | null }

const SIG_START = /\n?-----BEGIN (PGP|SSH) SIGNATURE-----\n[\s\S]*$/;

/** Read and parse tag object `sha`. */
export async function readTag(gitDir: string, sha: string): Promise<GitTag> {
  const raw = (await runGit(['cat-file', 'tag', sha], { gitDir })).stdout.toString('utf8');
  const { headers, message } = parseObject(raw);
  const sig = SIG_START.exec(message);
  const tagger = headers.get('tagger')?.[0];
  return {
    sha,
    object: headers.get('object')?.[0] ?? '',
    type: headers.get('type')?.[0] ?? '',
    tag: headers.get('tag')?.[0] ?? '',
    tagger: tagger ? parseIdentity(tagger) : null,
    message: sig ? message.slice(0, sig.index) + (sig[0].startsWith('\n') ? '\n' : '') : message,
    signature: sig ? sig[0].replace(/^\n/, '') : null,
  };
}
