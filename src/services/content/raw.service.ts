/**
 * Serving a file's bytes (`/raw`, `/media`): the ref is resolved as Gitea's RepoRefForAPI does (the
 * `ref` query, or the shortest branch, then tag, prefix of the path, or a full commit id, else the
 * default branch), the blob is streamed from git (never buffered), and the headers make sure a
 * browser never runs it: nosniff, a sandboxing CSP, text as text/plain, SVG and unknown binaries as
 * attachments. Symlinks are served as their link text. `/media` streams the LFS object a pointer names
 * when the object is linked to the repository.
 */
import { PassThrough, Readable } from 'node:stream';
import type { DbContext } from '../../db';
import { entriesAt, firstObject, objectInfo, readBlob, streamBlob, type TreeEntry } from '../../git/objects';
import { findLfsMeta } from '../../models/lfs-meta-object.model';
import { openObject, storedSize } from '../lfs/content-store';
import { notFoundWith, NOT_FOUND_MESSAGE, type CodeRepo } from './access';
import { cleanReadPath, isValidBranchName } from './paths';
import { resolveRefCommit } from './refs';
import { LFS_POINTER_MAX, parseLfsPointer } from './lfs-pointer';
import { contentType } from './view';

/** Gitea's sandbox for user content. */
export const RAW_CSP = "default-src 'none'; style-src 'unsafe-inline'; sandbox";

/** A response ready to stream. */
export interface RawFile { status: number; headers: Record<string, string>; body: Readable | null }

const notFound = () => notFoundWith(NOT_FOUND_MESSAGE, null);

/**
 * Which kind of ref the path starts with, as in the web paths `/raw/branch/...`, `/raw/tag/...` and
 * `/raw/commit/...`; absent, the API's rule applies (the `ref` query, a branch, a tag, a commit id).
 */
export type RefKind = 'branch' | 'tag' | 'commit';

/** Where a web path points: the commit, the path in its tree, and the ref as named (`branch`/`main`). */
export interface TreeLocation { commitId: string; treePath: string; refKind: RefKind; refName: string }

/**
 * The commit and tree path a raw (or browse) path names: `{ref}/{path}` with the longest ref that
 * exists, for a kind of ref or any.
 */
export async function locate(cr: CodeRepo, rawPath: string, ref: string | undefined, kind?: RefKind): Promise<TreeLocation> {
  const path = (rawPath ?? '').replace(/^\/+/, '');
  const explicit = (ref ?? '').trim();
  if (explicit) {
    // why: Gitea falls back to the default branch for an unknown ?ref= (a FIXME there); a 404 is what a caller expects.
    const r = await resolveRefCommit(cr.gitDir, explicit);
    if (!r) throw notFoundWith('unable to find a git ref', null);
    return { commitId: r.commitId, treePath: cleanReadPath(path), refKind: r.kind, refName: r.name };
  }
  const parts = path.split('/');
  const prefixes = kind === 'commit' ? [] : parts.map((_, i) => parts.slice(0, i + 1).join('/')).filter(isValidBranchName);
  const names = [
    ...(kind === undefined || kind === 'branch' ? prefixes.map((p) => `refs/heads/${p}^{commit}`) : []),
    ...(kind === undefined || kind === 'tag' ? prefixes.map((p) => `refs/tags/${p}^{commit}`) : []),
  ];
  const hit = await firstObject(cr.gitDir, names);
  if (hit) {
    const name = prefixes[hit.index % prefixes.length];
    const refKind = kind ?? (hit.index < prefixes.length ? 'branch' : 'tag');
    return { commitId: hit.info.oid, treePath: cleanReadPath(path.slice(name.length + 1)), refKind, refName: name };
  }
  if (kind === 'branch' || kind === 'tag') throw notFoundWith('unable to find a git ref', null);
  if (kind === 'commit' ? /^[0-9a-f]{7,64}$/.test(parts[0]) : /^[0-9a-f]{40}$/.test(parts[0])) {
    const [c] = await objectInfo(cr.gitDir, [`${parts[0]}^{commit}`]);
    if (!c) throw notFoundWith('unable to find a git ref', null);
    return { commitId: c.oid, treePath: cleanReadPath(parts.slice(1).join('/')), refKind: 'commit', refName: c.oid };
  }
  const d = await resolveRefCommit(cr.gitDir, cr.repo.defaultBranch);
  if (!d) throw notFound();
  return { commitId: d.commitId, treePath: cleanReadPath(path), refKind: 'branch', refName: cr.repo.defaultBranch };
}

/** The blob entry at the request's path (404 for directories, submodules and missing paths). */
async function blobEntry(cr: CodeRepo, rawPath: string, ref: string | undefined, kind?: RefKind): Promise<TreeEntry> {
  if (cr.repo.isEmpty) throw notFound();
  const { commitId, treePath } = await locate(cr, rawPath, ref, kind);
  if (!treePath) throw notFound();
  const e = (await entriesAt(cr.gitDir, commitId, [treePath])).get(treePath);
  if (!e || e.type !== 'blob') throw notFound();
  return e;
}

/* eslint-disable no-control-regex -- file signatures are binary bytes */
const MAGIC: [RegExp, string][] = [
  [/^\x89PNG\r\n\x1a\n/, 'image/png'], [/^\xff\xd8\xff/, 'image/jpeg'], [/^GIF8[79]a/, 'image/gif'],
  [/^RIFF[\s\S]{4}WEBP/, 'image/webp'], [/^BM/, 'image/bmp'], [/^\x00\x00\x01\x00/, 'image/x-icon'],
  [/^%PDF-/, 'application/pdf'], [/^ID3/, 'audio/mpeg'], [/^OggS/, 'application/ogg'], [/^fLaC/, 'audio/flac'],
  [/^RIFF[\s\S]{4}WAVE/, 'audio/wav'], [/^\x1aE\xdf\xa3/, 'video/webm'], [/^[\s\S]{4}ftyp/, 'video/mp4'],
];
/* eslint-enable no-control-regex */
const SVG = /^\s*(<\?xml[^>]*>\s*)?(<!--[\s\S]*?-->\s*|<!DOCTYPE\s+svg[^>]*>\s*)*<svg[\s>]/i;

/** Content type (and whether to force a download) from the first bytes, as Gitea's type sniffer decides. */
export function sniff(head: Buffer): { type: string; attachment: boolean } {
  const latin = head.toString('latin1');
  for (const [re, type] of MAGIC) if (re.test(latin)) return { type, attachment: false };
  const text = head.includes(0) ? null : head.toString('utf8').replace(/^\ufeff/, '');
  if (text !== null && SVG.test(text)) return { type: 'image/svg+xml', attachment: true };
  // why: any text, HTML included, is served as text/plain so a browser shows it instead of running it.
  if (text !== null && !/\ufffd[\s\S]{4,}/.test(text)) return { type: 'text/plain; charset=utf-8', attachment: false };
  return { type: 'application/octet-stream', attachment: true };
}

/** Headers for serving `size` bytes of file `name` whose first bytes are `head`. */
export function serveHeaders(name: string, head: Buffer, size: number, etag: string, objectType: string): Record<string, string> {
  const s = sniff(head);
  const quoted = name.replace(/\\/g, '\\\\').replace(/"/g, '\\"');
  return {
    'Content-Type': s.type,
    'Content-Length': String(size),
    'Content-Disposition': `${s.attachment ? 'attachment' : 'inline'}; filename="${quoted}"; filename*=UTF-8''${encodeURIComponent(name)}`,
    'Content-Security-Policy': RAW_CSP,
    'X-Content-Type-Options': 'nosniff',
    'Cache-Control': 'private, max-age=300',
    ETag: `"${etag}"`,
    'X-Gitea-Object-Type': objectType,
    'Access-Control-Expose-Headers': 'Link, X-Total-Count, X-PageCount, X-HasMore, Content-Disposition',
  };
}

/** Stream blob `e` of the repository with safe headers; 304 when the client has it. */
async function serveBlob(cr: CodeRepo, e: TreeEntry, ifNoneMatch: string | undefined): Promise<RawFile> {
  const name = e.path.slice(e.path.lastIndexOf('/') + 1);
  const etag = e.oid;
  if (ifNoneMatch && ifNoneMatch.split(',').map((s) => s.trim()).includes(`"${etag}"`)) return { status: 304, headers: { ETag: `"${etag}"` }, body: null };
  if (e.size <= 64 * 1024) {
    const buf = await readBlob(cr.gitDir, e.oid);
    return { status: 200, headers: serveHeaders(name, buf.subarray(0, 1024), e.size, etag, contentType(e)), body: Readable.from([buf]) };
  }
  const child = streamBlob(cr.gitDir, e.oid);
  child.stderr.resume();
  const { head, stream } = await peekFirst(child.stdout);
  return { status: 200, headers: serveHeaders(name, head, e.size, etag, contentType(e)), body: stream };
}

/** Like peek but never cuts the source: the first chunk(s) are re-emitted before the rest. */
function peekFirst(src: Readable): Promise<{ head: Buffer; stream: Readable }> {
  return new Promise((resolve, reject) => {
    const out = new PassThrough();
    const onData = (chunk: Buffer) => {
      src.pause();
      src.off('data', onData);
      src.off('error', reject);
      out.write(chunk);
      src.pipe(out);
      resolve({ head: chunk.subarray(0, 1024), stream: out });
    };
    src.on('data', onData);
    src.once('error', reject);
    src.once('end', () => resolve({ head: Buffer.alloc(0), stream: out.end() as PassThrough }));
  });
}

/** `GET /raw/{filepath}` (and the web's `/raw/{kind}/{ref}/{filepath}`). */
export async function rawFile(cr: CodeRepo, path: string, ref: string | undefined, ifNoneMatch?: string, kind?: RefKind): Promise<RawFile> {
  return serveBlob(cr, await blobEntry(cr, path, ref, kind), ifNoneMatch);
}

/** `GET /media/{filepath}`: the LFS object a pointer names (when linked to this repository), else the blob. */
export async function mediaFile(ctx: DbContext, cr: CodeRepo, path: string, ref: string | undefined, ifNoneMatch?: string, kind?: RefKind): Promise<RawFile> {
  const e = await blobEntry(cr, path, ref, kind);
  if (e.mode === '120000' || e.size > LFS_POINTER_MAX) return serveBlob(cr, e, ifNoneMatch);
  const pointer = parseLfsPointer(await readBlob(cr.gitDir, e.oid));
  const meta = pointer && (await findLfsMeta(ctx, cr.repo.id, pointer.oid));
  if (!pointer || !meta || (await storedSize(pointer.oid)) !== meta.size) return serveBlob(cr, e, ifNoneMatch);
  const name = e.path.slice(e.path.lastIndexOf('/') + 1);
  if (ifNoneMatch && ifNoneMatch.split(',').map((s) => s.trim()).includes(`"${meta.oid}"`)) return { status: 304, headers: { ETag: `"${meta.oid}"` }, body: null };
  const head = meta.size === 0 ? Buffer.alloc(0) : await readHead(openObject(meta.oid, 0, Math.min(meta.size, 1024) - 1));
  const body = meta.size === 0 ? Readable.from([]) : openObject(meta.oid, 0, meta.size - 1);
  return { status: 200, headers: serveHeaders(name, head, meta.size, meta.oid, 'file'), body };
}

async function readHead(s: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of s) parts.push(c as Buffer);
  return Buffer.concat(parts);
}
