/**
 * Job logs on disk under [actions] LOG_PATH: a running task's log is a plain file that rows are
 * appended to (an append costs no rewrite); the runner's last rows go with it into a gzip file
 * beside it, and the plain one is removed. Lines are Gitea's: a UTC time with seven
 * fractional digits, a space, the content with its newlines escaped, cut at 64 KiB.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import type { Readable } from 'node:stream';
import { settings } from '../../config';

const MAX_LINE = 64 * 1024;

/** A task's log file name, relative to LOG_PATH (Gitea's `owner/repo/<id % 256 in hex>/<id>.log`). */
export function logFilename(owner: string, repo: string, taskId: number): string {
  return `${owner}/${repo}/${(taskId % 256).toString(16).padStart(2, '0')}/${taskId}.log`;
}

const full = (name: string) => path.join(settings().actions.logPath, name);
const compressed = (name: string) => `${full(name)}.gz`;

/** One log line as Gitea writes it. */
export function formatLogLine(time: Date, content: string): string {
  const iso = time.toISOString();
  const line = `${iso.slice(0, 19)}.${iso.slice(20, 23)}0000Z ${content.replace(/\r?\n/g, '\\n')}`;
  return `${line.length > MAX_LINE ? line.slice(0, MAX_LINE) : line}\n`;
}

/** Append lines to a task's log; returns the bytes written. */
export async function appendLog(name: string, lines: string[]): Promise<number> {
  const text = lines.join('');
  const file = full(name);
  await inDir(file, () => fsp.appendFile(file, text));
  return Buffer.byteLength(text);
}

/**
 * Run a write of `file`; when its directory is missing, make it and write again. why: the directory
 * exists for all but a task's first write, and making it every time cost system calls on every write.
 */
async function inDir<T>(file: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    await fsp.mkdir(path.dirname(file), { recursive: true });
    return write();
  }
}

// why: a log this small is compressed in memory in one step; a stream and a full-size zlib window cost more than the work.
const IN_MEMORY = 1 << 20;

/**
 * Compress a finished task's log, with its last `lines` when given (idempotent: a log already
 * compressed is left). Returns the bytes of `lines`.
 */
export async function archiveLog(name: string, lines: string[] = []): Promise<number> {
  const file = full(name);
  const gz = compressed(name);
  const tail = Buffer.from(lines.join(''));
  const size = await fsp.stat(file).then((st) => st.size, () => null);
  if (size === null && tail.length <= IN_MEMORY) {
    // why: the runner sent every row with its last call (or none at all): there is no plain file to
    // read or remove, and the gzip file is written in one step ('wx' leaves a log archived before alone).
    try {
      await inDir(gz, () => fsp.writeFile(gz, gzipSmall(tail), { flag: 'wx' }));
      return tail.length;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') return 0;
      throw err;
    }
  }
  if (size === null && fs.existsSync(gz)) return 0;
  const tmp = `${gz}.tmp`;
  if ((size ?? 0) + tail.length <= IN_MEMORY) {
    await fsp.writeFile(tmp, gzipSmall(Buffer.concat([await fsp.readFile(file), tail])));
  } else {
    if (tail.length) await inDir(file, () => fsp.appendFile(file, tail));
    await pipeline(fs.createReadStream(file), zlib.createGzip(), fs.createWriteStream(tmp));
  }
  await fsp.rename(tmp, gz);
  await fsp.rm(file, { force: true });
  return tail.length;
}

/** A log of at most IN_MEMORY bytes, gzipped in one step. */
function gzipSmall(text: Buffer): Buffer {
  // why: a small input needs no 32 KiB window; the smallest that holds it makes the same stream any gunzip reads.
  const windowBits = Math.min(15, Math.max(9, Math.ceil(Math.log2(text.length + 262))));
  return zlib.gzipSync(text, { windowBits, memLevel: Math.max(1, windowBits - 7) });
}

/** A stream of a task's whole log, or null when the file is gone. */
export function readLog(name: string, archived: boolean): Readable | null {
  const file = archived ? compressed(name) : full(name);
  if (!fs.existsSync(file)) return null;
  const raw = fs.createReadStream(file);
  return archived ? raw.pipe(zlib.createGunzip()) : raw;
}

/** Remove a task's log, in either form. */
export async function removeLog(name: string): Promise<void> {
  if (!name) return;
  await fsp.rm(full(name), { force: true });
  await fsp.rm(compressed(name), { force: true });
}
