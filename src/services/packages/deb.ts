/**
 * Reading an uploaded Debian package (`.deb`): an ar archive whose `control.tar` member (plain, or
 * compressed with gzip, xz or zstd) holds the `control` file. The archive is walked by its member
 * headers, each size checked against what the file holds (a `.deb` whose sizes lie is refused
 * before anything is read past its end); the control member is decompressed, by streaming and under
 * caps, and only the control file is kept; the data member's compression ratio is checked on its
 * first megabytes. Name, version and architecture are checked by
 * Debian's rules (stricter than Gitea's patterns: nothing that could break a path or an index line
 * gets through), and so is the control text, which the `Packages` index repeats.
 */
import fs from 'node:fs';
import { spawn } from 'node:child_process';
import { Duplex, Transform, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import { Decompress } from 'fzstd';
import { BadRequest } from '../../errors';
import { readTar, type ArchiveCaps } from './archive';

/** The largest `.deb` taken (Gitea has no cap of its own; [packages] LIMIT_SIZE_DEBIAN can set a lower one). */
export const DEB_MAX_BYTES = 2 * 1024 * 1024 * 1024;

const AR_MAGIC = '!<arch>\n';
const HEADER = 60;
const MAX_MEMBERS = 16;
const MAX_CONTROL_BYTES = 1024 * 1024;
const CAPS: ArchiveCaps = { maxEntries: 10_000, maxUnpackedBytes: 64 * 1024 * 1024, maxRatio: 1000 };

const NAME = /^[a-z0-9][a-z0-9+.-]+$/;
const VERSION = /^(?:[0-9]+:)?[A-Za-z0-9.+~]+(?:-[A-Za-z0-9.+~]+)?$/;
const ARCH = /^[a-z0-9][a-z0-9-]*$/;

/** What a `.deb` says of itself. */
export interface DebPackage {
  name: string; version: string; architecture: string; maintainer: string; description: string; dependencies: string[]; homepage: string;
  /** The control file as uploaded, trimmed: the start of its stanza in `Packages`. */
  control: string;
}

/**
 * A zstd decompressor as a stream (fzstd, in plain JavaScript). why: fzstd hands over everything one
 * input chunk decodes to at once, and a few kilobytes may decode to gigabytes; the output is counted
 * as it comes and cut at the cap, before it is held.
 */
function zstdStream(cap = CAPS.maxUnpackedBytes): Transform {
  let produced = 0;
  const out: Transform = new Transform({
    transform(chunk: Buffer, _enc, done) {
      try { d.push(chunk); done(); } catch (err) { done(err as Error); }
    },
    flush(done) {
      try { d.push(new Uint8Array(0), true); done(); } catch (err) { done(err as Error); }
    },
  });
  const d = new Decompress((chunk) => {
    produced += chunk.length;
    if (produced > cap) throw new BadRequest(`the archive unpacks to more than ${cap} bytes`);
    out.push(Buffer.from(chunk));
  });
  return out;
}

/** An xz decompressor as a stream: the `xz` program every Debian system has. */
function xzStream(): Duplex {
  const child = spawn('xz', ['--decompress', '--stdout', '--quiet', '--single-stream'], { stdio: ['pipe', 'pipe', 'ignore'] });
  const duplex = Duplex.from({ writable: child.stdin, readable: child.stdout });
  duplex.once('close', () => child.kill());
  return duplex;
}

/** The decompressor a `control.tar<suffix>` or `data.tar<suffix>` member needs (zstd: cut past `cap`). */
function decompressor(suffix: string, cap?: number): NodeJS.ReadableStream[] {
  switch (suffix) {
    case '': return [];
    case '.gz': return [zlib.createGunzip()];
    case '.xz': return [xzStream()];
    case '.zst': return [zstdStream(cap)];
    default: throw new BadRequest('unsupported compression algorithm');
  }
}

/** How much of the data member is unpacked to judge its compression, and the ratio refused. */
const DATA_PROBE_BYTES = 64 * 1024 * 1024;
const DATA_MAX_RATIO = 200;

/**
 * Refuse a data member that unpacks to far more than any real package (10 GB of zeros in a few
 * MB): its first DATA_PROBE_BYTES are unpacked, counting the compressed bytes that went in, and a
 * ratio past DATA_MAX_RATIO is a 400. The files themselves are never looked at or kept.
 */
async function probeDataMember(file: string, start: number, length: number, suffix: string): Promise<void> {
  // why: a plain tar cannot be a bomb, and older compressions (bz2, lzma) are left to dpkg, as Gitea leaves every data member.
  if (!['.gz', '.xz', '.zst'].includes(suffix) || length === 0) return;
  let read = 0;
  let produced = 0;
  const enough = new Error('enough');
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      produced += chunk.length;
      done(produced >= DATA_PROBE_BYTES ? enough : null);
    },
  });
  // why: what was read may still wait in the stages' buffers; gzip's engine says what it took in, exactly.
  const gunzip = suffix === '.gz' ? zlib.createGunzip() : null;
  const stages = gunzip ? [gunzip] : decompressor(suffix, DATA_PROBE_BYTES + 1024 * 1024);
  const consumed = () => gunzip?.bytesWritten ?? read;
  const source = fs.createReadStream(file, { start, end: start + length - 1, highWaterMark: 16 * 1024 });
  source.on('data', (chunk) => { read += chunk.length; });
  try {
    await pipeline([source, ...stages, sink] as unknown as [NodeJS.ReadableStream, NodeJS.WritableStream]);
  } catch (err) {
    if (err !== enough) throw err instanceof BadRequest ? err : new BadRequest('package has invalid structure: the data member cannot be unpacked');
  }
  if (produced >= DATA_PROBE_BYTES && produced / Math.max(1, consumed()) > DATA_MAX_RATIO) throw new BadRequest(`the archive is compressed more than ${DATA_MAX_RATIO} to 1`);
}

/** The control file's bytes from the `.deb` at `file`. */
async function controlFileOf(file: string): Promise<Buffer> {
  const size = fs.statSync(file).size;
  const fd = fs.openSync(file, 'r');
  try {
    const magic = Buffer.alloc(8);
    if (fs.readSync(fd, magic, 0, 8, 0) !== 8 || magic.toString('latin1') !== AR_MAGIC) throw new BadRequest('package has invalid structure: not an ar archive');
    let control: Buffer | null = null;
    let at = 8;
    for (let members = 0; at + HEADER <= size; members++) {
      if (members >= MAX_MEMBERS) throw new BadRequest(`package has invalid structure: more than ${MAX_MEMBERS} members`);
      const head = Buffer.alloc(HEADER);
      fs.readSync(fd, head, 0, HEADER, at);
      const name = head.subarray(0, 16).toString('latin1').trim().replace(/\/$/, '');
      const sizeText = head.subarray(48, 58).toString('latin1').trim();
      if (!/^\d{1,10}$/.test(sizeText) || head.subarray(58, 60).toString('latin1') !== '`\n') throw new BadRequest('package has invalid structure: a damaged member header');
      const length = Number(sizeText);
      const start = at + HEADER;
      if (start + length > size) throw new BadRequest(`package has invalid structure: member ${JSON.stringify(name)} claims more bytes than the file holds`);
      if (name.startsWith('control.tar') && !control) {
        // why: the decompressor first: an unknown compression throws before a file stream is opened and left behind.
        const unpack = decompressor(name.slice('control.tar'.length));
        const stages = [fs.createReadStream(file, { start, end: start + length - 1 }), ...unpack];
        await readTar(stages, length, CAPS, MAX_CONTROL_BYTES, (e) => !control && /(?:^|\/)control$/.test(e.name), (_e, bytes) => { control = bytes; });
      } else if (name.startsWith('data.tar')) {
        await probeDataMember(file, start, length, name.slice('data.tar'.length));
      }
      at = start + length + (length % 2);
    }
    if (!control) throw new BadRequest('control file is missing');
    return control;
  } finally {
    fs.closeSync(fd);
  }
}

/** The fields of a control file (continuation lines joined to their field). */
function controlFields(text: string): Map<string, string> {
  const fields = new Map<string, string>();
  let last = '';
  for (const line of text.split('\n')) {
    if (/^[ \t]/.test(line)) {
      if (last) fields.set(last, `${fields.get(last)}\n${line}`);
      continue;
    }
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    last = line.slice(0, colon);
    fields.set(last, line.slice(colon + 1).trim());
  }
  return fields;
}

/** Read and check the `.deb` at `file` (400 with the reason otherwise). */
export async function readDebPackage(file: string): Promise<DebPackage> {
  const text = (await controlFileOf(file)).toString('utf8').replace(/\r\n/g, '\n').trim();
  // why: a blank line would end the package's stanza in Packages early, and a NUL has no place in an index.
  if (/\n[ \t]*\n/.test(text) || text.includes('\0')) throw new BadRequest('control file is invalid');
  const f = controlFields(text);
  const name = f.get('Package') ?? '';
  const version = f.get('Version') ?? '';
  const architecture = f.get('Architecture') ?? '';
  if (!NAME.test(name)) throw new BadRequest('package name is invalid');
  if (!VERSION.test(version)) throw new BadRequest('package version is invalid');
  if (!ARCH.test(architecture)) throw new BadRequest('package architecture is invalid');
  const homepage = f.get('Homepage') ?? '';
  return {
    name, version, architecture, control: text, maintainer: f.get('Maintainer') ?? '', description: f.get('Description') ?? '',
    dependencies: (f.get('Depends') ?? '').replace(/\n\s*/g, ' ').split(',').map((d) => d.trim()).filter(Boolean),
    homepage: /^https?:\/\//.test(homepage) ? homepage : '',
  };
}
