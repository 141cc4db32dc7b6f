/**
 * Repository archives (`/archive/{ref}.zip|.tar.gz|.bundle`): built once per commit and format,
 * streamed to the first client while being written to the cache, and served from the cache after
 * that. Concurrent requests for one archive build it once: in one process they wait on the same
 * build, across processes and nodes on a lock. The cache is bounded in size; the least recently
 * served archives are evicted first.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import crypto from 'node:crypto';
import type { Writable } from 'node:stream';
import { settings } from '../../config';
import { NotFound, TooLarge } from '../../errors';
import { outsideRequest } from '../../git/cancel';
import { needsTooMuchMemory, ranOutOfMemory } from '../../git/run';
import { repoPath } from '../../git/paths';
import { spawnArchive, type ArchiveFormat } from '../../git/archive';
import { isReachable } from '../../git/refs';
import { locker } from '../../lock';
import { systemCtx } from '../../db';
import { TableCache } from '../../models/table-cache';
import type { RepoContext } from '../repo/context';
import { assertCodeReadable, resolveCommitId } from '../history/commit.service';

const FORMATS: [string, ArchiveFormat, string][] = [
  ['.tar.gz', 'tar.gz', 'application/gzip'],
  ['.zip', 'zip', 'application/zip'],
  ['.bundle', 'bundle', 'application/octet-stream'],
];

/** An archive ready to send. */
export interface ArchiveDownload {
  /** Write the archive to `out` and end it; resolves when done or when `out` was closed. */
  writeTo(out: Writable): Promise<void>;
  /** Known when served from the cache. */
  size?: number;
  contentType: string;
  filename: string;
}

/** Where the archives of a repository are cached. */
export function archiveDir(repoId: number): string {
  return path.join(settings().repoArchive.path, String(repoId));
}

const building = new Map<string, Promise<void>>();

// why: a reachability walk plus a git process per download of an archive by commit id cost more
// than serving a cached archive. Refs move only with a write to the branch table (branches) or the
// release table (tags), and either clears this on every node.
const reachable = new TableCache<boolean>('archive-reachable', ['branch', 'release'], 60_000);

/** Serve `<ref>.<ext>` of the repository. */
export async function openArchive(rc: RepoContext, archive: string): Promise<ArchiveDownload> {
  assertCodeReadable(rc);
  const match = FORMATS.find(([ext]) => archive.endsWith(ext) && archive.length > ext.length);
  if (!match) throw new NotFound('Unknown archive format');
  const [ext, format, contentType] = match;
  if (rc.repo.isEmpty) throw new NotFound('Git Repository is empty.');
  const ref = archive.slice(0, -ext.length);
  const gitDir = repoPath(rc.owner.name, rc.repo.name);
  const commit = await resolveCommitId(gitDir, ref, 'ref');
  // why: an archive by commit id serves only history a branch or tag still reaches (git's own rule for upload-archive).
  if (/^[0-9a-f]{4,64}$/i.test(ref) && !(await reachable.get(systemCtx, `${gitDir}\0${commit}`, () => isReachable(gitDir, commit)))) throw new NotFound(`object does not exist [id: ${ref}, rel_path: ]`);
  // why: the prefix inside the archive is the repository name, so a renamed repository gets new files.
  const nameTag = crypto.createHash('sha1').update(rc.repo.name).digest('hex').slice(0, 8);
  const file = path.join(archiveDir(rc.repo.id), `${commit}-${nameTag}${ext}`);
  const filename = `${rc.repo.name}-${ref.replace(/\//g, '-')}${ext}`;

  const cached = await fromCache(file);
  if (cached) return { ...cached, contentType, filename };
  const label = `${rc.owner.name}/${rc.repo.name}`;
  await assertNotRefused(file, label, ref);
  const inflight = building.get(file);
  if (inflight) {
    await inflight;
    const built = await fromCache(file);
    if (built) return { ...built, contentType, filename };
  }
  // why: checked again under the build lock, where a build that just outgrew the bound on any node is seen.
  const live = await buildOnce(file, async () => {
    await assertNotRefused(file, label, ref);
    return build(gitDir, commit, format, rc.repo.name, file, label, ref);
  });
  if (live) return { writeTo: (out) => copyFile(live.fh, out, live.complete).finally(() => live.fh.close()), contentType, filename };
  const built = await fromCache(file);
  if (!built) throw new Error(`archive ${file} was not built`);
  return { ...built, contentType, filename };
}

// why: under load, every thread-pool operation of a download (open, stat, utimes, close) cost the
// event loop a turn on a busy CPU. The files of recently served archives stay open and are shared by
// their downloads (reads are positional); their mtime, which orders eviction, is refreshed at most
// once a minute.
const MAX_OPEN_ARCHIVES = 64;
const TOUCH_EVERY_MS = 60_000;

/** A cached archive kept open: the downloads reading it, and when its mtime was last refreshed. */
interface OpenArchive { fh: fsp.FileHandle; size: number; readers: number; touchedAt: number; dropped: boolean }

/** Open cached archives by path, least recently served first. */
const openArchives = new Map<string, OpenArchive>();

/** Stop sharing `file`; its handle closes when its last download ends. */
function dropOpenArchive(file: string): void {
  const entry = openArchives.get(file);
  if (!entry) return;
  openArchives.delete(file);
  entry.dropped = true;
  if (entry.readers === 0) void entry.fh.close().catch(() => undefined);
}

/** The cached file, ready to copy, or null. */
async function fromCache(file: string): Promise<{ writeTo: (out: Writable) => Promise<void>; size: number } | null> {
  // why: a file evicted or removed by any process must not be served from a handle kept open here.
  if (!fs.existsSync(file)) {
    dropOpenArchive(file);
    return null;
  }
  let entry = openArchives.get(file);
  if (entry) {
    openArchives.delete(file);
  } else {
    let fh: fsp.FileHandle | null = null;
    let size: number;
    try {
      fh = await fsp.open(file, 'r');
      size = (await fh.stat()).size;
    } catch {
      await fh?.close().catch(() => undefined);
      return null;
    }
    const opened: OpenArchive = { fh, size, readers: 0, touchedAt: 0, dropped: false };
    // why: a concurrent request may have opened it meanwhile; one handle is kept.
    entry = openArchives.get(file) ?? opened;
    if (entry !== opened) void fh.close().catch(() => undefined);
    openArchives.delete(file);
  }
  openArchives.set(file, entry);
  for (const oldest of openArchives.keys()) {
    if (openArchives.size <= MAX_OPEN_ARCHIVES) break;
    dropOpenArchive(oldest);
  }
  if (Date.now() - entry.touchedAt > TOUCH_EVERY_MS) {
    entry.touchedAt = Date.now();
    const now = new Date();
    void fsp.utimes(file, now, now).catch(() => undefined);
  }
  const shared = entry;
  shared.readers++;
  const release = async () => {
    if (--shared.readers === 0 && shared.dropped) await shared.fh.close().catch(() => undefined);
  };
  return { writeTo: (out) => copyFile(shared.fh, out, null).finally(release), size: shared.size };
}

/** The bound of one archive in bytes ([repo-archive] MAX_ARCHIVE_SIZE, MB; 0 = none). */
function maxArchiveBytes(): number {
  return settings().repoArchive.maxArchiveSize * 1024 * 1024;
}

function tooLarge(repo: string, ref: string): TooLarge {
  return new TooLarge(`the archive of ${repo} at ${ref} is larger than [repo-archive] MAX_ARCHIVE_SIZE (${settings().repoArchive.maxArchiveSize} MB)`);
}

/** Why an archive was refused, and the bound it failed (MAX_ARCHIVE_SIZE bytes, or PROCESS_MEMORY_LIMIT MB). */
interface Refusal { reason: 'size' | 'memory'; limit: number }

/**
 * An archive that outgrew a bound is remembered next to where it would be cached (shared by the
 * nodes), so it is refused at once instead of being built again; a larger bound tries again.
 */
async function assertNotRefused(file: string, repo: string, ref: string): Promise<void> {
  let r: Refusal;
  try {
    r = JSON.parse(await fsp.readFile(`${file}.toolarge`, 'utf8')) as Refusal;
  } catch {
    return;
  }
  if (r.reason === 'size' && maxArchiveBytes() !== 0 && maxArchiveBytes() <= r.limit) throw tooLarge(repo, ref);
  const mem = settings().git.processMemoryLimit;
  if (r.reason === 'memory' && mem !== 0 && mem <= r.limit) throw needsTooMuchMemory(`the archive of ${repo} at ${ref}`);
}

/** Remember that the archive in `file` cannot be built under the current bound. */
async function refuse(file: string, r: Refusal): Promise<void> {
  await fsp.writeFile(`${file}.toolarge`, JSON.stringify(r)).catch(() => undefined);
}

/**
 * A build in progress: the file being written, open for reading; `complete` when git has written
 * all of it, `done` when it is in the cache.
 */
interface Build { fh: fsp.FileHandle; complete: Promise<void>; done: Promise<void> }

/**
 * Build `file` unless another process did meanwhile. Resolves with the build when this call
 * builds, or null when the cached file can be served.
 */
function buildOnce(file: string, start: () => Promise<Build>): Promise<Build | null> {
  return new Promise((resolve, reject) => {
    let handedOut = false;
    // why: the lock key names the archive, so different archives build in parallel; the wait is long because a build of a big repository takes a while.
    // why: the build is a shared cache entry: the client that started it may leave, the others still want it.
    const done = outsideRequest(() => locker().withLock(`archive:${file}`, async () => {
      if (fs.existsSync(file)) {
        handedOut = true;
        return resolve(null);
      }
      const b = await start();
      handedOut = true;
      resolve(b);
      await b.done;
    }, { waitMs: 600_000 }));
    building.set(file, done.catch(() => undefined));
    done.catch((err: unknown) => { if (!handedOut) reject(err); }).finally(() => building.delete(file));
  });
}

/**
 * Start git writing the archive to a temporary file, which becomes the cache entry when git
 * succeeds. A client that goes away does not stop the build, which still fills the cache; the
 * build is bounded in bytes (MAX_ARCHIVE_SIZE: git dies of SIGXFSZ, the archive is refused from
 * then on) and in time ([git.timeout] DEFAULT).
 */
async function build(gitDir: string, commit: string, format: ArchiveFormat, prefix: string, file: string, repo: string, ref: string): Promise<Build> {
  await fsp.mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.${crypto.randomBytes(4).toString('hex')}.tmp`;
  const max = maxArchiveBytes();
  const proc = await spawnArchive(gitDir, commit, format, prefix, tmp, max);
  let stderr = '';
  proc.child.stderr.on('data', (d: Buffer) => { if (stderr.length < 4096) stderr += d.toString(); });
  proc.child.stdin.end();
  const closed = new Promise<number | null>((resolve) => proc.child.once('close', resolve));
  let signal: NodeJS.Signals | null = null;
  const exited = new Promise<number | null>((resolve) => proc.child.once('exit', (code, sig: NodeJS.Signals | null) => { signal = sig; resolve(code); }));
  // why: the launcher creates the file before git starts; opened now, it stays readable after the rename.
  await Promise.race([new Promise((resolve) => proc.child.once('spawn', resolve)), closed]);
  const fh = await fsp.open(tmp, 'r').catch(async (err: unknown) => {
    await closed;
    await proc.cleanup();
    throw new Error(`git ${format} archive did not start (${(err as Error).message}): ${stderr.trim()}`);
  });
  // why: the file is whole when git exits; the first client need not wait for its output streams to close or for the rename.
  const complete = Promise.race([exited, closed]).then(async (code) => {
    if (code === 0) return;
    await closed;
    if ((signal ?? proc.child.signalCode) === 'SIGXFSZ') {
      await refuse(file, { reason: 'size', limit: max });
      throw tooLarge(repo, ref);
    }
    // why: a crafted tree makes git archive grow without writing a byte; its memory bound ends it.
    if (ranOutOfMemory(stderr)) {
      await refuse(file, { reason: 'memory', limit: settings().git.processMemoryLimit });
      throw needsTooMuchMemory(`the archive of ${repo} at ${ref}`);
    }
    throw new Error(`git ${format} archive failed (${code ?? signal ?? proc.child.signalCode}): ${stderr.trim()}`);
  });
  const done = complete.then(async () => {
    await closed;
    await fsp.rename(tmp, file);
    void evictIfFull().catch((err: unknown) => console.error('archive cache eviction:', err));
  }).catch(async (err: unknown) => {
    await fsp.rm(tmp, { force: true });
    throw err;
  }).finally(() => proc.cleanup());
  // why: a failure reaches the client through copyFile and the build's lock through done.
  complete.catch(() => undefined);
  return { fh, complete, done };
}

// why: archives are megabytes. They are copied through one reused buffer per download, each write
// finished before the next read: a new buffer per chunk made V8 run a full garbage collection
// (10-17 ms pauses) several times a second under load. A file git is still writing is read again
// after a pause once it has been read to its current end: reading each few kilobytes git adds
// (zip output comes in small writes) sent the client hundreds of small chunks.
const READ_CHUNK = 1024 * 1024;
const FOLLOW_POLL_MS = 5;

// why: a new 1 MB buffer per download (a thousand downloads in 10 s under load) is external memory
// that V8 answers with full mark-compacts of the whole heap, 40-50 ms pauses of the event loop.
// A copy buffer goes back to this list when its download ends, so buffers are allocated once.
const idleBuffers: Buffer[] = [];
const MAX_IDLE_BUFFERS = 16;

/**
 * Copy `fh` from its start to `out`, then end `out` (the caller closes the file). With `growing`, the file is
 * still being written and is followed until that settles (a rejection ends the copy with its error).
 * A closed `out` stops the copy quietly.
 */
async function copyFile(fh: fsp.FileHandle, out: Writable, growing: Promise<void> | null): Promise<void> {
  const buf = idleBuffers.pop() ?? Buffer.allocUnsafe(READ_CHUNK);
  try {
    await copyChunks(fh, out, growing, buf);
  } finally {
    // why: a write to a socket that closed meanwhile may not have finished with the buffer; only then is it dropped.
    if (!out.destroyed && idleBuffers.length < MAX_IDLE_BUFFERS) idleBuffers.push(buf);
  }
}

/** copyFile's loop, through `buf`. */
async function copyChunks(fh: fsp.FileHandle, out: Writable, growing: Promise<void> | null, buf: Buffer): Promise<void> {
  let ended = growing === null;
  let failure: Error | null = null;
  const settled = growing ? growing.then(() => { ended = true; }, (err: Error) => { failure = err; ended = true; }) : Promise.resolve();
  const gone = new Promise<void>((resolve) => out.once('close', resolve));
  let pos = 0;
  while (!out.destroyed) {
    const finished = ended;
    const { bytesRead } = await fh.read(buf, 0, buf.length, pos);
    if (bytesRead > 0) {
      pos += bytesRead;
      const written = new Promise<void>((resolve, reject) => out.write(buf.subarray(0, bytesRead), (err) => (err ? reject(err) : resolve())));
      await Promise.race([written, gone]);
    }
    if (bytesRead === buf.length) continue;
    // a short read reached the end of the file: the whole of it when it was complete before the read
    if (finished) {
      if (failure) throw failure;
      out.end();
      return;
    }
    await Promise.race([settled, gone, new Promise((r) => setTimeout(r, FOLLOW_POLL_MS))]);
  }
}

let lastEviction = 0;

/**
 * Keep the cache under [repo-archive] MAX_SIZE: when over, delete the least recently served files
 * down to 80% of it. Runs at most every few seconds per process.
 */
export async function evictIfFull(force = false): Promise<void> {
  if (!force && Date.now() - lastEviction < 5000) return;
  lastEviction = Date.now();
  const root = settings().repoArchive.path;
  const max = settings().repoArchive.maxSize * 1024 * 1024;
  const files: { file: string; size: number; mtime: number }[] = [];
  for (const repo of await fsp.readdir(root).catch(() => [] as string[])) {
    for (const name of await fsp.readdir(path.join(root, repo)).catch(() => [] as string[])) {
      if (name.endsWith('.tmp') || name.endsWith('.toolarge')) continue;
      const file = path.join(root, repo, name);
      const st = await fsp.stat(file).catch(() => null);
      if (st) files.push({ file, size: st.size, mtime: st.mtimeMs });
    }
  }
  let total = files.reduce((s, f) => s + f.size, 0);
  if (total <= max) return;
  for (const f of files.sort((a, b) => a.mtime - b.mtime)) {
    if (total <= max * 0.8) break;
    dropOpenArchive(f.file);
    await fsp.rm(f.file, { force: true });
    total -= f.size;
  }
}

/** Forget every cached archive of a repository (deletion). */
export async function removeArchives(repoId: number): Promise<void> {
  const dir = archiveDir(repoId) + path.sep;
  for (const file of [...openArchives.keys()]) if (file.startsWith(dir)) dropOpenArchive(file);
  await fsp.rm(archiveDir(repoId), { recursive: true, force: true });
}
