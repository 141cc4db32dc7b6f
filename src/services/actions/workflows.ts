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
