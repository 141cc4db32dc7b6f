/**
 * Git bundles, the form a repository dump carries code and wiki in: made with `git bundle create
 * --all`, read back by fetching from the bundle file into a bare repository made by initBare (so
 * the server's configuration and hooks are there), with the objects checked as fetched ones are.
 */
import fsp from 'node:fs/promises';
import { settings } from '../config';
import { runGit } from './run';

/** The refs a restore takes from a bundle: branches, tags and the heads of pull requests. */
const BUNDLE_REFSPECS = ['+refs/heads/*:refs/heads/*', '+refs/tags/*:refs/tags/*', '+refs/pull/*:refs/pull/*'];

/** Write every ref of the bare repository `gitDir` into the bundle `file`; false (and no file) when it has no ref. */
export async function createBundle(gitDir: string, file: string): Promise<boolean> {
  const refs = await runGit(['for-each-ref', '--count=1', '--format=%(refname)'], { gitDir });
  // why: git refuses to write an empty bundle; an empty repository is dumped without one.
  if (refs.stdout.toString().trim() === '') return false;
  await runGit(['bundle', 'create', '--quiet', file, '--all'], { gitDir, timeoutMs: settings().gitTimeout.migrate * 1000 });
  return true;
}

/** Does `file` start like a git bundle (version 2 or 3)? */
export async function looksLikeBundle(file: string): Promise<boolean> {
  const fh = await fsp.open(file, 'r');
  try {
    const head = Buffer.alloc(16);
    const { bytesRead } = await fh.read(head, 0, 16, 0);
    return /^# v[23] git bundle\n/.test(head.subarray(0, bytesRead).toString('latin1'));
  } finally {
    await fh.close();
  }
}

/** Fetch the branches, tags and pull request heads of the bundle `file` into the bare repository `gitDir`. */
export async function fetchBundle(gitDir: string, file: string): Promise<void> {
  await runGit([
    '-c', 'fetch.fsckObjects=true', '-c', 'transfer.fsckObjects=true',
    'fetch', '--quiet', '--no-write-fetch-head', '--end-of-options', file, ...BUNDLE_REFSPECS,
  ], { gitDir, timeoutMs: settings().gitTimeout.migrate * 1000 });
}
