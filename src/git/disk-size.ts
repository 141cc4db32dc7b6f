/**
 * A repository's size on disk as `git count-objects -v` reports it (`size` + `size-pack`): the disk
 * blocks of its loose objects and the bytes of its packs with their indexes, each rounded down to
 * KiB. Read from the file system: each fan-out directory (`objects/xx`) is walked again only when
 * its modification time changed, so measuring after every write costs a few stat calls.
 * why: the size is measured on every push's answer path; starting `git count-objects` took longer
 * than the rest of recording the push.
 */
import { statSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';

const FANOUT = /^[0-9a-f]{2}$/;
const LOOSE = /^[0-9a-f]{38}(?:[0-9a-f]{24})?$/;
const MAX_KEPT = 50_000;

/** Bytes of loose objects per fan-out directory, with the directory's mtime when it was walked. */
const walked = new Map<string, { mtimeNs: bigint; ino: bigint; bytes: number }>();

async function looseBytes(dir: string): Promise<number> {
  // why: a stat of a directory is cheaper on the event loop than a hop to the thread pool; only changed directories are read.
  const st = statSync(dir, { bigint: true, throwIfNoEntry: false });
  if (!st) return 0;
  const kept = walked.get(dir);
  if (kept && kept.mtimeNs === st.mtimeNs && kept.ino === st.ino) return kept.bytes;
  let bytes = 0;
  for (const name of await fs.readdir(dir)) {
    if (!LOOSE.test(name)) continue;
    const f = await fs.stat(path.join(dir, name)).catch(() => null);
    // why: git counts the blocks a loose object takes (on_disk_bytes), not its length.
    if (f?.isFile()) bytes += f.blocks * 512;
  }
  if (walked.size >= MAX_KEPT) walked.clear();
  // why: a directory changed during the walk has a newer mtime than the one kept, so the next call walks it again.
  walked.set(dir, { mtimeNs: st.mtimeNs, ino: st.ino, bytes });
  return bytes;
}

async function packBytes(dir: string): Promise<number> {
  const names = await fs.readdir(dir).catch(() => [] as string[]);
  const idx = new Set(names.filter((n) => n.endsWith('.idx')));
  let bytes = 0;
  for (const pack of names.filter((n) => n.endsWith('.pack') && idx.has(`${n.slice(0, -5)}.idx`))) {
    const [p, i] = await Promise.all([fs.stat(path.join(dir, pack)).catch(() => null), fs.stat(path.join(dir, `${pack.slice(0, -5)}.idx`)).catch(() => null)]);
    if (p && i) bytes += p.size + i.size;
  }
  return bytes;
}

/** On-disk size of a bare repository's objects in bytes, as `git count-objects -v` counts it (KiB granularity). */
export async function repoSizeBytes(gitDir: string): Promise<number> {
  const objects = path.join(gitDir, 'objects');
  const fanouts = (await fs.readdir(objects).catch(() => [] as string[])).filter((n) => FANOUT.test(n));
  const loose = (await Promise.all(fanouts.map((d) => looseBytes(path.join(objects, d)).catch(() => 0)))).reduce((a, b) => a + b, 0);
  const packed = await packBytes(path.join(objects, 'pack'));
  return (Math.floor(loose / 1024) + Math.floor(packed / 1024)) * 1024;
}
