/**
 * Pieces of a task's log by line number, for the run page: lines `[from, to)` without reading the
 * whole log. A running task's plain file is indexed as it grows (only the bytes added since the last
 * read are scanned); a finished task's gzip file is inflated once and kept while memory allows.
 */
import fsp from 'node:fs/promises';
import path from 'node:path';
import zlib from 'node:zlib';
import { promisify } from 'node:util';
import { settings } from '../../config';
import { WeightedLru } from '../../git/lru';

const gunzip = promisify(zlib.gunzip);

/** Where each line of a log starts, up to `scanned` bytes (complete lines only). */
interface PlainIndex { starts: number[]; scanned: number }
/** An inflated log with where each line starts. */
interface Inflated { text: Buffer; starts: number[] }

// why: per process; a plain log only grows (a rerun writes a new task's file), so an index is extended, never invalidated.
// 8 bytes a line: 2 million line starts (16 MiB) cover the running logs being watched.
const plain = new WeightedLru<PlainIndex>(2_000_000, (idx) => idx.starts.length);
// why: a finished log is read again while its page is open (each step opened); 64 MiB holds the few being looked at.
const inflated = new WeightedLru<Inflated>(64 << 20, (log) => log.text.length);

const fullPath = (name: string) => path.join(settings().actions.logPath, name);

function lineStarts(buf: Buffer, base: number, starts: number[], from = 0): number {
  let at = from;
  for (let nl = buf.indexOf(10, at); nl >= 0; nl = buf.indexOf(10, at)) {
    at = nl + 1;
    starts.push(base + at);
  }
  return at;
}

/** Lines `[from, to)` of a plain (growing) log; fewer when it has fewer. */
async function plainLines(name: string, from: number, to: number): Promise<string[] | null> {
  const file = fullPath(name);
  let fh: fsp.FileHandle;
  try {
    fh = await fsp.open(file, 'r');
  } catch {
    // why: its file is gone (archived, or the run deleted).
    plain.delete(name);
    return null;
  }
  try {
    const idx = plain.get(name) ?? { starts: [0], scanned: 0 };
    const { size } = await fh.stat();
    if (size > idx.scanned && idx.starts.length - 1 < to) {
      const buf = Buffer.alloc(size - idx.scanned);
      const { bytesRead } = await fh.read(buf, 0, buf.length, idx.scanned);
      // why: a line still being appended (no newline yet) waits for the next read.
      idx.scanned += lineStarts(buf.subarray(0, bytesRead), idx.scanned, idx.starts);
    }
    // why: set again after growing, so the cache weighs the longer index.
    plain.set(name, idx);
    const count = idx.starts.length - 1;
    const a = Math.min(from, count);
    const b = Math.min(to, count);
    if (b <= a) return [];
    const buf = Buffer.alloc(idx.starts[b] - idx.starts[a]);
    await fh.read(buf, 0, buf.length, idx.starts[a]);
    return splitLines(buf);
  } finally {
    await fh.close();
  }
}

/** Lines `[from, to)` of a finished (gzipped) log. */
async function archivedLines(name: string, from: number, to: number): Promise<string[] | null> {
  let log = inflated.get(name);
  if (!log) {
    let gz: Buffer;
    try {
      gz = await fsp.readFile(`${fullPath(name)}.gz`);
    } catch {
      return null;
    }
    const text = await gunzip(gz);
    const starts = [0];
    lineStarts(text, 0, starts);
    log = { text, starts };
    inflated.set(name, log);
  }
  const count = log.starts.length - 1;
  const a = Math.min(from, count);
  const b = Math.min(to, count);
  return b <= a ? [] : splitLines(log.text.subarray(log.starts[a], log.starts[b]));
}

function splitLines(buf: Buffer): string[] {
  const lines = buf.toString('utf8').split('\n');
  lines.pop();
  return lines;
}

/**
 * Lines `[from, to)` of a task's log as stored (Gitea's `<time> <content>`), or null when the log
 * is gone. why: a log archived between reading the task and reading its file is read archived.
 */
export async function readLogLines(name: string, archived: boolean, from: number, to: number): Promise<string[] | null> {
  if (!name || to <= from) return name ? [] : null;
  if (!archived) {
    const lines = await plainLines(name, from, to);
    if (lines) return lines;
  }
  return archivedLines(name, from, to);
}

/** A stored line split into its time (ISO) and its content. */
export function splitLogLine(line: string): { time: string; content: string } {
  const sp = line.indexOf(' ');
  // why: Gitea's lines start with a 28-character UTC time; anything else is shown whole.
  return sp === 28 && line[27] === 'Z' ? { time: line.slice(0, 28), content: line.slice(29) } : { time: '', content: line };
}
