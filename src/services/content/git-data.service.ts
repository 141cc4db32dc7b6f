/**
 * The git data endpoints: blobs, trees, refs, annotated tags, a commit's raw diff or patch, and the
 * language statistics, with Gitea's status codes (a missing blob, tree or tag is a 400 there).
 */
import { settings } from '../../config';
import { BadRequest, TooLarge } from '../../errors';
import { objectInfo, readBlob, readTag } from '../../git/objects';
import type { DbContext } from '../../db';
import { readCommits } from '../../git/history';
import { verifyCommit } from '../history/verify.service';
import { runGit, spawnGit, assertSafeGitArg, type GitChild } from '../../git/run';
import { runTask } from '../../pool';
import type { AnnotatedTag, GitBlobResponse, GitTreeResponse, Reference } from '../../api/contents';
import { notFoundWith, NOT_FOUND_MESSAGE, type CodeRepo } from './access';
import { LFS_POINTER_MAX, parseLfsPointer } from './lfs-pointer';
import { maxBlobSize } from './read.service';
import { resolveRefCommit } from './refs';
import { toAnnotatedTag, toGitEntry, toReference } from './view';

const HEX = /^[0-9a-f]{4,64}$/;
const objectMissing = (id: string) => `object does not exist [id: ${id}, rel_path: ]`;

/** `GET /git/blobs/{sha}`: the blob, its content in base64 unless larger than [api] DEFAULT_MAX_BLOB_SIZE. */
export async function getBlob(cr: CodeRepo, sha: string): Promise<GitBlobResponse> {
  if (!sha) throw new BadRequest('sha not provided');
  const [info] = HEX.test(sha) ? await objectInfo(cr.gitDir, [sha]) : [null];
  if (!info || info.type !== 'blob') throw new BadRequest(objectMissing(sha));
  const out: GitBlobResponse = { content: null, encoding: null, url: `${cr.urls.api}/git/blobs/${info.oid}`, sha: info.oid, size: info.size };
  if (info.size > maxBlobSize()) return out;
  const buf = await readBlob(cr.gitDir, info.oid);
  out.content = buf.toString('base64');
  out.encoding = 'base64';
  const lfs = info.size > 0 && info.size < LFS_POINTER_MAX ? parseLfsPointer(buf) : null;
  if (lfs) { out.lfs_oid = lfs.oid; out.lfs_size = lfs.size; }
  return out;
}

/** `GET /git/trees/{sha}`: a page of the tree (per_page capped at [api] DEFAULT_GIT_TREES_PER_PAGE). */
export async function getTree(cr: CodeRepo, sha: string, recursive: boolean, page?: number, perPage?: number): Promise<GitTreeResponse> {
  if (!sha) throw new BadRequest('sha not provided');
  assertSafeGitArg(sha, 'sha');
  const cap = settings().api.defaultGitTreesPerPage;
  const per = !perPage || perPage <= 0 || perPage > cap ? cap : Math.floor(perPage);
  const p = Math.max(1, Math.floor(page ?? 1) || 1);
  const t = await runTask('treePage', { gitDir: cr.gitDir, sha, recursive, page: p, perPage: per });
  return {
    sha: t.sha,
    url: `${cr.urls.api}/git/trees/${t.sha}`,
    tree: t.entries.length ? t.entries.map((e) => toGitEntry(cr.urls, e)) : (null as unknown as []),
    truncated: t.truncated,
    page: p,
    total_count: t.total,
  };
}

/**
 * `GET /git/refs[/{ref}]`: refs whose full name starts with `refs/<filter>`; one exact match answers
 * the object itself, several an array, none 404 (Gitea's getGitRefsInternal).
 */
export async function getRefs(cr: CodeRepo, filter: string): Promise<Reference | Reference[]> {
  const prefix = filter ? `refs/${filter}` : '';
  const out = (await runGit(['for-each-ref', '--format=%(objectname) %(objecttype) %(refname)'], { gitDir: cr.gitDir })).stdout.toString();
  const refs: Reference[] = [];
  for (const line of out.split('\n')) {
    if (!line) continue;
    const [oid, type, ...rest] = line.split(' ');
    const name = rest.join(' ');
    if (!prefix || name.startsWith(prefix)) refs.push(toReference(cr.urls, name, oid, type));
  }
  if (refs.length === 0) throw notFoundWith(NOT_FOUND_MESSAGE, null);
  return refs.length === 1 && refs[0].ref === prefix ? refs[0] : refs;
}

/** `GET /git/tags/{sha}`: an annotated tag object (a lightweight tag or any other object is a 400). */
export async function getAnnotatedTag(ctx: DbContext, cr: CodeRepo, sha: string): Promise<AnnotatedTag> {
  if (!sha) throw new BadRequest('SHA not provided');
  const [info, commit] = HEX.test(sha) ? await objectInfo(cr.gitDir, [sha, `${sha}^{commit}`]) : [null, null];
  if (!info || info.type !== 'tag') throw new BadRequest(objectMissing(sha));
  if (!commit) throw new BadRequest(objectMissing(sha));
  const [tagged] = await readCommits(cr.gitDir, [commit.oid]);
  return toAnnotatedTag(cr.urls, await readTag(cr.gitDir, info.oid), tagged, await verifyCommit(ctx, tagged));
}

/**
 * `GET /git/commits/{sha}.diff|.patch`: a git child streaming the commit's diff against its first
 * parent (`git show` for a root commit) or its format-patch, as Gitea's GetRawDiff.
 */
export async function rawDiff(cr: CodeRepo, sha: string, kind: 'diff' | 'patch'): Promise<GitChild> {
  return spawnGit(await diffArgs(cr, sha, kind), { gitDir: cr.gitDir });
}

async function diffArgs(cr: CodeRepo, sha: string, kind: 'diff' | 'patch'): Promise<string[]> {
  const r = /^[\0\r\n-]/.test(sha) || /[\0\r\n]/.test(sha) ? null : await resolveRefCommit(cr.gitDir, sha, 4);
  if (!r) throw notFoundWith(sha, null);
  const [c] = await readCommits(cr.gitDir, [r.commitId]);
  const id = c.id;
  if (kind === 'diff') return c.parents.length === 0 ? ['show', '--end-of-options', id] : ['diff', '-M', c.parents[0], id];
  return c.parents.length === 0
    ? ['format-patch', '--no-signature', '--stdout', '--root', '-1', id]
    : ['format-patch', '--no-signature', '--stdout', `${c.parents[0]}..${id}`];
}

/** A commit's diff against its first parent as text, or null when it is larger than `maxBytes`. */
export async function commitDiffText(cr: CodeRepo, sha: string, maxBytes: number): Promise<string | null> {
  return diffText(cr.gitDir, await diffArgs(cr, sha, 'diff'), maxBytes);
}

/** The diff from one commit to another of a repository (ids, as compare pages have them), or null past `maxBytes`. */
export function rangeDiffText(gitDir: string, from: string, to: string, maxBytes: number): Promise<string | null> {
  if (![from, to].every((id) => /^[0-9a-f]{40}([0-9a-f]{24})?$/.test(id))) throw new Error('rangeDiffText takes commit ids');
  return diffText(gitDir, ['diff', '-M', from, to], maxBytes);
}

async function diffText(gitDir: string, args: string[], maxBytes: number): Promise<string | null> {
  try {
    return (await runGit(args, { gitDir, maxOutputBytes: maxBytes })).stdout.toString('utf8');
  } catch (err) {
    if (err instanceof TooLarge) return null;
    throw err;
  }
}

/** `GET /languages`: bytes per language of the default branch ({} for an empty repository). */
export async function languages(cr: CodeRepo): Promise<Record<string, number>> {
  const head = await resolveRefCommit(cr.gitDir, cr.repo.defaultBranch);
  if (!head) return {};
  return runTask('languageStats', { gitDir: cr.gitDir, commitId: head.commitId });
}
