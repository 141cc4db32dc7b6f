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
  await fsp.mkdir(path.dirname(file), { recursive: true });
  await fsp.appendFile(file, text);
  return Buffer.byteLength(text);
}

// why: a log this small is compressed in memory in one step; a stream and a full-size zlib window cost more than the work.
const IN_MEMORY = 1 << 20;

/**
 * Compress a finished task's log, with its last `lines` when given (idempotent: a log already
 * compressed is left). Returns the bytes of `lines`.
 */
export async function archiveLog(name: string, lines: string[] = []): Promise<number> {
  const file = full(name);
  const tail = Buffer.from(lines.join(''));
  const size = await fsp.stat(file).then((st) => st.size, () => null);
  if (size === null && fs.existsSync(compressed(name))) return 0;
  await fsp.mkdir(path.dirname(file), { recursive: true });
  const tmp = `${compressed(name)}.tmp`;
  if ((size ?? 0) + tail.length <= IN_MEMORY) {
    const text = size ? Buffer.concat([await fsp.readFile(file), tail]) : tail;
    // why: a small input needs no 32 KiB window; the smallest that holds it makes the same stream any gunzip reads.
    const windowBits = Math.min(15, Math.max(9, Math.ceil(Math.log2(text.length + 262))));
    await fsp.writeFile(tmp, zlib.gzipSync(text, { windowBits, memLevel: Math.max(1, windowBits - 7) }));
  } else {
    if (tail.length) await fsp.appendFile(file, tail);
    await pipeline(fs.createReadStream(file), zlib.createGzip(), fs.createWriteStream(tmp));
  }
  await fsp.rename(tmp, compressed(name));
  await fsp.rm(file, { force: true });
  return tail.length;
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
