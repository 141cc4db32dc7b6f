/**
 * Content reads that can take long on big histories or trees: the last commit of each entry of a
 * directory (one `git log` walk, stopped as soon as every entry is found) and pages of (recursive)
 * tree listings. Results are cached per commit id, which never changes meaning.
 */
import { settings } from '../../src/config';
import { spawnGit } from '../../src/git/run';
import { LITERAL_PATHS, objectInfo, walkTree } from '../../src/git/objects';
import { taskError } from '../errors';

/** The last commit of an entry: id and unix seconds of committer and author dates. */
export interface LastCommit { sha: string; committed: number; authored: number }

/** Arguments of lastCommits. */
export interface LastCommitsArgs { gitDir: string; commitId: string; dir: string; names: string[] }

const CACHE_MAX = 512;
const cache = new Map<string, Record<string, LastCommit>>();

function remember(key: string, value: Record<string, LastCommit>): void {
  cache.delete(key);
  cache.set(key, value);
  if (cache.size > CACHE_MAX) cache.delete(cache.keys().next().value as string);
}

/**
 * The last commit touching each of `names` (entries of directory `dir`, '' = root) at or before
 * `commitId`. why: one `git log --name-only` walk answers every entry at once, and it is killed the
 * moment the last entry is found, so a listing costs one walk to the oldest entry's change.
 */
export async function lastCommits({ gitDir, commitId, dir, names }: LastCommitsArgs): Promise<Record<string, LastCommit>> {
  const key = `${gitDir}\0${commitId}\0${dir}`;
  const hit = cache.get(key);
  if (hit && names.every((n) => hit[n])) return hit;
  const want = new Set(names);
  const found: Record<string, LastCommit> = {};
  const prefix = dir ? `${dir}/` : '';
  const args = ['log', '-z', '--name-only', '--no-renames', '--format=%x01%H %ct %at', commitId];
  if (dir) args.push('--', prefix);
  // why: a commit can name billions of paths (a crafted tree); past this many names the walk stops and
  // the entries not found by then are listed without a last commit.
  const maxNames = settings().git.maxTreeEntries * 10;
  let namesRead = 0;
  await new Promise<void>((resolve, reject) => {
    const child = spawnGit(args, { gitDir, env: LITERAL_PATHS });
    let buf = '';
    let current: LastCommit | null = null;
    let done = false;
    const finish = () => {
      if (!done) { done = true; child.kill('SIGKILL'); resolve(); }
    };
    const take = (rec: string) => {
      // A record is "<sha> <ct> <at>\0\n<name>\0<name>\0..." (names may be absent).
      const parts = rec.split('\0');
      const [sha, ct, at] = parts[0].split(' ');
      current = { sha, committed: Number(ct), authored: Number(at) };
      for (let name of parts.slice(1)) {
        name = name.replace(/^\n/, '');
        if (!name.startsWith(prefix)) continue;
        const top = name.slice(prefix.length).split('/')[0];
        if (want.has(top) && !found[top]) {
          found[top] = current;
          want.delete(top);
        }
      }
      namesRead += parts.length - 1;
      if (want.size === 0 || namesRead > maxNames) finish();
    };
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (d: string) => {
      if (done) return;
      buf += d;
      let i = buf.indexOf('\x01', 1);
      while (i > 0 && !done) {
        take(buf.slice(1, i));
        buf = buf.slice(i);
        i = buf.indexOf('\x01', 1);
      }
    });
    child.stderr.resume();
    child.once('error', (e) => (done ? undefined : reject(e)));
    child.once('close', () => {
      if (!done && buf.startsWith('\x01')) take(buf.slice(1));
      done = true;
      resolve();
    });
  });
  remember(key, found);
  return found;
}

/** Arguments of treePage. */
export interface TreePageArgs { gitDir: string; sha: string; recursive: boolean; page: number; perPage: number }

/** One page of a tree listing. */
export interface TreePage {
  sha: string;
  total: number;
  truncated: boolean;
  entries: { path: string; mode: string; type: string; size: number; sha: string }[];
}

const HEX = /^[0-9a-f]{4,64}$/;

/**
 * Page `page` (1-based, `perPage` entries) of the tree that `sha` names (a tree, commit or tag id, or
 * a branch or tag name), listed recursively when asked. A name that is no tree is a 400 as in Gitea.
 * The listing is read as git writes it, keeping only the page: `total` counts at most [git]
 * MAX_TREE_ENTRIES entries, and a listing cut there (or at an absurd depth) is `truncated`.
 */
export async function treePage({ gitDir, sha, recursive, page, perPage }: TreePageArgs): Promise<TreePage> {
  const tries = HEX.test(sha) ? [`${sha}^{tree}`] : [`refs/heads/${sha}^{tree}`, `refs/tags/${sha}^{tree}`];
  const infos = /[\s\0]/.test(sha) ? [] : await objectInfo(gitDir, tries);
  const tree = infos.find((i) => i?.type === 'tree');
  if (!tree) throw taskError(400, `sha not found [${sha}]`);
  const start = perPage * (page - 1);
  const out: TreePage = { sha: tree.oid, total: 0, truncated: false, entries: [] };
  const stop = await walkTree(gitDir, tree.oid, recursive, (e) => {
    const i = out.total++;
    if (i >= start && i < start + perPage) out.entries.push({ path: e.path, mode: e.mode, type: e.type, size: e.size, sha: e.oid });
  });
  out.truncated = stop !== null || start + perPage < out.total;
  return out;
}
