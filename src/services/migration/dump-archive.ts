/**
 * The archive of `forge dump-repo` and `forge restore-repo`: its layout, and writing and reading it
 * as a .tar.gz (tar-stream over zlib, streamed both ways). A dump holds, at its top level:
 *
 *   repository.json   the repository (one document of schemas/repository.json)
 *   labels.json, milestones.json, issues.json, comments.json, pull_requests.json, reviews.json,
 *   releases.json     lists of documents of schemas/<kind>.json
 *   git.bundle        every ref of the repository (`git bundle create --all`); absent when it is empty
 *   wiki.bundle       the wiki, when it exists
 *   assets/<n>        the bytes of a release asset, named by its document's download_url
 *
 * Reading is for archives from anywhere (security.md classes 18 and 19): only files and directories
 * of that layout are taken (no link, device or fifo, no absolute name, no `..`), each written with
 * O_EXCL into a fresh directory; the entry count, the bytes unpacked and the size of each document
 * file are capped, counted on what gunzip actually produces.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import zlib from 'node:zlib';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import tar from 'tar-stream';
import { HttpError, Validation } from '../../errors';
import type { DocumentKind } from './documents';

/** What a dump may carry besides the code, by Gitea's unit names; no list means all. */
export const DUMP_UNITS = ['labels', 'milestones', 'issues', 'comments', 'pull_requests', 'reviews', 'releases', 'wiki'] as const;

/** One of DUMP_UNITS. */
export type DumpUnit = typeof DUMP_UNITS[number];

/** The units of a `--units` list (comma-separated, any case); all of them when it is empty. */
export function parseUnits(text: string | undefined): Set<DumpUnit> {
  const words = (text ?? '').split(',').map((w) => w.trim().toLowerCase()).filter(Boolean);
  if (words.length === 0) return new Set(DUMP_UNITS);
  // why: Gitea's dump-repo and restore-repo answer an unknown unit with these words.
  for (const w of words) if (!(DUMP_UNITS as readonly string[]).includes(w)) throw new Validation(`invalid unit: ${w}`);
  return new Set(words as DumpUnit[]);
}

/** A document file of a dump: its name, the schema of its documents, whether it is a list, and its unit (none: always there). */
export interface DocumentFile { name: string; kind: DocumentKind; list: boolean; unit: DumpUnit | null }

/** The document files, in the order a restore reads and imports them. */
export const DOCUMENT_FILES: readonly DocumentFile[] = [
  { name: 'repository.json', kind: 'repository', list: false, unit: null },
  { name: 'labels.json', kind: 'label', list: true, unit: 'labels' },
  { name: 'milestones.json', kind: 'milestone', list: true, unit: 'milestones' },
  { name: 'issues.json', kind: 'issue', list: true, unit: 'issues' },
  { name: 'pull_requests.json', kind: 'pull_request', list: true, unit: 'pull_requests' },
  { name: 'comments.json', kind: 'comment', list: true, unit: 'comments' },
  { name: 'reviews.json', kind: 'review', list: true, unit: 'reviews' },
  { name: 'releases.json', kind: 'release', list: true, unit: 'releases' },
];

/** The code's bundle and the wiki's. */
export const GIT_BUNDLE = 'git.bundle';
export const WIKI_BUNDLE = 'wiki.bundle';

/** The archive name of the n-th asset (its document's download_url). */
export function assetEntry(n: number): string {
  return `assets/${n}`;
}

/** Is `name` the archive name of an asset? */
export function isAssetEntry(name: string): boolean {
  return /^assets\/[0-9]{1,9}$/.test(name);
}

const KNOWN_FILES = new Set([...DOCUMENT_FILES.map((f) => f.name), GIT_BUNDLE, WIKI_BUNDLE]);

/** A member of an archive being written: its name there and the file its bytes come from. */
export interface PackEntry { name: string; file: string }

/** Write `entries` into a new .tar.gz at `archive` (mode 0600; an existing file is refused), streaming each file. */
export async function packArchive(archive: string, entries: PackEntry[]): Promise<void> {
  const pack = tar.pack();
  const writing = pipeline(pack, zlib.createGzip(), fs.createWriteStream(archive, { flags: 'wx', mode: 0o600 }));
  try {
    for (const e of entries) {
      const st = await fsp.stat(e.file);
      await new Promise<void>((resolve, reject) => {
        const sink = pack.entry({ name: e.name, size: st.size, mode: 0o644, mtime: st.mtime, type: 'file' }, (err) => (err ? reject(err) : resolve()));
        fs.createReadStream(e.file).on('error', reject).pipe(sink);
      });
    }
    pack.finalize();
    await writing;
  } catch (err) {
    pack.destroy(err as Error);
    await writing.catch(() => undefined);
    await fsp.rm(archive, { force: true });
    throw err;
  }
}

/** The caps of reading an archive. */
export interface ArchiveLimits {
  /** Most entries (files and directories). */
  maxEntries: number;
  /** Most bytes of all files together. */
  maxBytes: number;
  /** Most bytes of one document (.json) file, which is parsed in memory. */
  maxDocumentBytes: number;
}

/** The caps `forge restore-repo` uses unless told otherwise. */
export const DEFAULT_LIMITS: ArchiveLimits = { maxEntries: 100_000, maxBytes: 10 * 1024 ** 3, maxDocumentBytes: 256 * 1024 ** 2 };

// why: headers and padding are not file bytes; this much more may pass through gunzip before the stream itself is cut.
const STREAM_SLACK = 16 * 1024 * 1024;

/** An archive entry that is not read, named as the archive has it. */
export class RefusedEntry extends Validation {
  constructor(name: string, why: string) {
    super(`archive entry ${JSON.stringify(name)} is refused: ${why}`);
  }
}

/** Why an entry is refused, or null; `name` is the entry's name without a leading `./` or a trailing `/`. */
function refusal(h: tar.Header, name: string): string | null {
  if (h.type !== 'file' && h.type !== 'directory') return `it is a ${h.type ?? 'unknown'} entry; only files and directories are read`;
  if (path.posix.isAbsolute(h.name) || path.win32.isAbsolute(h.name)) return 'its path is absolute';
  if (h.name.split(/[\\/]/).includes('..')) return 'its path has a ".." segment';
  const known = h.type === 'directory' ? name === '' || name === 'assets' : KNOWN_FILES.has(name) || isAssetEntry(name);
  return known ? null : 'it is not part of a repository dump';
}

/** Count what passes and fail with `tooMuch` once more than `max` bytes did. */
function byteCap(max: number, counted: (n: number) => void, tooMuch: () => Error): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _enc, cb) {
      seen += chunk.length;
      counted(chunk.length);
      if (seen > max) cb(tooMuch());
      else cb(null, chunk);
    },
  });
}

/**
 * Unpack the .tar.gz `archive` into the empty directory `into`, within `limits`; answers the names
 * of the files written. Throws RefusedEntry for an entry that is not taken, Validation for an
 * archive that is not a .tar.gz; what was written so far is the caller's to remove.
 */
export async function unpackArchive(archive: string, into: string, limits: ArchiveLimits): Promise<Set<string>> {
  const files = new Set<string>();
  let entries = 0;
  let bytes = 0;
  const extract = tar.extract();
  const streamCap = byteCap(limits.maxBytes + STREAM_SLACK, () => undefined, () => new Validation(`the archive unpacks to more than ${limits.maxBytes} bytes`));
  const reading = pipeline(fs.createReadStream(archive), zlib.createGunzip(), streamCap, extract);
  // why: a failure of the stream reaches the loop below through the extractor; this only keeps it from being unhandled.
  reading.catch(() => undefined);
  try {
    for await (const entry of extract) {
      const h = entry.header;
      const name = h.name.replace(/^(\.\/)+/, '').replace(/\/+$/, '');
      if (++entries > limits.maxEntries) throw new RefusedEntry(h.name, `the archive has more than ${limits.maxEntries} entries`);
      const why = refusal(h, name);
      if (why) throw new RefusedEntry(h.name, why);
      if (h.type === 'directory') {
        entry.resume();
        continue;
      }
      const size = h.size ?? 0;
      if (name.endsWith('.json') && size > limits.maxDocumentBytes) throw new RefusedEntry(h.name, `it is larger than the ${limits.maxDocumentBytes} bytes a document file may have`);
      const tooMuch = () => new RefusedEntry(h.name, `the archive unpacks to more than ${limits.maxBytes} bytes`);
      if (bytes + size > limits.maxBytes) throw tooMuch();
      if (files.has(name)) throw new RefusedEntry(h.name, 'it appears twice');
      files.add(name);
      const target = path.join(into, name);
      await fsp.mkdir(path.dirname(target), { recursive: true });
      // why: O_EXCL ('wx') never follows a link nor replaces a file; the names are fixed ones under a directory made for this restore.
      await pipeline(entry, byteCap(limits.maxBytes - bytes, (n) => { bytes += n; }, tooMuch), fs.createWriteStream(target, { flags: 'wx', mode: 0o600 }));
    }
    await reading;
  } catch (err) {
    // why: a cap hit in the stream under an entry shows there as a broken entry; the cap's own words are the better answer.
    const streamErr = await reading.then(() => null, (e: unknown) => e);
    if (err instanceof HttpError) throw err;
    if (streamErr instanceof HttpError) throw streamErr;
    throw new Validation(`${path.basename(archive)} is not a readable .tar.gz archive: ${(err as Error).message}`);
  }
  return files;
}
