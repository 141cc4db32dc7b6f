/**
 * Reading and writing trees and commits in the object database of a bare repository, for work
 * that builds new content from existing objects (generating a repository from a template). Trees
 * are built with a temporary index file (read-tree, update-index, write-tree): no worktree is
 * ever checked out, and file modes, symlinks and submodule links are kept exactly.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { runGit, spawnGit, GitError } from './run';
import { ZERO_ID } from './refs';

/**
 * One entry of a recursive tree listing. `path` holds the raw bytes of the name, one character
 * per byte (latin1), so any name git stores survives the round trip into editTree unchanged.
 */
export interface TreeEntry { mode: string; type: 'blob' | 'tree' | 'commit'; oid: string; path: string }

/** The root tree of a commit. */
export async function treeOf(gitDir: string, commit: string): Promise<string> {
  return (await runGit(['rev-parse', '--verify', '--end-of-options', `${commit}^{tree}`], { gitDir })).stdout.toString().trim();
}

/** Every entry of `tree`, recursively, subtrees included (paths are never shell-quoted: -z). */
export async function listTree(gitDir: string, tree: string): Promise<TreeEntry[]> {
  const out = (await runGit(['ls-tree', '-r', '-t', '-z', '--full-tree', tree], { gitDir })).stdout.toString('latin1');
  const entries: TreeEntry[] = [];
  for (const rec of out.split('\0')) {
    if (!rec) continue;
    const tab = rec.indexOf('\t');
    const [mode, type, oid] = rec.slice(0, tab).split(' ');
    entries.push({ mode, type: type as TreeEntry['type'], oid, path: rec.slice(tab + 1) });
  }
  return entries;
}

function waitExit(child: ReturnType<typeof spawnGit>, args: string[]): Promise<void> {
  let err = '';
  child.stderr.on('data', (d: Buffer) => { if (err.length < 65_536) err += d.toString(); });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve() : reject(new GitError(args, code, err))));
  });
}

/**
 * Copy the objects `oids` (and nothing else) from the repository `from` into `to`, as one pack.
 * why: pack-objects streams straight into index-pack; both are bounded by the object set, not by
 * the history of `from`, and nothing passes through the event loop's memory.
 */
export async function copyObjects(from: string, to: string, oids: string[]): Promise<void> {
  if (oids.length === 0) return;
  const packArgs = ['pack-objects', '--stdout', '-q'];
  const indexArgs = ['index-pack', '--stdin', '--strict'];
  const pack = spawnGit(packArgs, { gitDir: from });
  const index = spawnGit(indexArgs, { gitDir: to });
  pack.stdout.pipe(index.stdin);
  index.stdout.resume();
  index.stdin.on('error', () => undefined);
  pack.stdin.on('error', () => undefined);
  const done = Promise.all([waitExit(pack, packArgs), waitExit(index, indexArgs)]);
  pack.stdin.end(`${[...new Set(oids)].join('\n')}\n`);
  await done;
}

/** A change to a tree: remove `path`, or set it to the given entry (paths as in TreeEntry: latin1 bytes). */
export type TreeEdit = { path: string; remove: true } | { path: string; mode: string; oid: string };

/**
 * A new tree: `base` with `edits` applied in order (paths are full paths from the root).
 * why: a throw-away index file in a temporary directory carries the tree while it changes; the
 * repository's own files are untouched until write-tree stores the result as objects.
 */
export async function editTree(gitDir: string, base: string, edits: TreeEdit[]): Promise<string> {
  const tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'forge-index-'));
  const env = { GIT_INDEX_FILE: path.join(tmp, 'index') };
  try {
    await runGit(['read-tree', base], { gitDir, env });
    const lines = edits.map((e) => ('remove' in e ? `0 ${ZERO_ID}\t${e.path}` : `${e.mode} ${e.oid}\t${e.path}`));
    if (lines.length) await runGit(['update-index', '-z', '--index-info'], { gitDir, env, input: Buffer.from(`${lines.join('\0')}\0`, 'latin1') });
    return (await runGit(['write-tree'], { gitDir, env })).stdout.toString().trim();
  } finally {
    await fs.rm(tmp, { recursive: true, force: true });
  }
}
