/**
 * Unadopted repositories (Gitea's services/repository/adopt.go): bare repositories under the
 * repository root whose owner exists but that have no row. A site administrator lists them
 * (`GET /admin/unadopted`), adopts one (a row made from what is on disk: the default branch from
 * HEAD, the branches, size and emptiness from its refs, the server's hooks and configuration
 * installed) or deletes its directory. Creating, forking, generating or migrating a repository onto
 * such a directory is refused instead of replacing it, so files nobody registered are never lost
 * silently.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { withTx, type DbContext } from '../../db';
import { NotFound, Validation } from '../../errors';
import { settings } from '../../config';
import { repoPath } from '../../git/paths';
import { configureRepo, dirExists, removeRepoDir, resetRepoConfig, setHeadBranch } from '../../git/init';
import { headBranch } from '../../git/refs';
import { runGit } from '../../git/run';
import { withRepoLock } from '../../lock';
import { findRepoById, repoLowerNamesOfOwners, repoRowExists, type RepositoryModel } from '../../models/repository.model';
import { findUserByName, findUsersByLowerNames, type UserModel } from '../../models/user.model';
import { recordInitialRefs } from '../git-push/sync.service';
import { notify } from '../notify/notifier';
import { compileGlob, globMatches, PatternError, type Glob } from '../refs/pattern';
import { assertRepoName } from '../repo/rules';
import { DEFAULT_UNITS, discardNewRepo, insertOwnedRepo } from './repo-create.service';

const NAME = /^[A-Za-z0-9_.-]+$/;

/** The owner and repository globs of a query (`owner-glob/repo-glob`, or an owner glob alone), as Gitea reads it. */
function queryGlobs(query: string): { user: Glob | null; repo: Glob | null } {
  try {
    const at = query.indexOf('/');
    if (at >= 0 && query.length > 1) {
      const repo = query.slice(at + 1);
      return { user: compileGlob(query.slice(0, at).toLowerCase()), repo: repo ? compileGlob(repo.toLowerCase()) : null };
    }
    return { user: query ? compileGlob(query.toLowerCase()) : null, repo: null };
  } catch (err) {
    if (err instanceof PatternError) throw new Validation(`invalid pattern: ${query}`);
    throw err;
  }
}

async function subdirs(dir: string): Promise<string[]> {
  const entries = await fs.readdir(dir, { withFileTypes: true }).catch(() => []);
  return entries.filter((e) => e.isDirectory()).map((e) => e.name).sort();
}

/** `owner/name` of every unadopted repository matching `query`, one page of them, and their number. */
export async function listUnadopted(ctx: DbContext, query: string, limit: number, offset: number): Promise<{ names: string[]; count: number }> {
  const globs = queryGlobs(query.trim());
  const root = path.resolve(settings().repository.root);
  const ownerDirs = (await subdirs(root)).filter((d) => NAME.test(d) && d === d.toLowerCase() && (!globs.user || globMatches(globs.user, d)));
  // why: one query for the owners and one for their repositories, however many directories there are.
  const owners = await findUsersByLowerNames(ctx, ownerDirs);
  const byLower = new Map(owners.map((o) => [o.lowerName, o]));
  const rows = await repoLowerNamesOfOwners(ctx, owners.map((o) => o.id));
  const all: string[] = [];
  for (const d of ownerDirs) {
    const owner = byLower.get(d);
    if (!owner) continue;
    for (const sub of await subdirs(path.join(root, d))) {
      if (!sub.endsWith('.git') || sub.endsWith('.wiki.git')) continue;
      const name = sub.slice(0, -'.git'.length);
      if (!NAME.test(name) || rows.get(owner.id)?.has(name)) continue;
      if (globs.repo && !globMatches(globs.repo, name)) continue;
      all.push(`${owner.name}/${name}`);
    }
  }
  return { names: all.slice(offset, offset + limit), count: all.length };
}

/** The owner and directory of an unadopted repository; 404 when the owner is missing, it has a row, or nothing is there. */
async function unadoptedDir(ctx: DbContext, ownerName: string, name: string): Promise<{ owner: UserModel; dir: string }> {
  const owner = await findUserByName(ctx, ownerName);
  if (!owner || !NAME.test(name) || name === '.' || name === '..') throw new NotFound();
  const dir = repoPath(owner.name, name);
  if ((await repoRowExists(ctx, owner.name, name)) || !(await dirExists(dir))) throw new NotFound();
  const stat = await fs.lstat(dir).catch(() => null);
  if (!stat?.isDirectory()) throw new NotFound();
  return { owner, dir };
}

/** The branch to make default: HEAD's when it exists, else the first branch (none: HEAD's name, or main). */
async function adoptedDefaultBranch(dir: string): Promise<{ branch: string; exists: boolean }> {
  const head = await headBranch(dir);
  const list = (await runGit(['for-each-ref', '--format=%(refname:lstrip=2)', 'refs/heads/'], { gitDir: dir })).stdout.toString().split('\n').filter(Boolean);
  if (head && list.includes(head)) return { branch: head, exists: true };
  if (list.length) return { branch: list[0], exists: true };
  return { branch: head || 'main', exists: false };
}

/** Adopt the files of `owner/name` as a private repository of `owner` (Gitea's AdoptRepository). */
export async function adoptRepository(ctx: DbContext, doer: UserModel, ownerName: string, name: string): Promise<RepositoryModel> {
  const { owner, dir } = await unadoptedDir(ctx, ownerName, name);
  assertRepoName(name);
  const bare = await runGit(['rev-parse', '--is-bare-repository'], { gitDir: dir }).catch(() => null);
  if (bare?.stdout.toString().trim() !== 'true') throw new Validation(`not a bare git repository [uname: ${owner.name}, name: ${name}]`);
  const { branch, exists } = await adoptedDefaultBranch(dir);
  // why: Gitea's API adopts as private; the owner decides later whether to publish it.
  const repo = await insertOwnedRepo(ctx, doer, owner, {
    name: name.toLowerCase(), description: '', defaultBranch: branch, isPrivate: true, isTemplate: false, objectFormatName: 'sha1', isEmpty: true,
  }, DEFAULT_UNITS, { kind: 'create', taken: () => 'The repository with the same name already exists.' });
  // why: the new row's lock keeps writes out until the server's hooks and configuration are in place.
  await withRepoLock(repo.id, async () => {
    try {
      // why: the server owns the configuration and hooks of every repository it serves; an adopted one's own go.
      await resetRepoConfig(dir);
      await configureRepo(dir);
      if (exists) await setHeadBranch(dir, branch);
    } catch (err) {
      // why: the files were there before the row; a failed adoption removes the row and keeps them.
      await discardNewRepo(ctx, repo, null);
      throw err;
    }
  });
  // why: the branch rows, size and empty flag come from the refs on disk, as after a push.
  await recordInitialRefs(repo.id, doer.id, branch, ctx);
  await withTx(ctx, (tx) => notify.repositoryCreated(tx, { doer, repo, owner }));
  return (await findRepoById(ctx, repo.id)) ?? repo;
}

/** Delete the files of the unadopted repository `owner/name` (Gitea's DeleteUnadoptedRepository). */
export async function deleteUnadopted(ctx: DbContext, ownerName: string, name: string): Promise<void> {
  const { dir } = await unadoptedDir(ctx, ownerName, name);
  await removeRepoDir(dir);
}
