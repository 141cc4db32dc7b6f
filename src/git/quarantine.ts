/**
 * Push quarantines: git receives a push into a quarantine directory (`objects/tmp_objdir-incoming-*`),
 * which the pre-receive checks read through the hook's object-directory variables, and removes it
 * when the push ends, but not when receive-pack is killed. Stale ones are found by their newest file
 * (a push still receiving keeps writing its pack).
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { BadRequest } from '../errors';

const PREFIX = 'tmp_objdir-incoming-';

/** The newest mtime (ms) under `dir`, the directory itself included. */
async function newestMtime(dir: string): Promise<number> {
  let newest = (await fs.stat(dir)).mtimeMs;
  for (const e of await fs.readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    newest = Math.max(newest, e.isDirectory() ? await newestMtime(p) : (await fs.lstat(p)).mtimeMs);
  }
  return newest;
}

/**
 * Every quarantine directory under the repositories of `root` (`<owner>/<repo>.git`) whose newest
 * file is older than `olderThanMs`.
 */
export async function findStaleQuarantines(root: string, olderThanMs: number): Promise<string[]> {
  const cutoff = Date.now() - olderThanMs;
  const stale: string[] = [];
  for (const owner of await fs.readdir(root).catch(() => [] as string[])) {
    for (const repo of await fs.readdir(path.join(root, owner)).catch(() => [] as string[])) {
      const objects = path.join(root, owner, repo, 'objects');
      for (const name of await fs.readdir(objects).catch(() => [] as string[])) {
        if (!name.startsWith(PREFIX)) continue;
        const dir = path.join(objects, name);
        if ((await newestMtime(dir).catch(() => Infinity)) < cutoff) stale.push(dir);
      }
    }
  }
  return stale;
}

/** Remove the stale quarantine directories (see findStaleQuarantines); returns how many were removed. */
export async function removeStaleQuarantines(root: string, olderThanMs: number): Promise<number> {
  const stale = await findStaleQuarantines(root, olderThanMs);
  for (const dir of stale) await fs.rm(dir, { recursive: true, force: true });
  return stale.length;
}

/** The variables git gives a pre-receive hook to reach the objects of the push it decides. */
const OBJECT_ENV = ['GIT_OBJECT_DIRECTORY', 'GIT_ALTERNATE_OBJECT_DIRECTORIES', 'GIT_QUARANTINE_PATH'];

/**
 * The object-directory variables a hook passed on, for git commands that must see a push's
 * objects before it is accepted. Throws unless every directory named is the repository's object
 * store or a quarantine inside it (the variables arrive in a request body, never trusted).
 */
export function quarantineEnv(gitDir: string, given: Record<string, unknown> | undefined): Record<string, string> {
  const objects = path.resolve(gitDir, 'objects');
  const inside = (dir: string) => {
    const p = path.resolve(gitDir, dir);
    return p === objects || (path.dirname(p) === objects && path.basename(p).startsWith(PREFIX));
  };
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(given ?? {})) {
    if (!OBJECT_ENV.includes(key) || typeof value !== 'string' || !value.split(':').every(inside)) {
      throw new BadRequest(`${key} does not name an object directory of the repository`);
    }
    env[key] = value;
  }
  return env;
}
