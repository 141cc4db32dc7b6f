/**
 * Long-running `git cat-file --batch` processes, one per recently used repository, so reading a
 * page of commit objects costs a pipe round trip instead of a process start. Requests to one
 * repository are answered in order; idle processes exit after a while and at most MAX_OPEN stay.
 * why: starting git costs several milliseconds, more than reading fifty commits.
 */
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { spawnGit } from './run';

const MAX_OPEN = 32;
const IDLE_MS = 30_000;

/** A git object as cat-file prints it. */
export interface GitObject { type: string; data: Buffer }

interface Pending { ids: string[]; got: Map<string, GitObject>; resolve: (m: Map<string, GitObject>) => void; reject: (e: Error) => void }

class BatchReader {
  private readonly child: ChildProcessWithoutNullStreams;
  private buf = Buffer.alloc(0);
  private queue: Pending[] = [];
  private index = 0;
  private idle: NodeJS.Timeout | null = null;
  dead = false;

  constructor(gitDir: string, private readonly onExit: () => void) {
    this.child = spawnGit(['cat-file', '--batch'], { gitDir, timeoutMs: 24 * 3600_000 });
    this.child.stdout.on('data', (d: Buffer) => this.feed(d));
    this.child.stderr.resume();
    this.child.stdin.on('error', () => undefined);
    this.child.once('close', () => this.fail(new Error('git cat-file exited')));
    this.touch();
  }

  private touch(): void {
    if (this.idle) clearTimeout(this.idle);
    this.idle = setTimeout(() => this.close(), IDLE_MS);
    this.idle.unref();
  }

  read(ids: string[]): Promise<Map<string, GitObject>> {
    this.touch();
    return new Promise((resolve, reject) => {
      if (ids.length === 0) return resolve(new Map());
      this.queue.push({ ids, got: new Map(), resolve, reject });
      this.child.stdin.write(`${ids.join('\n')}\n`);
    });
  }

  /** Parse `<id> <type> <size>\n<data>\n` and `<id> missing\n` records as they arrive. */
  private feed(chunk: Buffer): void {
    this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
    for (;;) {
      const job = this.queue[0];
      if (!job) return;
      const nl = this.buf.indexOf(10);
      if (nl < 0) return;
      const header = this.buf.subarray(0, nl).toString();
      const parts = header.split(' ');
      if (parts[1] === 'missing' || parts[1] === 'ambiguous') {
        this.buf = this.buf.subarray(nl + 1);
      } else {
        const size = Number(parts[2]);
        if (this.buf.length < nl + 1 + size + 1) return;
        job.got.set(job.ids[this.index], { type: parts[1], data: Buffer.from(this.buf.subarray(nl + 1, nl + 1 + size)) });
        this.buf = this.buf.subarray(nl + 1 + size + 1);
      }
      if (++this.index === job.ids.length) {
        this.queue.shift();
        this.index = 0;
        job.resolve(job.got);
      }
    }
  }

  private fail(err: Error): void {
    this.dead = true;
    if (this.idle) clearTimeout(this.idle);
    for (const job of this.queue.splice(0)) job.reject(err);
    this.onExit();
  }

  close(): void {
    if (this.dead) return;
    this.dead = true;
    this.child.stdin.end();
    this.onExit();
  }
}

const readers = new Map<string, BatchReader>();

/**
 * Read objects by full id from the repository at `gitDir`; missing ids are absent from the map.
 * Ids must be full hexadecimal object ids (they are written to git's stdin one per line).
 */
export function readObjects(gitDir: string, ids: string[]): Promise<Map<string, GitObject>> {
  if (ids.some((id) => !/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(id))) return Promise.reject(new Error('readObjects takes full object ids'));
  let r = readers.get(gitDir);
  if (!r || r.dead) {
    const created: BatchReader = new BatchReader(gitDir, () => { if (readers.get(gitDir) === created) readers.delete(gitDir); });
    r = created;
    readers.set(gitDir, r);
    if (readers.size > MAX_OPEN) readers.values().next().value?.close();
  } else {
    // why: Map order is the eviction order; a used reader moves to the end.
    readers.delete(gitDir);
    readers.set(gitDir, r);
  }
  return r.read(ids);
}

/** Stop the reader of a repository (before it is moved or deleted). */
export function closeObjectReader(gitDir: string): void {
  readers.get(gitDir)?.close();
}
