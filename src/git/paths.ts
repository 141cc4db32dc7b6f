/**
 * Where repositories live: `<[repository] ROOT>/<owner lower>/<repo lower>.git`, with names checked
 * so a path can never leave the storage root.
 */
import path from 'node:path';
import { settings } from '../config';
import { Validation } from '../errors';

const NAME = /^[A-Za-z0-9_.-]+$/;

/** Throw 422 unless `name` is a safe owner or repository name. */
export function assertStorageName(name: string, what = 'name'): void {
  if (typeof name !== 'string' || !NAME.test(name) || name === '.' || name === '..' || name.length > 100) {
    throw new Validation(`[${what}]: must contain only letters, digits, '-', '_' and '.', and not be '.' or '..'`);
  }
}

/** The bare repository directory of owner/repo (the wiki adds `.wiki`). */
export function repoPath(ownerName: string, repoName: string, wiki = false): string {
  assertStorageName(ownerName, 'owner');
  assertStorageName(repoName, 'repo');
  const root = path.resolve(settings().repository.root);
  const p = path.resolve(root, ownerName.toLowerCase(), `${repoName.toLowerCase()}${wiki ? '.wiki' : ''}.git`);
  // why: defence in depth; the name rules above already keep the path under the root.
  if (path.dirname(path.dirname(p)) !== root) throw new Validation('[repo]: path escapes the repository root');
  return p;
}

/** The directory holding every repository of an owner. */
export function ownerPath(ownerName: string): string {
  assertStorageName(ownerName, 'owner');
  return path.resolve(settings().repository.root, ownerName.toLowerCase());
}
