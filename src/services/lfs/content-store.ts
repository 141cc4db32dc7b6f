/**
 * The LFS content store: one file per object under LFS PATH, content-addressed as
 * `<oid[0:2]>/<oid[2:4]>/<oid>`. Uploads stream into a temp file while being hashed and counted, are
 * fsynced, and only a verified file is renamed into place, so a reader never sees a partial or wrong
 * object. Objects are shared by every repository that links them (see lfs_meta_object).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { settings } from '../../config';

const OID = /^[0-9a-f]{64}$/;

/** Is `oid` a lowercase hex SHA-256, the only form an object id may take? */
export function isValidOid(oid: unknown): oid is string {
  return typeof oid === 'string' && OID.test(oid);
}

/** Is `size` a non-negative safe integer? */
export function isValidSize(size: unknown): size is number {
  return typeof size === 'number' && Number.isSafeInteger(size) && size >= 0;
}

/** The uploaded bytes do not match the object id or the announced size. */
export class ContentMismatch extends Error {}

/** Where an object lives. why: the oid is checked again here, so no caller can build a path from an unchecked value. */
export function objectPath(oid: string): string {
  if (!isValidOid(oid)) throw new Error('invalid LFS oid');
  return path.join(settings().lfs.path, oid.slice(0, 2), oid.slice(2, 4), oid);
}

/** The size of a stored object, or null when the store does not have it. */
export async function storedSize(oid: string): Promise<number | null> {
  try {
    const st = await fs.promises.stat(objectPath(oid));
    return st.isFile() ? st.size : null;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/** Read `body` to its end, hashing and counting; `sink` gets every chunk. Throws ContentMismatch. */
async function consume(oid: string, size: number, body: Readable, sink?: (chunk: Buffer) => Promise<void>): Promise<void> {
  const hash = crypto.createHash('sha256');
  let n = 0;
  for await (const chunk of body) {
    const buf = chunk as Buffer;
    n += buf.length;
    // why: stop at the first byte past the announced size instead of storing an unbounded body.
    if (n > size) throw new ContentMismatch('content size does not match');
    hash.update(buf);
    if (sink) await sink(buf);
  }
  if (n !== size) throw new ContentMismatch('content size does not match');
  if (hash.digest('hex') !== oid) throw new ContentMismatch('content hash does not match OID');
}

async function fsyncDir(dir: string): Promise<void> {
  const fd = await fs.promises.open(dir, 'r');
  try { await fd.sync(); } finally { await fd.close(); }
}

/**
 * Store `body` as object `oid` of `size` bytes. Nothing is left behind when it does not match.
 * why: the file is renamed into place only after it is verified and fsynced; two uploads of the same
 * object may race, both rename identical bytes atomically, and either one winning is correct.
 */
export async function storeObject(oid: string, size: number, body: Readable): Promise<void> {
  const final = objectPath(oid);
  const tmpDir = path.join(settings().lfs.path, 'tmp');
  await fs.promises.mkdir(tmpDir, { recursive: true });
  const tmp = path.join(tmpDir, `${oid}.${process.pid}.${crypto.randomBytes(6).toString('hex')}`);
  const fh = await fs.promises.open(tmp, 'wx', 0o644);
  let closed = false;
  try {
    await consume(oid, size, body, async (buf) => { await fh.write(buf); });
    await fh.sync();
    await fh.close();
    closed = true;
    await fs.promises.mkdir(path.dirname(final), { recursive: true });
    await fs.promises.rename(tmp, final);
    await fsyncDir(path.dirname(final));
  } finally {
    if (!closed) await fh.close().catch(() => undefined);
    await fs.promises.rm(tmp, { force: true });
  }
}

/** Check that `body` is exactly object `oid` of `size` bytes without storing it (proof of possession). */
export function checkContent(oid: string, size: number, body: Readable): Promise<void> {
  return consume(oid, size, body);
}

/** A read stream over bytes `start..end` (inclusive) of a stored object. */
export function openObject(oid: string, start: number, end: number): fs.ReadStream {
  return fs.createReadStream(objectPath(oid), { start, end });
}
