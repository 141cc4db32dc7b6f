/**
 * Merges computed in the object database, never in a worktree: whether a head merges cleanly
 * into a base (`git merge-tree --write-tree`, which writes the merged tree and names the
 * conflicted paths), and how far two commits have gone apart.
 */
import { objectInfo } from './cat-file';
import { commitText, writeLooseObject } from './loose';
import { runGit } from './run';

/** The tree a merge would give, and the paths it could not merge (empty when clean). */
export interface MergeTrial { tree: string; conflicts: string[] }

/**
 * Merge `head` into `base` in the object database (`objects`: a quarantine to write into, see
 * tree-edit.ts withQuarantine). Ids must be full commit ids.
 */
export async function tryMerge(gitDir: string, base: string, head: string, objects: Record<string, string> = {}): Promise<MergeTrial> {
  // why: merge-tree exits 1 for a merge with conflicts; its output is the answer either way.
  const r = await runGit(['merge-tree', '--write-tree', '--name-only', '-z', '--no-messages', base, head], { gitDir, env: objects, answerCodes: [1] });
  const [tree, ...paths] = r.stdout.toString().split('\0');
  return { tree, conflicts: r.code === 1 ? [...new Set(paths.filter(Boolean))] : [] };
}

/** How many commits `head` has that `base` lacks (ahead), and the other way round (behind). */
export async function aheadBehind(gitDir: string, base: string, head: string): Promise<{ ahead: number; behind: number }> {
  const out = (await runGit(['rev-list', '--count', '--left-right', `${base}...${head}`], { gitDir })).stdout.toString().trim();
  const [behind, ahead] = out.split(/\s+/).map(Number);
  return { ahead: ahead || 0, behind: behind || 0 };
}

/** The tree of a commit (asked of the repository's long-running cat-file). */
export async function treeOf(gitDir: string, commit: string): Promise<string> {
  const [info] = await objectInfo(gitDir, [`${commit}^{tree}`]);
  if (!info) throw new Error(`${commit} is not a commit of ${gitDir}`);
  return info.oid;
}

/** Is `a` an ancestor of `b` (or the same commit)? */
export async function isAncestor(gitDir: string, a: string, b: string): Promise<boolean> {
  return (await runGit(['merge-base', '--is-ancestor', a, b], { gitDir, answerCodes: [1] })).code === 0;
}

// why: the scaffold commit below is never referenced; a fixed identity keeps it byte-identical for the same inputs.
const SCAFFOLD_IDENT = 'forge <forge@localhost> 946684800 +0000';

/**
 * What cherry-picking `commit` (whose parent is `parent`) onto `onto` (whose tree is `ontoTree`)
 * gives: a three-way merge of `onto` and `commit` with `parent` as the base. why: git 2.39's
 * merge-tree takes no merge base, so the base is made the merge base: a scaffold commit with
 * `onto`'s tree and `parent` as its only parent shares exactly that ancestor with `commit`. It is
 * written straight into the quarantine `objects` (never referenced, gone with it when unused).
 */
export async function pickOnto(gitDir: string, ontoTree: string, commit: string, parent: string, objects: Record<string, string>): Promise<MergeTrial> {
  const scaffold = await writeLooseObject(objects.GIT_OBJECT_DIRECTORY, 'commit', commitText(ontoTree, [parent], SCAFFOLD_IDENT, SCAFFOLD_IDENT, 'scaffold\n'));
  return tryMerge(gitDir, scaffold, commit, objects);
}

/** The commits of `head` that `base` lacks, oldest first, without merge commits (what a rebase replays). */
export async function commitsToReplay(gitDir: string, base: string, head: string): Promise<string[]> {
  const out = (await runGit(['rev-list', '--reverse', '--no-merges', '--topo-order', head, `^${base}`], { gitDir })).stdout.toString();
  return out.split('\n').filter(Boolean);
}
