/**
 * Package blobs on disk: an upload is streamed into a temporary file under `[packages] PATH/tmp`
 * while its MD5, SHA-1, SHA-256 and SHA-512 and its size are computed, never held in memory whole
 * and cut off past its cap. A blob is kept once by content at `<sha256[0:2]>/<sha256[2:4]>/<sha256>`
 * (Gitea's layout), moved there by rename after the upload was checked, so a reader never sees
 * half a file.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { settings } from '../../config';
import { TooLarge } from '../../errors';
import type { BlobHashes } from '../../models/package.model';

/** A stored file as a download sends it. */
export interface StoredFile { name: string; sha256: string; size: number; createdUnix: number }

/** An upload in its temporary file, with its hashes. */
export interface TempBlob { file: string; hashes: BlobHashes }

/** Where blob `sha256` lives. */
export function blobPath(sha256: string): string {
  return path.join(settings().packages.path, sha256.slice(0, 2), sha256.slice(2, 4), sha256);
}

/**
 * Stream `body` into a temporary file, hashing it as it arrives; more than `maxBytes` (when not
 * negative) stops the upload with `tooLarge()` (413 by default) and leaves no file.
 */
export async function receiveBlob(body: Readable, maxBytes: number, tooLarge: () => Error = () => new TooLarge(`the upload is larger than ${maxBytes} bytes`)): Promise<TempBlob> {
  const tmpDir = path.join(settings().packages.path, 'tmp');
  await fsp.mkdir(tmpDir, { recursive: true });
  const file = path.join(tmpDir, `upload-${process.pid}-${crypto.randomBytes(8).toString('hex')}`);
  const hashers = ['md5', 'sha1', 'sha256', 'sha512'].map((a) => crypto.createHash(a));
  let size = 0;
  const hashing = new Transform({
    transform(chunk: Buffer, _enc, done) {
      size += chunk.length;
      if (maxBytes >= 0 && size > maxBytes) return done(tooLarge());
      for (const h of hashers) h.update(chunk);
      done(null, chunk);
    },
  });
  try {
    await pipeline(body, hashing, fs.createWriteStream(file, { flags: 'wx', mode: 0o600 }));
  } catch (err) {
    await fsp.rm(file, { force: true });
    throw err;
  }
  const [md5, sha1, sha256, sha512] = hashers.map((h) => h.digest('hex'));
  return { file, hashes: { size, md5, sha1, sha256, sha512 } };
}

/** The hashes and size of `bytes`. */
export function hashesOf(bytes: Uint8Array): BlobHashes {
  const [md5, sha1, sha256, sha512] = ['md5', 'sha1', 'sha256', 'sha512'].map((a) => crypto.createHash(a).update(bytes).digest('hex'));
  return { size: bytes.byteLength, md5, sha1, sha256, sha512 };
}

/** Keep `bytes` (a generated index) as their blob; answers whether this call placed the file (false: it was there). */
export async function keepBytes(bytes: Uint8Array, h: BlobHashes): Promise<boolean> {
  const final = blobPath(h.sha256);
  if (fs.existsSync(final)) return false;
  await fsp.mkdir(path.dirname(final), { recursive: true });
  const tmp = `${final}.${process.pid}-${crypto.randomBytes(4).toString('hex')}.tmp`;
  await fsp.writeFile(tmp, bytes, { mode: 0o644 });
  await fsp.rename(tmp, final);
  return true;
}

/** Remove an upload's temporary file (nothing when it was moved into place). */
export async function discardTemp(t: TempBlob): Promise<void> {
  await fsp.rm(t.file, { force: true });
}

/**
 * Keep the upload as blob `sha256` (answers false when that blob's file was already there, and the
 * upload is dropped). why: rename is atomic, so two uploads of the same bytes both end well.
 */
export async function keepBlob(t: TempBlob): Promise<boolean> {
  const final = blobPath(t.hashes.sha256);
  if (fs.existsSync(final)) {
    await discardTemp(t);
    return false;
  }
  await fsp.mkdir(path.dirname(final), { recursive: true });
  await fsp.chmod(t.file, 0o644);
  await fsp.rename(t.file, final);
  return true;
}

/** Remove stored blobs (already gone is fine). */
export async function removeBlobFiles(sha256s: string[]): Promise<void> {
  for (const s of sha256s) await fsp.rm(blobPath(s), { force: true });
}

/** A read stream over a stored blob (bytes `start..end`, inclusive, when given). */
export function openBlob(sha256: string, range?: { start: number; end: number }): fs.ReadStream {
  return fs.createReadStream(blobPath(sha256), range);
}
