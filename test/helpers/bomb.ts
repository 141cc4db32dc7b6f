/**
 * A "git bomb": a repository of a few kilobytes whose one commit holds 10^levels paths (each tree
 * names the tree below it ten times), built with git's plumbing in a scratch bare repository.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gitHome } from './repo-fixture';

/** A bare repository with branch `main` at the bomb commit; returns its directory and the commit. */
export function makeBomb(levels = 10): { dir: string; commit: string } {
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: gitHome(), GIT_CONFIG_NOSYSTEM: '1' };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'forge-bomb-'));
  const git = (args: string[], input = '') => execFileSync('git', ['--git-dir', dir, ...args], { env, input }).toString().trim();
  execFileSync('git', ['init', '--bare', '-q', dir], { env });
  let id = git(['hash-object', '-w', '--stdin'], 'boom\n');
  let mode = '100644 blob';
  for (let level = 0; level < levels; level++) {
    id = git(['mktree'], `${Array.from({ length: 10 }, (_, i) => `${mode} ${id}\t${level === 0 ? 'f' : 'd'}${i}`).join('\n')}\n`);
    mode = '040000 tree';
  }
  const commit = git(['commit-tree', id, '-m', 'ten thousand million files']);
  git(['update-ref', 'refs/heads/main', commit]);
  return { dir, commit };
}
