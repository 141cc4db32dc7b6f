/**
 * Reading files and directories at a ref (`/contents`, `/contents-ext`), and the contents of the
 * files a change just committed. Directory listings find every entry's last commit with one history
 * walk in the worker pool.
 */
import { settings } from '../../config';
import { entriesAt, listDir, readBlob, readBlobHead, lastCommitOfPath, submoduleUrl, type TreeEntry } from '../../git/objects';
import { runTask } from '../../pool';
import type { ContentsResponse, FilesResponse } from '../../api/contents';
import { findLfsMeta } from '../../models/lfs-meta-object.model';
import type { DbContext } from '../../db';
import { notFoundWith, NOT_FOUND_MESSAGE, type CodeRepo } from './access';
import { cleanReadPath } from './paths';
import { resolveRefCommit, type RefCommit } from './refs';
import { toContentsResponse, toFileCommit, type EntryDetails } from './view';
import { readCommits } from '../../git/history';
import { verifyCommit } from '../history/verify.service';
import { LFS_POINTER_MAX, parseLfsPointer } from './lfs-pointer';

/** What to include besides the entry metadata. */
export interface ContentsOptions {
  /** The base64 content of a single file. */
  content: boolean;
  /** LFS oid/size of pointer files. */
  lfs: boolean;
  /** The last commit of each entry. */
  commit: boolean;
}

/** Gitea's 404 for a ref that names nothing. */
export function refNotFound(ref: string) {
  return notFoundWith(NOT_FOUND_MESSAGE, [`object does not exist [id: ${ref}, rel_path: ]`]);
}

/** Resolve `ref` (default branch when empty) or throw Gitea's 404. */
export async function refOr404(cr: CodeRepo, ref: string | undefined): Promise<RefCommit> {
  const want = (ref ?? '').trim() || cr.repo.defaultBranch;
  const r = await resolveRefCommit(cr.gitDir, want);
  if (!r) throw refNotFound(want);
  return r;
}

/** The largest blob whose content the API returns inline ([api] DEFAULT_MAX_BLOB_SIZE). */
export function maxBlobSize(): number {
  return settings().api.defaultMaxBlobSize;
}

/** What a ContentsResponse of entry `e` shows, read as `opts` asks. */
export async function entryDetails(cr: CodeRepo, ref: RefCommit, e: TreeEntry, opts: ContentsOptions, last?: EntryDetails['lastCommit']): Promise<EntryDetails> {
  const d: EntryDetails = { entry: e, lastCommit: last };
  if (e.type === 'blob' && e.mode === '120000') {
    d.target = (await readBlobHead(cr.gitDir, e.oid, 1024)).toString('utf8');
  } else if (e.type === 'blob') {
    if (opts.content && e.size <= maxBlobSize()) {
      const buf = await readBlob(cr.gitDir, e.oid);
      d.content = buf.toString('base64');
      if (opts.content || opts.lfs) d.lfs = e.size < LFS_POINTER_MAX ? parseLfsPointer(buf) : null;
    } else if (opts.lfs && e.size <= LFS_POINTER_MAX) {
      d.lfs = parseLfsPointer(await readBlob(cr.gitDir, e.oid));
    }
  } else if (e.type === 'commit') {
    d.submoduleUrl = await submoduleUrl(cr.gitDir, ref.commitId, e.path);
  }
  return d;
}

/** The file (`file`) or directory listing (`dir`) at `treePath` of `ref`. */
export async function getContentsOrList(cr: CodeRepo, rawPath: string | undefined, ref: RefCommit, opts: ContentsOptions): Promise<{ file?: ContentsResponse; dir?: ContentsResponse[] }> {
  const treePath = cleanReadPath(rawPath);
  let isDir = treePath === '';
  let entry: TreeEntry | undefined;
  if (!isDir) {
    entry = (await entriesAt(cr.gitDir, ref.commitId, [treePath])).get(treePath);
    if (!entry) throw notFoundWith('GetContentsOrList', [`object does not exist [id: , rel_path: ${treePath}]`]);
    isDir = entry.type === 'tree';
  }
  if (!isDir) {
    const last = opts.commit ? await lastCommitOfPath(cr.gitDir, ref.commitId, treePath) : undefined;
    return { file: toContentsResponse(cr.urls, ref, await entryDetails(cr, ref, entry!, opts, last)) };
  }
  const entries = await listDir(cr.gitDir, ref.commitId, treePath);
  const names = entries.map((e) => e.path.slice(e.path.lastIndexOf('/') + 1));
  const lasts = opts.commit && entries.length
    ? await runTask('lastCommits', { gitDir: cr.gitDir, commitId: ref.commitId, dir: treePath, names })
    : {};
  const listOpts = { ...opts, content: false };
  const dir: ContentsResponse[] = [];
  for (let i = 0; i < entries.length; i++) {
    const l = lasts[names[i]];
    const last = l ? { sha: l.sha, committed: new Date(l.committed * 1000), authored: new Date(l.authored * 1000) } : undefined;
    dir.push(toContentsResponse(cr.urls, ref, await entryDetails(cr, ref, entries[i], listOpts, last)));
  }
  return { dir };
}

/**
 * The ContentsResponse of each path after a change (null for paths that no longer exist), as
 * Gitea's GetFilesResponseFromCommit reports them.
 */
export async function contentsOfPaths(cr: CodeRepo, ref: RefCommit, paths: string[]): Promise<(ContentsResponse | null)[]> {
  const found = await entriesAt(cr.gitDir, ref.commitId, paths);
  const out: (ContentsResponse | null)[] = [];
  for (const p of paths) {
    const e = found.get(p);
    if (!e || e.type === 'tree') { out.push(null); continue; }
    const last = await lastCommitOfPath(cr.gitDir, ref.commitId, p);
    out.push(toContentsResponse(cr.urls, ref, await entryDetails(cr, ref, e, { content: true, lfs: true, commit: true }, last)));
  }
  return out;
}

/** Is LFS object `oid` linked to the repository (so media may serve it)? */
export async function lfsLinked(ctx: DbContext, repoId: number, oid: string): Promise<{ oid: string; size: number } | null> {
  return findLfsMeta(ctx, repoId, oid);
}

/** Gitea's FilesResponse of a change: the contents of its target paths, the commit and its verification. */
export async function filesResponse(ctx: DbContext, cr: CodeRepo, result: { ref: RefCommit; paths: string[] }): Promise<FilesResponse> {
  const files = await contentsOfPaths(cr, result.ref, result.paths);
  const [commit] = await readCommits(cr.gitDir, [result.ref.commitId]);
  return { files, commit: toFileCommit(cr.urls, commit), verification: await verifyCommit(ctx, commit) };
}
