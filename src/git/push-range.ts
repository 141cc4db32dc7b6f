/**
 * What one ref update of a push does to history, asked in pre-receive with the push's quarantined
 * object directories (`env`, see ./quarantine): whether it drops commits (a force push), which
 * commits it adds, and which paths it changes. Ids are full object ids from git's hook input.
 */
import { diffFiles } from './history';
import { ZERO_ID } from './refs';
import { runGit } from './run';

type Env = Record<string, string>;

const lines = (b: Buffer) => b.toString().split('\n').filter(Boolean);

/** Does moving the ref from `old` to `next` leave commits behind (a force push)? */
export async function dropsCommits(gitDir: string, old: string, next: string, env: Env): Promise<boolean> {
  if (old === ZERO_ID) return false;
  return (await runGit(['rev-list', '--max-count=1', old, `^${next}`], { gitDir, env })).stdout.length > 0;
}

/** The commits the ref gains (newest first): `old..next`, or for a new ref those no existing ref reaches. */
export async function gainedCommits(gitDir: string, old: string, next: string, env: Env): Promise<string[]> {
  const args = old === ZERO_ID ? ['rev-list', next, '--not', '--all'] : ['rev-list', `${old}..${next}`];
  return lines((await runGit(args, { gitDir, env })).stdout);
}

/**
 * The paths the update changes (both sides of a rename): against `old`, or for a new ref against
 * the commit where its first-parent line leaves the existing history (everything, for a new root).
 */
export async function changedPaths(gitDir: string, old: string, next: string, env: Env): Promise<string[]> {
  let from = old;
  if (old === ZERO_ID) {
    const line = lines((await runGit(['rev-list', '--first-parent', '--parents', next, '--not', '--all'], { gitDir, env })).stdout);
    if (line.length === 0) return [];
    from = line[line.length - 1].split(' ')[1] ?? '';
    if (!from) return (await runGit(['ls-tree', '-r', '-z', '--name-only', next], { gitDir, env })).stdout.toString().split('\0').filter(Boolean);
  }
  return (await diffFiles(gitDir, from, next, env)).map((f) => f.path);
}
