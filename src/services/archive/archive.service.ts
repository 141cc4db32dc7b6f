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
import { PassThrough, Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { settings } from '../../config';
import { NotFound } from '../../errors';
import { repoPath } from '../../git/paths';
import { spawnArchive, type ArchiveFormat } from '../../git/archive';
import { isReachable } from '../../git/refs';
import { locker } from '../../lock';
import type { RepoContext } from '../repo/context';
import { assertCodeReadable, resolveCommitId } from '../history/commit.service';

const FORMATS: [string, ArchiveFormat, string][] = [
  ['.tar.gz', 'tar.gz', 'application/gzip'],
  ['.zip', 'zip', 'application/zip'],
  ['.bundle', 'bundle', 'application/octet-stream'],
];

/** An archive ready to send. */
export interface ArchiveDownload {
  stream: Readable;
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

/** Serve `<ref>.<ext>` of the repository; `signal` aborts when the client goes away. */
export async function openArchive(rc: RepoContext, archive: string, signal: AbortSignal): Promise<ArchiveDownload> {
  assertCodeReadable(rc);
  const match = FORMATS.find(([ext]) => archive.endsWith(ext) && archive.length > ext.length);
  if (!match) throw new NotFound('Unknown archive format');
  const [ext, format, contentType] = match;
  if (rc.repo.isEmpty) throw new NotFound('Git Repository is empty.');
  const ref = archive.slice(0, -ext.length);
  const gitDir = repoPath(rc.owner.name, rc.repo.name);
  const commit = await resolveCommitId(gitDir, ref, 'ref');
  // why: an archive by commit id serves only history a branch or tag still reaches (git's own rule for upload-archive).
  if (/^[0-9a-f]{4,64}$/i.test(ref) && !(await isReachable(gitDir, commit))) throw new NotFound(`object does not exist [id: ${ref}, rel_path: ]`);
  // why: the prefix inside the archive is the repository name, so a renamed repository gets new files.
  const nameTag = crypto.createHash('sha1').update(rc.repo.name).digest('hex').slice(0, 8);
  const file = path.join(archiveDir(rc.repo.id), `${commit}-${nameTag}${ext}`);
  const filename = `${rc.repo.name}-${ref.replace(/\//g, '-')}${ext}`;

  const cached = await fromCache(file);
  if (cached) return { ...cached, contentType, filename };
  const inflight = building.get(file);
  if (inflight) {
    await inflight;
    const built = await fromCache(file);
    if (built) return { ...built, contentType, filename };
  }
  const live = await buildOnce(file, (out) => build(gitDir, commit, format, rc.repo.name, file, out, signal));
  if (live) return { stream: live, contentType, filename };
  const built = await fromCache(file);
  if (!built) throw new Error(`archive ${file} was not built`);
  return { ...built, contentType, filename };
}

/** The cached file as a stream (its mtime marks it recently used), or null. */
async function fromCache(file: string): Promise<{ stream: Readable; size: number } | null> {
  try {
    const fd = await fsp.open(file, 'r');
    const { size } = await fd.stat();
    const now = new Date();
    await fsp.utimes(file, now, now).catch(() => undefined);
    return { stream: fd.createReadStream(), size };
  } catch {
    return null;
  }
}

/**
 * Build `file` unless another process did meanwhile. Resolves with the live stream when this call
 * builds, or null when the cached file can be served.
 */
function buildOnce(file: string, run: (out: PassThrough) => Promise<void>): Promise<PassThrough | null> {
  return new Promise((resolve, reject) => {
    let handedOut = false;
    // why: the lock key names the archive, so different archives build in parallel; the wait is long because a build of a big repository takes a while.
    const done = locker().withLock(`archive:${file}`, async () => {
      if (fs.existsSync(file)) {
        handedOut = true;
        resolve(null);
        return;
      }
      const out = new PassThrough();
      handedOut = true;
      resolve(out);
      await run(out);
    }, { waitMs: 600_000 });
    building.set(file, done.catch(() => undefined));
    done.catch((err: unknown) => { if (!handedOut) reject(err); }).finally(() => building.delete(file));
  });
}

/** Run git, writing the archive to a temporary file and to the client; the file becomes the cache entry when git succeeds. */
async function build(gitDir: string, commit: string, format: ArchiveFormat, prefix: string, file: string, out: PassThrough, signal: AbortSignal): Promise<void> {
  await fsp.mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.${crypto.randomBytes(4).toString('hex')}.tmp`;
  let clientAlive = true;
  let waiting: (() => void) | null = null;
  const dropClient = () => {
    clientAlive = false;
    waiting?.();
    out.destroy();
  };
  if (signal.aborted) dropClient();
  signal.addEventListener('abort', dropClient, { once: true });
  // why: the file gets every byte at git's pace; the client is fed as fast as it reads, and a client
  // that leaves does not stop the build, which still fills the cache.
  const tee = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      if (!clientAlive || out.write(chunk)) return cb(null, chunk);
      waiting = () => { waiting = null; cb(null, chunk); };
      out.once('drain', () => waiting?.());
    },
  });
  const proc = await spawnArchive(gitDir, commit, format, prefix);
  const exited = new Promise<number | null>((resolve) => proc.child.once('close', resolve));
  let stderr = '';
  proc.child.stderr.on('data', (d: Buffer) => { if (stderr.length < 4096) stderr += d.toString(); });
  try {
    await pipeline(proc.child.stdout, tee, fs.createWriteStream(tmp));
    const code = await exited;
    if (code !== 0) throw new Error(`git ${format} archive failed (${code}): ${stderr.trim()}`);
    await fsp.rename(tmp, file);
    if (clientAlive) out.end();
    void evictIfFull().catch((err: unknown) => console.error('archive cache eviction:', err));
  } catch (err) {
    await fsp.rm(tmp, { force: true });
    out.destroy(err as Error);
    throw err;
  } finally {
    signal.removeEventListener('abort', dropClient);
    await proc.cleanup();
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
      if (name.endsWith('.tmp')) continue;
      const file = path.join(root, repo, name);
      const st = await fsp.stat(file).catch(() => null);
      if (st) files.push({ file, size: st.size, mtime: st.mtimeMs });
    }
  }
  let total = files.reduce((s, f) => s + f.size, 0);
  if (total <= max) return;
  for (const f of files.sort((a, b) => a.mtime - b.mtime)) {
    if (total <= max * 0.8) break;
    await fsp.rm(f.file, { force: true });
    total -= f.size;
  }
}

/** Forget every cached archive of a repository (deletion). */
export async function removeArchives(repoId: number): Promise<void> {
  await fsp.rm(archiveDir(repoId), { recursive: true, force: true });
}
