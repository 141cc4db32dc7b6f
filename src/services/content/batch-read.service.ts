/**
 * `GET|POST /repos/{owner}/{repo}/file-contents` (Gitea 1.24's GetContentsListFromTreePaths): the
 * ContentsResponse of many paths at one ref. A path that names nothing (or could never be read:
 * `..`, `.git`) is null; a directory is its entry without content; a file larger than
 * `[api] DEFAULT_MAX_BLOB_SIZE` has no content. The list stops at `[api] DEFAULT_PAGING_NUM` entries
 * and before the contents would pass `[api] DEFAULT_MAX_RESPONSE_SIZE`, as Gitea's does. One tree
 * read finds every path, one history walk per directory finds their last commits, and the blobs are
 * read by the repository's long-running cat-file.
 */
import { settings } from '../../config';
import type { ContentsResponse } from '../../api/contents';
import { entriesAt, type TreeEntry } from '../../git/objects';
import { runTask } from '../../pool';
import type { CodeRepo } from './access';
import { cleanReadPath } from './paths';
import { entryDetails, type ContentsOptions } from './read.service';
import type { RefCommit } from './refs';
import { toContentsResponse } from './view';

const dirOf = (p: string) => (p.includes('/') ? p.slice(0, p.lastIndexOf('/')) : '');
const baseOf = (p: string) => p.slice(p.lastIndexOf('/') + 1);

/** A path as a read may take it, or null when it cannot name an entry. */
function readable(raw: unknown): string | null {
  if (typeof raw !== 'string') return null;
  try {
    const p = cleanReadPath(raw);
    return p === '' ? null : p;
  } catch {
    return null;
  }
}

/** The last commit of each path, one walk per directory. */
async function lastCommitsOf(cr: CodeRepo, ref: RefCommit, paths: string[]): Promise<Map<string, { sha: string; committed: Date; authored: Date }>> {
  const byDir = new Map<string, string[]>();
  for (const p of paths) byDir.set(dirOf(p), [...(byDir.get(dirOf(p)) ?? []), baseOf(p)]);
  const out = new Map<string, { sha: string; committed: Date; authored: Date }>();
  await Promise.all([...byDir].map(async ([dir, names]) => {
    const found = await runTask('lastCommits', { gitDir: cr.gitDir, commitId: ref.commitId, dir, names: [...new Set(names)] });
    for (const [name, l] of Object.entries(found)) {
      out.set(dir ? `${dir}/${name}` : name, { sha: l.sha, committed: new Date(l.committed * 1000), authored: new Date(l.authored * 1000) });
    }
  }));
  return out;
}

/** The contents of `files` at `ref`, in the order asked, within Gitea's count and size limits. */
export async function contentsOfFiles(cr: CodeRepo, ref: RefCommit, files: unknown[]): Promise<(ContentsResponse | null)[]> {
  const api = settings().api;
  // why: Gitea stops at DEFAULT_PAGING_NUM entries, so no more are ever read.
  const asked = files.slice(0, api.defaultPagingNum).map(readable);
  const wanted = [...new Set(asked.filter((p): p is string => p !== null))];
  const found = wanted.length ? await entriesAt(cr.gitDir, ref.commitId, wanted) : new Map<string, TreeEntry>();
  const lasts = await lastCommitsOf(cr, ref, wanted.filter((p) => found.has(p)));
  const opts: ContentsOptions = { content: true, lfs: false, commit: true };
  const out: (ContentsResponse | null)[] = [];
  let size = 0;
  for (const p of asked) {
    const e = p === null ? undefined : found.get(p);
    if (!e) {
      out.push(null);
      continue;
    }
    const d = await entryDetails(cr, ref, e, e.type === 'blob' ? opts : { ...opts, content: false }, lasts.get(e.path) ?? null);
    size += d.content ? d.content.length : 0;
    // why: as Gitea, the list ends before the entry whose content would pass the response size.
    if (size > api.defaultMaxResponseSize) break;
    out.push(toContentsResponse(cr.urls, ref, d));
  }
  return out;
}
