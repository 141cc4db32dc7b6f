/**
 * Building a new tree and commit in a bare repository's object database, never in a worktree: a
 * temporary index file (GIT_INDEX_FILE in a private temp directory) is loaded from the base commit,
 * edited with `update-index --index-info`, written with `write-tree`, and committed with
 * `commit-tree`. The new objects wait in a quarantine object directory (as a push's do) until
 * git's object checks pass; only then do they enter the repository. The branch is then moved with
 * `update-ref <ref> <new> <expected-old>`.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import zlib from 'node:zlib';
import { settings } from '../config';
import { Validation } from '../errors';
import { GitError, runGit, spawnGit } from './run';
import { LITERAL_PATHS, writeBlob } from './objects';
import { ZERO_ID } from './refs';
import { updateRefs } from './ref-write';

/** A temporary index over a base commit (or empty), writing into a quarantine. Call `close()` when done. */
export class IndexEditor {
  private constructor(private readonly gitDir: string, private readonly dir: string, private readonly quarantine: string) {}

  /** Where git writes and finds objects while the change is built: the quarantine, then the repository. */
  private get objects(): Record<string, string> {
    return { GIT_OBJECT_DIRECTORY: this.quarantine, GIT_ALTERNATE_OBJECT_DIRECTORIES: path.join(this.gitDir, 'objects') };
  }

  private get env(): Record<string, string> {
    return { ...LITERAL_PATHS, ...this.objects, GIT_INDEX_FILE: path.join(this.dir, 'index') };
  }

  /**
   * An index holding the tree of `base` (empty when null).
   * why: the quarantine lies inside the repository's object directory, so its objects enter by a
   * rename on the same filesystem; its name is the one git gives a push's quarantine, so the sweep of
   * leftovers (src/git/quarantine.ts) removes it if the server dies meanwhile.
   */
  static async open(gitDir: string, base: string | null): Promise<IndexEditor> {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'forge-index-'));
    const ed = new IndexEditor(gitDir, dir, await newQuarantine(gitDir));
    try {
      if (base) await runGit(['read-tree', base], { gitDir, env: ed.env });
      else await runGit(['read-tree', '--empty'], { gitDir, env: ed.env });
    } catch (err) {
      await ed.close();
      throw err;
    }
    return ed;
  }

  /** Write `content` as a blob; returns its id. */
  async hashBlob(content: Buffer): Promise<string> {
    return writeBlob(this.gitDir, content, this.objects);
  }

  /** Put blob `oid` at `p` with `mode` (100644, 100755 or 120000). */
  async set(p: string, mode: string, oid: string): Promise<void> {
    await runGit(['update-index', '-z', '--index-info'], { gitDir: this.gitDir, env: this.env, input: `${mode} ${oid}\t${p}\0` });
  }

  /** Remove `p` from the index. */
  async remove(p: string): Promise<void> {
    await runGit(['update-index', '-z', '--index-info'], { gitDir: this.gitDir, env: this.env, input: `0 ${ZERO_ID}\t${p}\0` });
  }

  /**
   * Apply a patch to the index (`git apply --cached`, never a worktree), as Gitea's ApplyDiffPatch
   * runs it: line counts recounted, whitespace differences ignored and fixed, binary patches
   * accepted, a three-way fallback for hunks whose context moved. The blobs it makes wait in the
   * quarantine. GitError when git refuses the patch.
   */
  async applyPatch(patch: Buffer): Promise<void> {
    await runGit(['apply', '--cached', '--recount', '--ignore-whitespace', '--whitespace=fix', '--binary', '-3'], { gitDir: this.gitDir, env: this.env, input: patch });
  }

  /** Does `.gitattributes` in the index (as edited so far) send `p` to LFS (`filter=lfs`)? */
  async isLfs(p: string): Promise<boolean> {
    const out = (await runGit(['check-attr', '--cached', '-z', '--stdin', 'filter'], { gitDir: this.gitDir, env: this.env, input: `${p}\0` })).stdout.toString();
    const [, , value] = out.split('\0');
    return value === 'lfs';
  }

  /**
   * Commit the index with `parents` (see commitTree); the commit and its objects enter the
   * repository only when git's object checks pass (422 otherwise, and nothing of it stays).
   */
  async commit(parents: string[], message: string, author: CommitPerson, committer: CommitPerson = author): Promise<string> {
    const tree = (await runGit(['write-tree'], { gitDir: this.gitDir, env: this.env })).stdout.toString().trim();
    const commit = await commitTree(this.gitDir, tree, parents, message, author, committer, this.objects);
    await publish(this.quarantine, path.join(this.gitDir, 'objects'));
    return commit;
  }

  /** Remove the temporary index and whatever the quarantine still holds. */
  async close(): Promise<void> {
    await fs.rm(this.dir, { recursive: true, force: true });
    await fs.rm(this.quarantine, { recursive: true, force: true });
  }
}

/** A new quarantine directory inside the repository's object directory (see IndexEditor.open for its name). */
async function newQuarantine(gitDir: string): Promise<string> {
  const dir = path.join(gitDir, 'objects', `tmp_objdir-incoming-forge-${crypto.randomBytes(6).toString('hex')}`);
  await fs.mkdir(dir);
  return dir;
}

/**
 * Run `fn` with the object environment of a fresh quarantine: objects git writes meanwhile wait
 * there (the repository's own stay readable) and enter the repository only when `fn` succeeds.
 */
export async function withQuarantine<T>(gitDir: string, fn: (objects: Record<string, string>) => Promise<T>): Promise<T> {
  const quarantine = await newQuarantine(gitDir);
  try {
    const out = await fn({ GIT_OBJECT_DIRECTORY: quarantine, GIT_ALTERNATE_OBJECT_DIRECTORIES: path.join(gitDir, 'objects') });
    await publish(quarantine, path.join(gitDir, 'objects'));
    return out;
  } finally {
    await fs.rm(quarantine, { recursive: true, force: true });
  }
}

/** The ids of the loose objects in a quarantine, and whether any of them is a blob. */
async function quarantinedIds(quarantine: string): Promise<{ ids: string[]; blobs: boolean }> {
  const ids: string[] = [];
  let blobs = false;
  for (const fan of await fs.readdir(quarantine)) {
    if (!/^[0-9a-f]{2}$/.test(fan)) continue;
    for (const name of await fs.readdir(path.join(quarantine, fan))) {
      ids.push(fan + name);
      if (!blobs) blobs = (await looseObjectType(path.join(quarantine, fan, name))) === 'blob';
    }
  }
  return { ids, blobs };
}

/** The type a loose object file names in its (deflated) header. */
async function looseObjectType(file: string): Promise<string> {
  const fh = await fs.open(file, 'r');
  try {
    const { buffer, bytesRead } = await fh.read(Buffer.alloc(64), 0, 64, 0);
    const head = zlib.inflateSync(buffer.subarray(0, bytesRead), { finishFlush: zlib.constants.Z_SYNC_FLUSH });
    return head.toString('latin1').split(' ')[0];
  } finally {
    await fh.close();
  }
}

/**
 * Move the loose objects of a quarantine into the object directory `to`. why: an object already
 * there is left as it is (same id, same content); a rename within the filesystem is atomic, so a
 * reader sees an object whole or not at all.
 */
async function publish(quarantine: string, to: string): Promise<void> {
  for (const fan of await fs.readdir(quarantine)) {
    if (!/^[0-9a-f]{2}$/.test(fan)) continue;
    await fs.mkdir(path.join(to, fan), { recursive: true });
    for (const name of await fs.readdir(path.join(quarantine, fan))) {
      const target = path.join(to, fan, name);
      await fs.access(target).then(() => undefined, () => fs.rename(path.join(quarantine, fan, name), target));
    }
  }
}

/**
 * The paths a patch touches (old and new names of renames and copies), as git's own parser reads
 * them (`git apply --numstat -z`, which applies nothing). GitError when git cannot read the patch.
 */
export async function patchPaths(gitDir: string, patch: Buffer): Promise<string[]> {
  const out = (await runGit(['apply', '--numstat', '-z', '--recount', '--binary'], { gitDir, input: patch })).stdout.toString('utf8');
  const paths: string[] = [];
  const parts = out.split('\0');
  for (let i = 0; i < parts.length; i++) {
    const rec = parts[i];
    if (rec === '') continue;
    const m = /^(?:\d+|-)\t(?:\d+|-)\t(.*)$/s.exec(rec);
    if (!m) continue;
    // why: a rename or copy has an empty name here, followed by its old and new names.
    if (m[1] === '') {
      paths.push(parts[i + 1] ?? '', parts[i + 2] ?? '');
      i += 2;
    } else {
      paths.push(m[1]);
    }
  }
  return paths;
}

/** Author or committer of a new commit; `offset` is the time zone git records (`+0200`; default `+0000`). */
export interface CommitPerson { name: string; email: string; date: Date; offset?: string }

/** Git's raw date form: `<unix seconds> <offset>`. */
function gitDate(p: CommitPerson): string {
  return `${Math.floor(p.date.getTime() / 1000)} ${p.offset ?? '+0000'}`;
}

/** Does the server sign the commits it makes ([repository.signing] SIGNING_KEY)? */
export function signsCommits(): boolean {
  return signingArgs().flag.length > 0;
}

/**
 * The git options and flag that make commit-tree sign with the instance key of `[repository.signing]`
 * (SIGNING_FORMAT ssh: SIGNING_KEY is a private key file; openpgp: a key id in the server's keyring).
 */
function signingArgs(): { config: string[]; flag: string[] } {
  const s = settings().signing;
  if (!s.signingKey || s.signingKey === 'none' || s.signingKey === 'default') return { config: [], flag: [] };
  const format = s.signingFormat === 'ssh' ? ['-c', 'gpg.format=ssh'] : [];
  return { config: [...format, '-c', `user.signingkey=${s.signingKey}`], flag: ['-S'] };
}

/**
 * Create a commit of `tree` with `parents`; returns its id. The message is stored exactly as given.
 * The one way the server makes commits: signed with the instance key when one is configured, and
 * checked by git (checkNewObjects; `merged` for a merge's commit) unless `check` is false, for a
 * caller that checks a whole series of commits at once.
 */
export async function commitTree(
  gitDir: string, tree: string, parents: string[], message: string, author: CommitPerson, committer: CommitPerson = author, objects: Record<string, string> = {},
  check: boolean | 'merged' = true,
): Promise<string> {
  const env = {
    ...objects,
    GIT_AUTHOR_NAME: author.name, GIT_AUTHOR_EMAIL: author.email, GIT_AUTHOR_DATE: gitDate(author),
    GIT_COMMITTER_NAME: committer.name, GIT_COMMITTER_EMAIL: committer.email, GIT_COMMITTER_DATE: gitDate(committer),
  };
  const sign = signingArgs();
  const args = [...sign.config, 'commit-tree', ...sign.flag, tree];
  for (const p of parents) args.push('-p', p);
  const commit = (await runGit(args, { gitDir, env, input: message })).stdout.toString().trim();
  if (check) await checkNewObjects(gitDir, commit, parents, objects, check === 'merged');
  return commit;
}

/**
 * Run git's own object checks (`index-pack --strict`, what receive.fsckObjects does for a push) on
 * the objects a new commit adds over its parents: a `.gitmodules` with a hostile submodule name or
 * URL, a `.git` tree entry, a malformed tree. 422 with git's words when they fail.
 * why: the server's own commits must meet the bar pushes meet; clients that clone them trust it.
 * The objects (`objects`: the quarantine they wait in, if any) are packed and indexed in a scratch
 * repository borrowing them, so the check writes nothing anywhere that stays.
 */
export async function checkNewObjects(gitDir: string, commit: string, parents: string[], objects: Record<string, string> = {}, merged = false): Promise<void> {
  // why: with a quarantine, exactly its objects are new; a walk from the commit would also check
  // every object of the branches merged in, which their pushes checked already. For a merge
  // (`merged`), new trees and commits alone are git's assembly of checked entries under names they
  // already had in a checked tree; only merged file contents (new blobs) can be new to the checks.
  const found = objects.GIT_OBJECT_DIRECTORY ? await quarantinedIds(objects.GIT_OBJECT_DIRECTORY) : null;
  if (found && (found.ids.length === 0 || (merged && !found.blobs))) return;
  const fresh = found?.ids ?? null;
  const scratch = await fs.mkdtemp(path.join(os.tmpdir(), 'forge-fsck-'));
  try {
    await fs.mkdir(path.join(scratch, 'objects', 'info'), { recursive: true });
    await fs.mkdir(path.join(scratch, 'objects', 'pack'));
    await fs.mkdir(path.join(scratch, 'refs'));
    await fs.writeFile(path.join(scratch, 'HEAD'), 'ref: refs/heads/main\n');
    const borrowed = [objects.GIT_OBJECT_DIRECTORY, path.resolve(gitDir, 'objects')].filter(Boolean);
    await fs.writeFile(path.join(scratch, 'objects', 'info', 'alternates'), `${borrowed.join('\n')}\n`);
    const pack = spawnGit(['pack-objects', ...(fresh ? [] : ['--revs']), '--stdout', '-q'], { gitDir, env: objects });
    pack.stderr.resume();
    pack.stdin.on('error', () => undefined);
    pack.stdin.end(fresh ? `${fresh.join('\n')}\n` : `${commit}\n${parents.map((p) => `^${p}\n`).join('')}`);
    await runGit(['index-pack', '--stdin', '--strict'], { gitDir: scratch, input: pack.stdout }).catch((err: unknown) => {
      if (!(err instanceof GitError)) throw err;
      const found = err.stderr.split('\n').filter((l) => l.startsWith('error: object ')).map((l) => l.replace(/^error: object [0-9a-f]+: /, ''));
      if (found.length) throw new Validation(`git refuses the change: ${[...new Set(found)].join('; ')}`);
      throw err;
    });
  } finally {
    await fs.rm(scratch, { recursive: true, force: true });
  }
}

/** Move `ref` to `next` only if it is at `expected` (null: it must not exist); RefConflict otherwise. */
export async function updateRef(gitDir: string, ref: string, next: string, expected: string | null): Promise<void> {
  await updateRefs(gitDir, [ref, next, expected ?? ZERO_ID]);
}
