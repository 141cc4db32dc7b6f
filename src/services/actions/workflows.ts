/**
 * The workflow files of a commit: `.gitea/workflows` when that tree exists, else
 * `.github/workflows`, searched recursively for `.yml` and `.yaml` files of at most 1 MiB. A
 * workflow's id is its path below that folder (its file name for the usual flat folder).
 */
import { runGit } from '../../git/run';
import { parseLsTree, readBlob, LITERAL_PATHS } from '../../git/objects';
import { WeightedLru } from '../../git/lru';
import { parseWorkflow, type PlannedJob, type Workflow } from './workflow-parse';

const FOLDERS = ['.gitea/workflows', '.github/workflows'];
const MAX_SIZE = 1 << 20;

/** One workflow file at a commit. */
export interface WorkflowFile { id: string; path: string; folder: string; content: string }

/** The workflow files at `commit`, read from git: one ls-tree of both folders, then the blobs. */
async function readWorkflowFiles(gitDir: string, commit: string): Promise<WorkflowFile[]> {
  const out = await runGit(['ls-tree', '-r', '-l', '-z', commit, '--', ...FOLDERS.map((f) => `${f}/`)], { gitDir, env: LITERAL_PATHS });
  const entries = parseLsTree(out.stdout);
  const folder = FOLDERS.find((f) => entries.some((e) => e.path.startsWith(`${f}/`)));
  if (!folder) return [];
  const files: WorkflowFile[] = [];
  for (const e of entries) {
    if (!e.path.startsWith(`${folder}/`) || e.type !== 'blob' || !/\.ya?ml$/i.test(e.path) || e.size > MAX_SIZE) continue;
    files.push({ id: e.path.slice(folder.length + 1), path: e.path, folder, content: (await readBlob(gitDir, e.oid)).toString('utf8') });
  }
  return files;
}

// why: a commit's files never change, and one push asks for them up to three times (create, push, schedules).
const fileCache = new Map<string, Promise<WorkflowFile[]>>();
const FILE_CACHE_SIZE = 256;

/** The workflow files at `commit` (a full id), in path order. The list is shared: never change it. */
export function workflowFiles(gitDir: string, commit: string): Promise<WorkflowFile[]> {
  const key = `${gitDir}\0${commit}`;
  const hit = fileCache.get(key);
  if (hit) return hit;
  const read = readWorkflowFiles(gitDir, commit);
  if (fileCache.size >= FILE_CACHE_SIZE) fileCache.delete(fileCache.keys().next().value!);
  fileCache.set(key, read);
  read.catch(() => fileCache.delete(key));
  return read;
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

/** A workflow file's text parsed, or the error it gave, and its jobs once planned (by the caller). */
export interface ParsedWorkflow { size: number; wf?: Workflow; error?: unknown; jobs?: PlannedJob[] }

// why: a workflow file changes far less often than it runs; each dispatch or push of the same text
// would parse it (and expand its matrix) again.
const parsedFiles = new WeightedLru<ParsedWorkflow>(16 * 1024 * 1024, (p) => p.size * 4);

/** A workflow file's text parsed, shared by every caller with the same text: never change it. */
export function parsedWorkflow(content: string): ParsedWorkflow {
  let parsed = parsedFiles.get(content);
  if (!parsed) {
    parsed = { size: content.length };
    try {
      parsed.wf = parseWorkflow(content);
    } catch (err) {
      parsed.error = err;
    }
    parsedFiles.set(content, parsed);
  }
  return parsed;
}
