/**
 * Reading and signing an uploaded RPM package. The file is read by its layout, with positioned
 * reads: the 96-byte lead, the signature header, the main header; the payload is never read. Each
 * header is held to rpm's own rules before anything in it is trusted (counts and sizes within
 * bounds and within the file, each entry's data aligned, inside the store, after the previous
 * entry's and not overlapping it), so a header with absurd counts is refused after reading 16
 * bytes, and decoding is linear in its size. The main header must match the digest the signature
 * header holds. Signing writes a new signature header with an OpenPGP signature of the main header
 * (tag 268, what `rpmsign --addsign` adds), dropping any older signatures.
 */
import crypto from 'node:crypto';
import fsp from 'node:fs/promises';
import * as openpgp from 'openpgp';
import { BadRequest } from '../../errors';

/** The largest `.rpm` taken ([packages] LIMIT_SIZE_RPM can set a lower one). */
export const RPM_MAX_BYTES = 2 * 1024 * 1024 * 1024;

const LEAD = 96;
const HEADER_MAGIC = Buffer.from([0x8e, 0xad, 0xe8, 0x01, 0, 0, 0, 0]);
/** rpm's bounds: a signature header has at most 32 entries and 64 MiB of data; a main header is capped lower here than rpm's 256 MiB. */
const SIG_LIMITS = { entries: 32, bytes: 64 * 1024 * 1024 };
const MAIN_LIMITS = { entries: 65_535, bytes: 64 * 1024 * 1024 };
const ARRAY_MAX = 0xfffff;

/** Element sizes (and alignments) of the fixed-size types; strings (6, 8, 9) end in NULs, BIN (7) is bytes. */
const FIXED: Record<number, number> = { 0: 0, 1: 1, 2: 1, 3: 2, 4: 4, 5: 8 };

/** Tags of the signature header. */
enum Sig { Region = 62, Rsa = 268, Sha1 = 269, LongSize = 270, Sha256 = 273, Size = 1000, PayloadSize = 1007 }

/** Tags of the main header. */
enum Tag {
  Region = 63, Name = 1000, Version = 1001, Release = 1002, Epoch = 1003, Summary = 1004, Description = 1005, BuildTime = 1006, BuildHost = 1007, Size = 1009,
  Vendor = 1011, License = 1014, Packager = 1015, Group = 1016, Url = 1020, Arch = 1022, FileModes = 1030, FileMtimes = 1034, FileFlags = 1037,
  SourceRpm = 1044, RequireFlags = 1048, RequireName = 1049, RequireVersion = 1050, ProvideName = 1047, ConflictFlags = 1053, ConflictName = 1054,
  ConflictVersion = 1055, ChangelogTime = 1080, ChangelogName = 1081, ChangelogText = 1082, ObsoleteName = 1090, SourcePackage = 1106,
  ProvideFlags = 1112, ProvideVersion = 1113, ObsoleteFlags = 1114, ObsoleteVersion = 1115, DirIndexes = 1116, BaseNames = 1117, DirNames = 1118,
}
/** Signature tags an older signature may sit in (DSA, RSA, PGP, GPG, rpm 4.20's list), and rpmbuild's reserved space: all go when the forge signs. */
const OLD_SIGNATURES = new Set([267, 268, 278, 1002, 1005, 1008]);

/** One entry of a header's index. */
interface Entry { tag: number; type: number; offset: number; count: number; length: number }

/** A checked header: its bytes (intro, index and store) and entries by tag. */
class Header {
  constructor(readonly bytes: Buffer, readonly entries: Map<number, Entry>, private readonly store: Buffer) {}

  private data(e: Entry): Buffer {
    return this.store.subarray(e.offset, e.offset + e.length);
  }

  /** A string tag (STRING, or the first of a STRING_ARRAY or I18NSTRING: the C locale), or ''. */
  str(tag: number): string {
    return this.strs(tag)[0] ?? '';
  }

  /** A string array tag's strings (a STRING as one), or []. */
  strs(tag: number): string[] {
    const e = this.entries.get(tag);
    if (!e || ![6, 8, 9].includes(e.type)) return [];
    return this.data(e).toString('utf8').split('\0').slice(0, e.count);
  }

  /** An integer tag's values (any integer type), or []. */
  ints(tag: number): number[] {
    const e = this.entries.get(tag);
    if (!e || FIXED[e.type] === undefined || e.type === 0) return [];
    const d = this.data(e);
    const size = FIXED[e.type];
    const out: number[] = [];
    for (let i = 0; i < e.count; i++) {
      out.push(size === 1 ? d[i] : size === 2 ? d.readUInt16BE(i * 2) : size === 4 ? d.readUInt32BE(i * 4) : Number(d.readBigUInt64BE(i * 8)));
    }
    return out;
  }

  /** A BIN tag's bytes, or null. */
  bin(tag: number): Buffer | null {
    const e = this.entries.get(tag);
    return e && e.type === 7 ? this.data(e) : null;
  }

  /** Entries other than the region, in store order, with their data. */
  dataEntries(): { entry: Entry; data: Buffer }[] {
    return [...this.entries.values()].filter((e) => e.tag >= 100).sort((a, b) => a.offset - b.offset).map((entry) => ({ entry, data: this.data(entry) }));
  }
}

const invalid = (why: string) => new BadRequest(`package has invalid structure: ${why}`);

/** Read and check the header at `at` of a file of `fileSize` bytes. */
async function readHeader(fh: fsp.FileHandle, at: number, fileSize: number, limits: { entries: number; bytes: number }): Promise<Header> {
  const intro = Buffer.alloc(16);
  if ((await fh.read(intro, 0, 16, at)).bytesRead !== 16 || !intro.subarray(0, 8).equals(HEADER_MAGIC)) throw invalid('not an RPM header');
  const il = intro.readUInt32BE(8);
  const dl = intro.readUInt32BE(12);
  if (il < 1 || il > limits.entries) throw invalid(`a header has ${il} entries (at most ${limits.entries})`);
  if (dl > limits.bytes) throw invalid(`a header has ${dl} bytes of data (at most ${limits.bytes})`);
  if (at + 16 + 16 * il + dl > fileSize) throw invalid('a header claims more bytes than the file holds');
  const rest = Buffer.alloc(16 * il + dl);
  await fh.read(rest, 0, rest.length, at + 16);
  const store = rest.subarray(16 * il);
  const entries = new Map<number, Entry>();
  let end = 0;
  const list: Entry[] = [];
  for (let i = 0; i < il; i++) {
    const tag = rest.readInt32BE(i * 16);
    const type = rest.readUInt32BE(i * 16 + 4);
    const offset = rest.readInt32BE(i * 16 + 8);
    const count = rest.readUInt32BE(i * 16 + 12);
    list.push({ tag, type, offset, count, length: 0 });
  }
  // why: rpm's rule: the first entry may be the region (62 or 63), whose 16-byte trailer ends the store.
  const region = list[0].tag === Sig.Region || list[0].tag === Tag.Region ? list[0] : null;
  const dataEnd = region ? dl - 16 : dl;
  if (region && (region.type !== 7 || region.count !== 16 || region.offset !== dl - 16)) throw invalid('a damaged header region');
  for (const e of list) {
    if (e === region) continue;
    if (e.tag < 100 || e.type > 9 || e.count < 1 || e.count > dl || (e.type !== 7 && e.count > ARRAY_MAX)) throw invalid(`a damaged header entry (tag ${e.tag})`);
    const size = FIXED[e.type];
    if (e.offset < 0 || e.offset < end || e.offset > dataEnd || (size > 1 && e.offset % size !== 0)) throw invalid(`a misplaced header entry (tag ${e.tag})`);
    if (e.type === 7 || size !== undefined) {
      e.length = e.type === 7 ? e.count : size * e.count;
    } else {
      let p = e.offset;
      for (let n = 0; n < (e.type === 6 ? 1 : e.count); n++) {
        const nul = store.indexOf(0, p);
        if (nul < 0 || nul >= dataEnd) throw invalid(`an unterminated string in tag ${e.tag}`);
        p = nul + 1;
      }
      e.length = p - e.offset;
    }
    if (e.offset + e.length > dataEnd) throw invalid(`a header entry runs past its data (tag ${e.tag})`);
    end = e.offset + e.length;
    entries.set(e.tag, e);
  }
  return new Header(Buffer.concat([intro, rest]), entries, store);
}

/** A dependency as the repository metadata lists it. */
export interface RpmEntry { name: string; flags?: string; version?: string; epoch?: string; release?: string }

/** The file metadata Gitea keeps per uploaded file (its JSON names). */
export interface RpmFileMetadata {
  architecture: string; epoch: string; version: string; release: string; vendor: string; group: string; packager: string; source_rpm: string;
  build_host: string; build_time: number; file_time: number; installed_size: number; archive_size: number;
  provide: RpmEntry[]; require: RpmEntry[]; conflict: RpmEntry[]; obsolete: RpmEntry[];
  files: { path: string; type?: string; is_executable: boolean }[];
  changelogs: { author: string; date: number; text: string }[];
}

/** What an RPM says of itself, and where its parts are. */
export interface RpmPackage {
  name: string;
  /** The version as stored: `ver-rel`, with `epoch-` before it when the epoch is not 0. */
  version: string;
  architecture: string;
  versionMetadata: { license?: string; project_url?: string; summary?: string; description?: string };
  fileMetadata: RpmFileMetadata;
  /** Where the main header starts (after the signature header and its padding). */
  mainStart: number;
}

const NAME = /^[A-Za-z0-9_+][A-Za-z0-9_.+-]*$/;
const VERSION = /^[A-Za-z0-9._+~^]+$/;
const ARCH = /^[A-Za-z0-9_]+$/;

/** A dependency list (names, sense flags and versions, in parallel), as Gitea reads it; none when the arrays disagree. */
function dependencies(h: Header, names: number, flags: number, versions: number): RpmEntry[] {
  const n = h.strs(names);
  const f = h.ints(flags);
  const v = h.strs(versions);
  if (n.length === 0 || n.length !== f.length || n.length !== v.length) return [];
  return n.map((name, i) => {
    const e: RpmEntry = { name };
    const sense = f[i] & 0xe;
    const flag = sense === 0xc ? 'GE' : sense === 0xa ? 'LE' : sense & 4 ? 'GT' : sense & 2 ? 'LT' : sense & 8 ? 'EQ' : '';
    if (flag) e.flags = flag;
    if (v[i]) {
      const [verPart, release] = v[i].split('-');
      const colon = verPart.split(':');
      [e.epoch, e.version] = colon.length === 2 ? colon : ['0', verPart];
      if (release !== undefined) e.release = release;
    }
    return e;
  });
}

/** Read and check the `.rpm` at `file` (400 with the reason otherwise). */
export async function readRpmPackage(file: string): Promise<RpmPackage> {
  const fh = await fsp.open(file, 'r');
  try {
    const { size } = await fh.stat();
    const lead = Buffer.alloc(LEAD);
    if ((await fh.read(lead, 0, LEAD, 0)).bytesRead !== LEAD || lead.readUInt32BE(0) !== 0xedabeedb) throw invalid('not an RPM package');
    if (lead.readUInt16BE(78) !== 5) throw invalid('an unknown signature type');
    const sig = await readHeader(fh, LEAD, size, SIG_LIMITS);
    const mainStart = LEAD + sig.bytes.length + ((8 - (sig.bytes.length % 8)) % 8);
    const main = await readHeader(fh, mainStart, size, MAIN_LIMITS);
    const sha256 = sig.str(Sig.Sha256);
    const sha1 = sig.str(Sig.Sha1);
    if (sha256 ? crypto.createHash('sha256').update(main.bytes).digest('hex') !== sha256 : sha1 && crypto.createHash('sha1').update(main.bytes).digest('hex') !== sha1) {
      throw new BadRequest('the package header does not match its digest');
    }
    const declared = sig.ints(Sig.Size)[0] ?? sig.ints(Sig.LongSize)[0];
    if (declared !== undefined && declared !== size - mainStart) throw new BadRequest('the package is truncated, or has bytes past its end');
    return describe(main, sig, lead.readUInt16BE(6) === 1, mainStart);
  } finally {
    await fh.close();
  }
}

/** The package's names and metadata from its headers. */
function describe(h: Header, sig: Header, isSourceLead: boolean, mainStart: number): RpmPackage {
  const name = h.str(Tag.Name);
  const ver = h.str(Tag.Version);
  const rel = h.str(Tag.Release);
  const epoch = h.ints(Tag.Epoch)[0] ?? 0;
  // why: a source package is filed as `src` (Gitea files it under the build's architecture, beside the binary, where it collides).
  const architecture = isSourceLead || h.entries.has(Tag.SourcePackage) ? 'src' : h.str(Tag.Arch);
  if (!NAME.test(name) || name.length > 200) throw new BadRequest('package name is invalid');
  if (!VERSION.test(ver) || !VERSION.test(rel)) throw new BadRequest('package version is invalid');
  if (!ARCH.test(architecture)) throw new BadRequest('package architecture is invalid');
  const dirs = h.strs(Tag.DirNames);
  const indexes = h.ints(Tag.DirIndexes);
  const modes = h.ints(Tag.FileModes);
  const flags = h.ints(Tag.FileFlags);
  const files = h.strs(Tag.BaseNames).flatMap((base, i) => {
    const dir = dirs[indexes[i]];
    if (dir === undefined) return [];
    const type = (flags[i] ?? 0) & 0x40 ? 'ghost' : ((modes[i] ?? 0) & 0xf000) === 0x4000 ? 'dir' : undefined;
    return [{ path: dir + base, ...(type ? { type } : {}), is_executable: !type && ((modes[i] ?? 0) & 0o111) !== 0 }];
  });
  const times = h.ints(Tag.ChangelogTime);
  const authors = h.strs(Tag.ChangelogName);
  const texts = h.strs(Tag.ChangelogText);
  const url = h.str(Tag.Url);
  const drop = <T extends object>(o: T) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== '')) as T;
  return {
    name, architecture, mainStart,
    version: epoch ? `${epoch}-${ver}-${rel}` : `${ver}-${rel}`,
    versionMetadata: drop({ license: h.str(Tag.License), project_url: /^https?:\/\//.test(url) ? url : '', summary: h.str(Tag.Summary), description: h.str(Tag.Description) }),
    fileMetadata: {
      architecture, epoch: String(epoch), version: ver, release: rel, vendor: h.str(Tag.Vendor), group: h.str(Tag.Group), packager: h.str(Tag.Packager),
      source_rpm: h.str(Tag.SourceRpm), build_host: h.str(Tag.BuildHost), build_time: h.ints(Tag.BuildTime)[0] ?? 0, file_time: h.ints(Tag.FileMtimes)[0] ?? 0,
      installed_size: h.ints(Tag.Size)[0] ?? 0, archive_size: sig.ints(Sig.PayloadSize)[0] ?? 0,
      provide: dependencies(h, Tag.ProvideName, Tag.ProvideFlags, Tag.ProvideVersion),
      require: dependencies(h, Tag.RequireName, Tag.RequireFlags, Tag.RequireVersion),
      conflict: dependencies(h, Tag.ConflictName, Tag.ConflictFlags, Tag.ConflictVersion),
      obsolete: dependencies(h, Tag.ObsoleteName, Tag.ObsoleteFlags, Tag.ObsoleteVersion),
      files,
      changelogs: times.length === authors.length && times.length === texts.length ? times.map((date, i) => ({ author: authors[i], date, text: texts[i] })) : [],
    },
  };
}

/** A signature header of `entries` (region first, then by tag, each value aligned for its type), padded to 8 bytes. */
function writeSignatureHeader(entries: { tag: number; type: number; count: number; data: Buffer }[]): Buffer {
  const sorted = [...entries].sort((a, b) => a.tag - b.tag);
  const store: Buffer[] = [];
  let at = 0;
  const index: Buffer[] = [];
  for (const e of sorted) {
    const align = FIXED[e.type] ?? 1;
    const pad = align > 1 ? (align - (at % align)) % align : 0;
    if (pad) { store.push(Buffer.alloc(pad)); at += pad; }
    const row = Buffer.alloc(16);
    row.writeInt32BE(e.tag, 0);
    row.writeUInt32BE(e.type, 4);
    row.writeInt32BE(at, 8);
    row.writeUInt32BE(e.count, 12);
    index.push(row);
    store.push(e.data);
    at += e.data.length;
  }
  const il = sorted.length + 1;
  const trailer = Buffer.alloc(16);
  trailer.writeInt32BE(Sig.Region, 0);
  trailer.writeUInt32BE(7, 4);
  trailer.writeInt32BE(-16 * il, 8);
  trailer.writeUInt32BE(16, 12);
  const region = Buffer.alloc(16);
  region.writeInt32BE(Sig.Region, 0);
  region.writeUInt32BE(7, 4);
  region.writeInt32BE(at, 8);
  region.writeUInt32BE(16, 12);
  const dl = at + 16;
  const intro = Buffer.concat([HEADER_MAGIC, Buffer.alloc(8)]);
  intro.writeUInt32BE(il, 8);
  intro.writeUInt32BE(dl, 12);
  const bytes = Buffer.concat([intro, region, ...index, ...store, trailer]);
  return Buffer.concat([bytes, Buffer.alloc((8 - (bytes.length % 8)) % 8)]);
}

/**
 * The parts of the package at `file`, signed with `armoredKey`: its lead, a new signature header
 * (the old one's digests and sizes, and an OpenPGP signature of the main header in tag 268; older
 * signatures and the reserved space dropped), and where the unchanged rest starts.
 */
export async function signRpm(file: string, pkg: RpmPackage, armoredKey: string): Promise<{ head: Buffer; restFrom: number }> {
  const fh = await fsp.open(file, 'r');
  try {
    const { size } = await fh.stat();
    const lead = Buffer.alloc(LEAD);
    await fh.read(lead, 0, LEAD, 0);
    const sig = await readHeader(fh, LEAD, size, SIG_LIMITS);
    const main = await readHeader(fh, pkg.mainStart, size, MAIN_LIMITS);
    const signingKeys = await openpgp.readPrivateKey({ armoredKey });
    const signature = await openpgp.sign({
      message: await openpgp.createMessage({ binary: main.bytes }), signingKeys, detached: true, format: 'binary',
      config: { nonDeterministicSignaturesViaNotation: false, preferredHashAlgorithm: openpgp.enums.hash.sha256 },
    });
    const kept = sig.dataEntries().filter(({ entry }) => !OLD_SIGNATURES.has(entry.tag)).map(({ entry, data }) => ({ tag: entry.tag, type: entry.type, count: entry.count, data }));
    const header = writeSignatureHeader([...kept, { tag: Sig.Rsa, type: 7, count: signature.length, data: Buffer.from(signature) }]);
    return { head: Buffer.concat([lead, header]), restFrom: pkg.mainStart };
  } finally {
    await fh.close();
  }
}
