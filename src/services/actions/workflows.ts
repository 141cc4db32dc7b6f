/**
 * The workflow files of a commit: `.gitea/workflows` when that tree exists, else
 * `.github/workflows`, searched recursively for `.yml` and `.yaml` files of at most 1 MiB. A
 * workflow's id is its path below that folder (its file name for the usual flat folder).
 */
import { runGit } from '../../git/run';
import { parseLsTree, readBlob, LITERAL_PATHS } from '../../git/objects';

const FOLDERS = ['.gitea/workflows', '.github/workflows'];
const MAX_SIZE = 1 << 20;

/** One workflow file at a commit. */
export interface WorkflowFile { id: string; path: string; folder: string; content: string }

/** The entries of one workflow folder at `commit`. */
async function folderBlobs(gitDir: string, commit: string, folder: string) {
  const out = await runGit(['ls-tree', '-r', '-l', '-z', commit, '--', `${folder}/`], { gitDir, env: LITERAL_PATHS });
  return parseLsTree(out.stdout);
}

/** The workflow files at `commit` (a full id), in path order. */
export async function workflowFiles(gitDir: string, commit: string): Promise<WorkflowFile[]> {
  for (const folder of FOLDERS) {
    const entries = await folderBlobs(gitDir, commit, folder);
    if (entries.length === 0) continue;
    const files = entries.filter((e) => e.type === 'blob' && /\.ya?ml$/i.test(e.path) && (e.size ?? 0) <= MAX_SIZE);
    const out: WorkflowFile[] = [];
    for (const e of files) out.push({ id: e.path.slice(folder.length + 1), path: e.path, folder, content: (await readBlob(gitDir, e.oid)).toString('utf8') });
    return out;
  }
  return [];
}

// why: deciding whether an issue or release event may start a workflow reads the default branch's
// files once per commit, not once per event, and never inside the event's transaction.
const triggerCache = new Map<string, Set<string>>();
const TRIGGER_CACHE_SIZE = 1000;

/** The `on:` keys of the workflows at `commit` when they are known; undefined (and then looked up in the background) when not. */
export function knownTriggers(gitDir: string, commit: string, parse: (content: string) => Iterable<string>): Set<string> | undefined {
  const key = `${gitDir}\0${commit}`;
  const hit = triggerCache.get(key);
  if (!hit) {
    workflowFiles(gitDir, commit).then((files) => {
      const keys = new Set<string>();
      for (const f of files) {
        try { for (const k of parse(f.content)) keys.add(k); } catch { /* broken files start nothing here */ }
      }
      if (triggerCache.size >= TRIGGER_CACHE_SIZE) triggerCache.delete(triggerCache.keys().next().value!);
      triggerCache.set(key, keys);
    }, () => undefined);
  }
  return hit;
}
