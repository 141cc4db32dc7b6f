/**
 * Creating bare repositories on disk and their first commit. The first commit is built in the
 * object database (hash-object, mktree, commit-tree, update-ref) and never in a worktree.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { Validation } from '../errors';
import { runGit } from './run';
import { installHooks } from './hooks';
import { commitTree } from './tree-edit';
import { ZERO_ID } from './refs';
import { closeRepoProcesses } from './batch';

/**
 * Give the bare repository at `dir` the server's configuration and hooks. Every way a repository
 * comes to exist (init, fork clone) ends here, so server-wide repository settings live in one place.
 */
export async function configureRepo(dir: string): Promise<void> {
  const set = (k: string, v: string) => runGit(['config', k, v], { gitDir: dir });
  await set('receive.fsckObjects', 'true');
  await set('core.fsync', 'objects,derived-metadata,reference');
  await set('core.fsyncMethod', 'fsync');
  // why: the server owns hooks; git's samples are never wanted. Repositories are made without
  // git's template (no samples); this clears hooks of a directory made another way. Retries ride
  // out a directory listing that changed under the removal (ENOTEMPTY, seen once under load).
  await fs.rm(path.join(dir, 'hooks'), { recursive: true, force: true, maxRetries: 3 });
  await installHooks(dir);
}

/**
 * Replace the configuration of a bare repository the server did not make (an adopted one) with a
 * fresh one of its own: whatever the file held (`core.hooksPath`, `core.fsmonitor`, includes,
 * `uploadpack.packObjectsHook`, ...) could run programs on the server's next git call. Only what
 * the repository format needs is kept. Call configureRepo afterwards.
 */
export async function resetRepoConfig(dir: string): Promise<void> {
  const get = async (key: string) => (await runGit(['config', '--file', path.join(dir, 'config'), '--get', key]).catch(() => null))?.stdout.toString().trim() ?? '';
  const format = await get('extensions.objectformat');
  if (format && format !== 'sha1') throw new Validation(`object format ${format} is not supported yet`);
  // why: the file is written whole, then renamed over the old one, so git never reads half of it.
  const tmp = path.join(dir, `config.forge-${process.pid}`);
  await fs.writeFile(tmp, '[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = true\n');
  await fs.rename(tmp, path.join(dir, 'config'));
}

/** Make a bare repository at `dir` with the server's configuration and hooks. */
export async function initBare(dir: string, defaultBranch: string): Promise<void> {
  await fs.mkdir(path.dirname(dir), { recursive: true });
  await runGit(['init', '--bare', '--quiet', '--template=', `--initial-branch=${defaultBranch}`, '--', dir]);
  await configureRepo(dir);
}

/**
 * Make `to` a bare copy of the bare repository `from` (every branch and tag), configured like
 * initBare, with HEAD on `defaultBranch`.
 * why: `--local` hardlinks the object files instead of copying them. That is safe because git
 * never changes an object or pack file in place (repack and gc write new files and unlink old
 * ones, which only drops that repository's link), and it makes forking a large repository cost
 * no time or space. Refs are read before the objects are linked, so every copied ref has its
 * objects. The clone's remote.origin (the parent's server path) is removed: the server owns config.
 */
export async function cloneBare(from: string, to: string, defaultBranch: string): Promise<void> {
  await fs.mkdir(path.dirname(to), { recursive: true });
  await runGit(['clone', '--bare', '--local', '--quiet', '--template=', '--', from, to]);
  await runGit(['config', '--remove-section', 'remote.origin'], { gitDir: to }).catch(() => undefined);
  await configureRepo(to);
  await setHeadBranch(to, defaultBranch);
}

/** A file of the first commit. */
export interface InitialFile { name: string; content: string }

/** Who authors the first commit. */
export interface Signature { name: string; email: string }

/** Commit `files` as the root commit of `branch` in the bare repository `dir`; returns the commit id. */
export async function commitInitialFiles(dir: string, branch: string, files: InitialFile[], who: Signature, message: string): Promise<string> {
  const entries: string[] = [];
  for (const f of [...files].sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const blob = (await runGit(['hash-object', '-w', '--stdin'], { gitDir: dir, input: f.content })).stdout.toString().trim();
    entries.push(`100644 blob ${blob}\t${f.name}`);
  }
  const tree = (await runGit(['mktree'], { gitDir: dir, input: `${entries.join('\n')}\n` })).stdout.toString().trim();
  const commit = await commitTree(dir, tree, [], `${message}\n`, { ...who, date: new Date() });
  await runGit(['update-ref', `refs/heads/${branch}`, commit, ZERO_ID], { gitDir: dir });
  return commit;
}

/** Does a directory exist at `dir`? */
export async function dirExists(dir: string): Promise<boolean> {
  return fs.stat(dir).then((s) => s.isDirectory(), () => false);
}

/** Remove a repository directory (no error when absent). */
export async function removeRepoDir(dir: string): Promise<void> {
  closeRepoProcesses(dir);
  await fs.rm(dir, { recursive: true, force: true, maxRetries: 3 });
}

/** Move a repository directory (rename), creating the new parent directory when needed. */
export async function moveRepoDir(from: string, to: string): Promise<void> {
  closeRepoProcesses(from);
  await fs.mkdir(path.dirname(to), { recursive: true });
  await fs.rename(from, to);
}

/** Is `name` a branch of the repository at `dir`? */
export async function branchExists(dir: string, name: string): Promise<boolean> {
  return runGit(['show-ref', '--verify', '--quiet', `refs/heads/${name}`], { gitDir: dir }).then(() => true, () => false);
}

/** Is `name` acceptable as a branch name (git check-ref-format --branch, and no leading '-')? */
export async function validBranchName(name: string): Promise<boolean> {
  if (!name || name.startsWith('-') || /[\0\r\n]/.test(name) || name === 'HEAD') return false;
  return runGit(['check-ref-format', '--branch', name]).then(() => true, () => false);
}

/** Point HEAD of the bare repository at `branch`. */
export async function setHeadBranch(dir: string, branch: string): Promise<void> {
  await runGit(['symbolic-ref', 'HEAD', `refs/heads/${branch}`], { gitDir: dir });
}
