/**
 * Git LFS pointer files: recognising one in a blob, and writing one for content that
 * `.gitattributes` sends to LFS. The content is read twice, once to hash it into the pointer and once
 * to store it; the store checks the second read against the first (size and hash), so a source that
 * changes or ends early between the reads fails before anything is committed.
 */
import crypto from 'node:crypto';
import type { Readable } from 'node:stream';
import { Validation } from '../../errors';
import { ContentMismatch, storeObject, storedSize, checkContent } from '../lfs/content-store';

/** LFS pointers are at most this long (Gitea's lfs.MetaFileMaxSize). */
export const LFS_POINTER_MAX = 1024;

const POINTER = /^version https:\/\/git-lfs\.github\.com\/spec\/v1\noid sha256:([0-9a-f]{64})\nsize (\d+)\n(?:[a-z0-9.-]+ [^\n]*\n)*$/;

/** The oid and size of an LFS pointer blob, or null when `buf` is no pointer. */
export function parseLfsPointer(buf: Buffer): { oid: string; size: number } | null {
  if (buf.length === 0 || buf.length > LFS_POINTER_MAX) return null;
  const m = POINTER.exec(buf.toString('utf8'));
  if (!m) return null;
  const size = Number(m[2]);
  return Number.isSafeInteger(size) ? { oid: m[1], size } : null;
}

/** The pointer text for an object. */
export function pointerText(oid: string, size: number): string {
  return `version https://git-lfs.github.com/spec/v1\noid sha256:${oid}\nsize ${size}\n`;
}

/** Content that can be read more than once, each time from the start. */
export type ContentSource = () => Readable;

/** First read: hash and count the content. */
export async function measure(source: ContentSource): Promise<{ oid: string; size: number }> {
  const hash = crypto.createHash('sha256');
  let size = 0;
  for await (const chunk of source()) {
    const b = chunk as Buffer;
    size += b.length;
    hash.update(b);
  }
  return { oid: hash.digest('hex'), size };
}

/**
 * Make the pointer of `source` and put the content into the LFS store (second read, verified
 * against the first). A mismatch is a 422 and leaves nothing in the store.
 */
export async function storeLfsContent(source: ContentSource): Promise<{ oid: string; size: number; pointer: Buffer }> {
  const { oid, size } = await measure(source);
  try {
    // why: an object already stored is still read and checked, so both reads always give the full content.
    if ((await storedSize(oid)) === size) await checkContent(oid, size, source());
    else await storeObject(oid, size, source());
  } catch (err) {
    if (err instanceof ContentMismatch) throw new Validation(`LFS content changed while it was read: ${err.message} (expected ${size} bytes, oid ${oid})`);
    throw err;
  }
  return { oid, size, pointer: Buffer.from(pointerText(oid, size)) };
}
