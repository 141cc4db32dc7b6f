/**
 * Reading the archives of uploads (security classes 18 and 19) without trusting them: zips through
 * their central directory (yauzl, which checks each entry's real size against its declared one),
 * tar.gz by streaming (tar-stream over zlib). Nothing is unpacked to disk; only the small files a
 * format needs (go.mod, DESCRIPTION) are read, each under a cap. Entries that climb out (`..`, an
 * absolute name), links and devices are refused, and so are archives past their caps on entries,
 * unpacked bytes and compression ratio.
 */
import zlib from 'node:zlib';
import fs from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { Transform, type Readable } from 'node:stream';
import yauzl from 'yauzl';
import tar from 'tar-stream';
import { BadRequest } from '../../errors';

/** The caps of one archive. */
export interface ArchiveCaps { maxEntries: number; maxUnpackedBytes: number; maxRatio: number }

/** An entry's name is safe to take: relative, no `..`, no backslash or NUL. */
export function safeEntryName(name: string): boolean {
  return name !== '' && !name.startsWith('/') && !/^[A-Za-z]:/.test(name) && !/[\\\0]/.test(name) && !name.split('/').includes('..');
}

/** Read at most `max` bytes of a stream (more is a 400 naming `what`). */
async function readCapped(stream: AsyncIterable<unknown> & { destroy(): void }, max: number, what: string): Promise<Buffer> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const piece of stream) {
    const chunk = piece as Buffer;
    size += chunk.length;
    if (size > max) {
      stream.destroy();
      throw new BadRequest(`${what} is too large`);
    }
    parts.push(chunk);
  }
  return Buffer.concat(parts);
}

/** A zip entry as the caller sees it: its name, declared sizes, and a way to read it (capped). */
export interface ZipEntry { name: string; size: number; isDirectory: boolean; read(max: number, what: string): Promise<Buffer> }

/**
 * Walk the entries of the zip file at `file`, refusing unsafe names, links and devices and the
 * caps (by the declared sizes, which yauzl holds each entry to while it is read).
 */
export async function readZip(file: string, caps: ArchiveCaps, visit: (e: ZipEntry) => Promise<void>): Promise<void> {
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) => {
    yauzl.open(file, { lazyEntries: true, autoClose: false, validateEntrySizes: true, strictFileNames: true }, (err, z) => (err ? reject(err) : resolve(z)));
  }).catch(() => { throw new BadRequest('package has invalid structure: not a zip archive'); });
  try {
    if (zip.entryCount > caps.maxEntries) throw new BadRequest(`the archive has more than ${caps.maxEntries} entries`);
    let unpacked = 0;
    for (;;) {
      const entry = await new Promise<yauzl.Entry | null>((resolve, reject) => {
        zip.once('entry', resolve);
        zip.once('end', () => resolve(null));
        zip.once('error', reject);
        zip.readEntry();
      }).catch((err: Error) => {
        // why: yauzl refuses names that climb out or are absolute before an entry reaches us; its message names the entry.
        const unsafe = /^(?:invalid relative path|absolute path): (.*)$/.exec(err.message);
        throw new BadRequest(unsafe ? `the archive has an unsafe entry: ${JSON.stringify(unsafe[1])}` : 'package has invalid structure: the zip archive is damaged');
      });
      zip.removeAllListeners('entry');
      zip.removeAllListeners('end');
      zip.removeAllListeners('error');
      if (!entry) return;
      if (!safeEntryName(entry.fileName)) throw new BadRequest(`the archive has an unsafe entry: ${JSON.stringify(entry.fileName)}`);
      // why: a zip made on Unix keeps the file's mode in the high half of the external attributes; only plain files and directories are taken.
      const type = (entry.externalFileAttributes >>> 16) & 0o170000;
      if (type !== 0 && type !== 0o100000 && type !== 0o040000) throw new BadRequest(`the archive has an entry that is not a plain file: ${JSON.stringify(entry.fileName)}`);
      unpacked += entry.uncompressedSize;
      if (unpacked > caps.maxUnpackedBytes) throw new BadRequest(`the archive unpacks to more than ${caps.maxUnpackedBytes} bytes`);
      if (entry.uncompressedSize > 1024 * 1024 && entry.uncompressedSize / Math.max(1, entry.compressedSize) > caps.maxRatio) {
        throw new BadRequest(`the archive's entry ${JSON.stringify(entry.fileName)} is compressed more than ${caps.maxRatio} to 1`);
      }
      const isDirectory = entry.fileName.endsWith('/');
      await visit({
        name: entry.fileName, size: entry.uncompressedSize, isDirectory,
        read: async (max, what) => {
          if (entry.uncompressedSize > max) throw new BadRequest(`${what} is too large`);
          const stream = await new Promise<Readable>((resolve, reject) => zip.openReadStream(entry, (err, s) => (err ? reject(err) : resolve(s))));
          return readCapped(stream, max, what).catch((err: unknown) => { throw err instanceof BadRequest ? err : new BadRequest(`package has invalid structure: ${what} cannot be read`); });
        },
      });
    }
  } finally {
    zip.close();
  }
}

/** A tar entry as the caller sees it: its name, and its bytes when it was asked for. */
export interface TarEntry { name: string; size: number }

/**
 * Stream the tar that `stages` produce (a file stream, then its decompressor), refusing unsafe
 * names, links and devices and the caps (counted on the tar's bytes, and on the ratio to
 * `compressedBytes`). `want` picks the entries whose bytes (at most `maxFileBytes` each) reach `got`.
 */
export async function readTar(
  stages: NodeJS.ReadableStream[], compressedBytes: number, caps: ArchiveCaps, maxFileBytes: number, want: (e: TarEntry) => boolean, got: (e: TarEntry, bytes: Buffer) => void,
): Promise<void> {
  let unpacked = 0;
  let entries = 0;
  const counting = new Transform({
    transform(chunk: Buffer, _enc, done) {
      unpacked += chunk.length;
      if (unpacked > caps.maxUnpackedBytes) return done(new BadRequest(`the archive unpacks to more than ${caps.maxUnpackedBytes} bytes`));
      if (unpacked > 1024 * 1024 && unpacked / Math.max(1, compressedBytes) > caps.maxRatio) return done(new BadRequest(`the archive is compressed more than ${caps.maxRatio} to 1`));
      done(null, chunk);
    },
  });
  const extract = tar.extract();
  const reading = pipeline([...stages, counting, extract as unknown as NodeJS.WritableStream]);
  // why: a failure of the stream reaches the loop below through the extractor; this only keeps it from being unhandled.
  reading.catch(() => undefined);
  try {
    for await (const entry of extract) {
      const header = entry.header;
      if (++entries > caps.maxEntries) throw new BadRequest(`the archive has more than ${caps.maxEntries} entries`);
      const name = header.name.replace(/^(?:\.\/)+/, '');
      if (header.type !== 'file' && header.type !== 'directory') throw new BadRequest(`the archive has an entry that is not a plain file: ${JSON.stringify(header.name)}`);
      // why: `./` is the archive's own top directory (dpkg-deb writes it first).
      if (header.type === 'directory' && (name === '' || name === '.')) { entry.resume(); continue; }
      if (!safeEntryName(name)) throw new BadRequest(`the archive has an unsafe entry: ${JSON.stringify(header.name)}`);
      const e = { name, size: header.size ?? 0 };
      if (header.type === 'file' && want(e)) got(e, await readCapped(entry, maxFileBytes, name));
      else entry.resume();
    }
    await reading;
  } catch (err) {
    extract.destroy();
    for (const s of stages) (s as unknown as { destroy?: () => void }).destroy?.();
    throw err instanceof BadRequest ? err : new BadRequest('package has invalid structure: not a readable tar archive');
  }
}

/** Stream the gzip'd tar at `file` (see readTar). */
export function readTarGz(
  file: string, caps: ArchiveCaps, maxFileBytes: number, want: (e: TarEntry) => boolean, got: (e: TarEntry, bytes: Buffer) => void,
): Promise<void> {
  return readTar([fs.createReadStream(file), zlib.createGunzip()], fs.statSync(file).size, caps, maxFileBytes, want, got);
}
