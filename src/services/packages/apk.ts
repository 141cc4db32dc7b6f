/**
 * Reading an uploaded Alpine package (`.apk`, v2): gzip members one after another, an optional
 * signature segment, the control segment with `.PKGINFO`, then the data. Only the head of the file
 * is read: each member is inflated under a cap until the one holding `.PKGINFO`, whose compressed
 * bytes give the package's `C:` checksum (`Q1` and the base64 SHA-1 of the member, as apk computes
 * it). Name, version and architecture are checked so that none can break a path or an index line.
 */
import crypto from 'node:crypto';
import fsp from 'node:fs/promises';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { BadRequest } from '../../errors';
import { readTar, type ArchiveCaps } from './archive';

/** The largest `.apk` taken ([packages] LIMIT_SIZE_ALPINE can set a lower one). */
export const APK_MAX_BYTES = 2 * 1024 * 1024 * 1024;

/** How much of the file the signature and control segments may take, and how much they may unpack to. */
const HEAD_BYTES = 4 * 1024 * 1024;
const CONTROL_UNPACKED = 16 * 1024 * 1024;
const CAPS: ArchiveCaps = { maxEntries: 1000, maxUnpackedBytes: CONTROL_UNPACKED, maxRatio: 1000 };

const NAME = /^[A-Za-z0-9][A-Za-z0-9+_.-]*$/;
const VERSION = /^[A-Za-z0-9][A-Za-z0-9._+~-]*$/;
const ARCH = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;

/** What a package says of itself in `.PKGINFO` (Gitea's metadata, its JSON names). */
export interface ApkPackage {
  name: string; version: string; architecture: string;
  /** The version's metadata, from its first upload. */
  versionMetadata: { description?: string; license?: string; project_url?: string; maintainer?: string };
  /** The file's metadata, as the index lists it. */
  fileMetadata: {
    checksum: string; packager?: string; build_date?: number; size?: number; architecture?: string; origin?: string; commit_hash?: string;
    install_if?: string; provides?: string[]; dependencies?: string[]; provider_priority?: number;
  };
}

const inflateRaw = promisify(zlib.inflateRaw) as unknown as (b: Buffer, o: zlib.ZlibOptions & { info: true }) => Promise<{ buffer: Buffer; engine: zlib.InflateRaw }>;

/** Where the deflate data of the gzip member at `at` starts (RFC 1952 header, its optional fields skipped). */
function gzipBody(buf: Buffer, at: number): number {
  if (buf.length < at + 10 || buf[at] !== 0x1f || buf[at + 1] !== 0x8b || buf[at + 2] !== 8) throw new BadRequest('package has invalid structure: not a gzip stream');
  const flags = buf[at + 3];
  let p = at + 10;
  if (flags & 4) p += 2 + buf.readUInt16LE(p);
  for (const bit of [8, 16]) if (flags & bit) { while (p < buf.length && buf[p] !== 0) p++; p++; }
  if (flags & 2) p += 2;
  if (p > buf.length) throw new BadRequest('package has invalid structure: a damaged gzip header');
  return p;
}

/** The fields of `.PKGINFO` (Gitea's rules: `key = value`, `#` comments, repeated keys for lists). */
function parsePkgInfo(text: string, checksum: string): ApkPackage {
  const one = new Map<string, string>();
  const many = new Map<string, string[]>();
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const eq = line.indexOf('=');
    if (eq < 0) continue;
    const key = line.slice(0, eq).trim();
    const value = line.slice(eq + 1).trim();
    one.set(key, value);
    if (value) many.set(key, [...(many.get(key) ?? []), value]);
  }
  const text1 = (k: string) => one.get(k) || undefined;
  const int = (k: string) => (/^\d+$/.test(one.get(k) ?? '') ? Number(one.get(k)) : undefined);
  const name = one.get('pkgname') ?? '';
  const version = one.get('pkgver') ?? '';
  const architecture = one.get('arch') ?? '';
  if (!NAME.test(name)) throw new BadRequest('package name is invalid');
  if (!VERSION.test(version)) throw new BadRequest('package version is invalid');
  if (!ARCH.test(architecture)) throw new BadRequest('package architecture is invalid');
  const url = one.get('url') ?? '';
  const drop = <T extends object>(o: T) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== 0 && !(Array.isArray(v) && v.length === 0))) as T;
  return {
    name, version, architecture,
    versionMetadata: drop({ description: text1('pkgdesc'), license: text1('license'), project_url: /^https?:\/\//.test(url) ? url : undefined, maintainer: text1('maintainer') }),
    fileMetadata: drop({
      checksum, packager: text1('packager'), build_date: int('builddate'), size: int('size'), architecture, origin: text1('origin'), commit_hash: text1('commit'),
      install_if: text1('install_if'), provides: many.get('provides'), dependencies: many.get('depend'), provider_priority: int('provider_priority'),
    }),
  };
}

/** Read and check the `.apk` at `file` (400 with the reason otherwise). */
export async function readApkPackage(file: string): Promise<ApkPackage> {
  const fh = await fsp.open(file, 'r');
  let head: Buffer;
  try {
    const { size } = await fh.stat();
    head = Buffer.alloc(Math.min(size, HEAD_BYTES));
    await fh.read(head, 0, head.length, 0);
  } finally {
    await fh.close();
  }
  if (head.length === 0) throw new BadRequest('EOF');
  let at = 0;
  // why: the control segment is the first member, or the second after a signature.
  for (let member = 0; member < 2 && at < head.length; member++) {
    const body = gzipBody(head, at);
    const { buffer, engine } = await inflateRaw(head.subarray(body), { info: true, maxOutputLength: CONTROL_UNPACKED }).catch(() => {
      throw new BadRequest('package has invalid structure: a control segment is damaged, or larger than allowed');
    });
    const end = body + engine.bytesWritten + 8;
    if (end > head.length) throw new BadRequest('package has invalid structure: a control segment is truncated');
    let info: Buffer | null = null;
    await readTar([Readable.from([buffer])], end - at, CAPS, 1024 * 1024, (e) => !info && e.name === '.PKGINFO', (_e, bytes) => { info = bytes; });
    if (info) {
      const checksum = `Q1${crypto.createHash('sha1').update(head.subarray(at, end)).digest('base64')}`;
      return parsePkgInfo((info as Buffer).toString('utf8'), checksum);
    }
    at = end;
  }
  throw new BadRequest('PKGINFO file is missing');
}
