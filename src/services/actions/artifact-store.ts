/**
 * Artifact files under APP_DATA_PATH/actions_artifacts. An upload arrives as Azure-style blocks
 * (`comp=block&blockid=…`, in parallel and in any order) followed by the block list that orders
 * them, or as appended chunks (`comp=appendBlock`); each part is written to a file of its own under
 * `tmp/<artifact>/` (renamed into place when whole, so any node may take any part), and finalizing
 * joins them into `<run % 256>/<run>/<artifact>-<time>.zip`, hashing as it writes.
 */
import crypto from 'node:crypto';
import { once } from 'node:events';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Transform, type Readable } from 'node:stream';
import { settings } from '../../config';
import { BadRequest } from '../../errors';

const root = () => settings().actions.artifactPath;
const partsDir = (artifactId: number) => path.join(root(), 'tmp', String(artifactId));
const blockFile = (artifactId: number, blockId: string) => path.join(partsDir(artifactId), `block-${Buffer.from(blockId).toString('base64url')}`);
const appendFile = (artifactId: number) => path.join(partsDir(artifactId), 'append');
const listFile = (artifactId: number) => path.join(partsDir(artifactId), 'blocklist.json');

/** Write a stream to `file` through a temporary name; returns the bytes written. */
async function writeWhole(file: string, body: Readable): Promise<number> {
  await fsp.mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.${crypto.randomBytes(6).toString('hex')}.part`;
  let bytes = 0;
  const count = new Transform({ transform(chunk: Buffer, _enc, done) { bytes += chunk.length; done(null, chunk); } });
  try {
    await pipeline(body, count, fs.createWriteStream(tmp));
    await fsp.rename(tmp, file);
  } finally {
    await fsp.rm(tmp, { force: true });
  }
  return bytes;
}

/** Store one block of an upload. */
export function saveBlock(artifactId: number, blockId: string, body: Readable): Promise<number> {
  return writeWhole(blockFile(artifactId, blockId), body);
}

/** Append a chunk to an upload sent as one growing file; returns the chunk's bytes. */
export async function appendChunk(artifactId: number, body: Readable): Promise<number> {
  const file = appendFile(artifactId);
  await fsp.mkdir(path.dirname(file), { recursive: true });
  const before = (await fsp.stat(file).catch(() => null))?.size ?? 0;
  await pipeline(body, fs.createWriteStream(file, { flags: 'a' }));
  return (await fsp.stat(file)).size - before;
}

/** Store the order of an upload's blocks. */
export async function saveBlockList(artifactId: number, blockIds: string[]): Promise<void> {
  await fsp.mkdir(partsDir(artifactId), { recursive: true });
  await fsp.writeFile(listFile(artifactId), JSON.stringify(blockIds));
}

/** What joining an upload's parts wrote. */
export interface Assembled { storagePath: string; size: number; sha256: string }

/**
 * Join an upload's parts into the artifact's file: its blocks in block-list order, or its appended
 * chunks. 400 when a listed block is missing or nothing was uploaded. The parts are removed.
 */
export async function assemble(runId: number, artifactId: number): Promise<Assembled> {
  const list = await fsp.readFile(listFile(artifactId), 'utf8').then((t) => JSON.parse(t) as string[], () => null);
  const files = list ? list.map((id) => blockFile(artifactId, id)) : [appendFile(artifactId)];
  for (const [i, f] of files.entries()) {
    if (!fs.existsSync(f)) throw new BadRequest(list ? `block ${i + 1} of ${list.length} of the block list was never uploaded` : 'nothing was uploaded for this artifact');
  }
  const storagePath = path.join((runId % 256).toString(16).padStart(2, '0'), String(runId), `${artifactId}-${Date.now()}.zip`);
  const target = path.join(root(), storagePath);
  await fsp.mkdir(path.dirname(target), { recursive: true });
  const hash = crypto.createHash('sha256');
  const out = fs.createWriteStream(target);
  let size = 0;
  try {
    for (const f of files) {
      for await (const chunk of fs.createReadStream(f) as AsyncIterable<Buffer>) {
        hash.update(chunk);
        size += chunk.length;
        if (!out.write(chunk)) await once(out, 'drain');
      }
    }
    await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
  } catch (err) {
    out.destroy();
    await fsp.rm(target, { force: true });
    throw err;
  }
  await removeUploadParts(artifactId);
  return { storagePath, size, sha256: hash.digest('hex') };
}

/** Remove what an upload left under tmp/. */
export async function removeUploadParts(artifactId: number): Promise<void> {
  await fsp.rm(partsDir(artifactId), { recursive: true, force: true });
}

/** A stream of an artifact's file and its size, or null when the file is gone. */
export async function openArtifactFile(storagePath: string): Promise<{ stream: Readable; size: number } | null> {
  if (!storagePath) return null;
  const file = path.join(root(), storagePath);
  const st = await fsp.stat(file).catch(() => null);
  return st ? { stream: fs.createReadStream(file), size: st.size } : null;
}

/** Remove an artifact's file. */
export async function removeArtifactFile(storagePath: string): Promise<void> {
  if (storagePath) await fsp.rm(path.join(root(), storagePath), { force: true });
}
