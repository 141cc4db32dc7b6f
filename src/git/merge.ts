/**
 * Merges computed in the object database, never in a worktree: whether a head merges cleanly
 * into a base (`git merge-tree --write-tree`, which writes the merged tree and names the
 * conflicted paths), and how far two commits have gone apart.
 */
import { runGit } from './run';

/** The tree a merge would give, and the paths it could not merge (empty when clean). */
export interface MergeTrial { tree: string; conflicts: string[] }

/** Merge `head` into `base` in the object database. Ids must be full commit ids. */
export async function tryMerge(gitDir: string, base: string, head: string): Promise<MergeTrial> {
  // why: merge-tree exits 1 for a merge with conflicts; its output is the answer either way.
  const r = await runGit(['merge-tree', '--write-tree', '--name-only', '-z', '--no-messages', base, head], { gitDir, answerCodes: [1] });
  const [tree, ...paths] = r.stdout.toString().split('\0');
  return { tree, conflicts: r.code === 1 ? [...new Set(paths.filter(Boolean))] : [] };
}

/** How many commits `head` has that `base` lacks (ahead), and the other way round (behind). */
export async function aheadBehind(gitDir: string, base: string, head: string): Promise<{ ahead: number; behind: number }> {
  const out = (await runGit(['rev-list', '--count', '--left-right', `${base}...${head}`], { gitDir })).stdout.toString().trim();
  const [behind, ahead] = out.split(/\s+/).map(Number);
  return { ahead: ahead || 0, behind: behind || 0 };
}

/** The tree of a commit. */
export async function treeOf(gitDir: string, commit: string): Promise<string> {
  return (await runGit(['rev-parse', '--verify', '--end-of-options', `${commit}^{tree}`], { gitDir })).stdout.toString().trim();
}
