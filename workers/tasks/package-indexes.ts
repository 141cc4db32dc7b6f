/**
 * Rendering the Linux package registries' indexes off the event loop: the text, its compressed
 * forms and its signatures. The server reads the packages from the database and stores what
 * comes back; nothing here touches either.
 *
 * Debian: per component and architecture, `Packages` (each package's control text followed by
 * where and what its file is), `Packages.gz` and `Packages.xz`; per distribution, `Release`
 * (listing every Packages file with its sizes and hashes), `InRelease` (Release cleartext-signed)
 * and `Release.gpg` (a detached armored signature).
 *
 * Alpine: per branch, repository and architecture, `APKINDEX.tar.gz`, signed for apk.
 */
import crypto from 'node:crypto';
import zlib from 'node:zlib';
import { execFileSync } from 'node:child_process';
import * as openpgp from 'openpgp';
import tar from 'tar-stream';

/** A generated file: its name, composite key and properties as stored, and its bytes. */
export interface IndexOutput { name: string; key: string; props: Record<string, string>; bytes: Uint8Array }

/** A `.deb` as Packages lists it. */
export interface DebianEntry {
  component: string; architecture: string; control: string;
  /** Its path under the repository root (`pool/{dist}/{component}/{file}`). */
  filename: string;
  size: number; md5: string; sha1: string; sha256: string; sha512: string;
}

/** What a Debian distribution's indexes are made of (entries in Packages order). */
export interface DebianIndexInput { dist: string; origin: string; date: string; privateKey: string; entries: DebianEntry[] }

const keys = new Map<string, openpgp.PrivateKey>();

/** The parsed signing key (kept: an owner's key is read once per thread). */
async function signingKey(armoredKey: string): Promise<openpgp.PrivateKey> {
  let key = keys.get(armoredKey);
  if (!key) {
    key = await openpgp.readPrivateKey({ armoredKey });
    if (keys.size >= 64) keys.clear();
    keys.set(armoredKey, key);
  }
  return key;
}

const hex = (alg: string, b: Uint8Array) => crypto.createHash(alg).update(b).digest('hex');

/** `bytes` compressed by the xz program (as Debian's archive tools do). */
function xz(bytes: Uint8Array): Buffer {
  return execFileSync('xz', ['--compress', '--stdout', '--quiet', '-6'], { input: bytes, maxBuffer: 1024 * 1024 * 1024 });
}

/** A distribution's index files. */
export async function debianIndex(arg: DebianIndexInput): Promise<IndexOutput[]> {
  const groups = new Map<string, { component: string; architecture: string; stanzas: string[] }>();
  for (const e of arg.entries) {
    const k = `${e.component}|${e.architecture}`;
    const g = groups.get(k) ?? { component: e.component, architecture: e.architecture, stanzas: [] };
    g.stanzas.push(`${e.control}\nFilename: ${e.filename}\nSize: ${e.size}\nMD5sum: ${e.md5}\nSHA1: ${e.sha1}\nSHA256: ${e.sha256}\nSHA512: ${e.sha512}\n`);
    groups.set(k, g);
  }
  if (groups.size === 0) return [];
  const out: IndexOutput[] = [];
  for (const g of groups.values()) {
    const props = { 'debian.repository.include_in_release': '', 'debian.distribution': arg.dist, 'debian.component': g.component, 'debian.architecture': g.architecture };
    const text = Buffer.from(g.stanzas.join('\n'));
    const key = `${arg.dist}|${g.component}|${g.architecture}`;
    out.push({ name: 'Packages', key, props, bytes: text }, { name: 'Packages.gz', key, props, bytes: zlib.gzipSync(text, { level: 9 }) }, { name: 'Packages.xz', key, props, bytes: xz(text) });
  }
  const sorted = (xs: Iterable<string>) => [...new Set(xs)].sort();
  const lines = [
    `Origin: ${arg.origin}`, `Label: ${arg.origin}`, `Suite: ${arg.dist}`, `Codename: ${arg.dist}`,
    `Components: ${sorted([...groups.values()].map((g) => g.component)).join(' ')}`,
    `Architectures: ${sorted([...groups.values()].map((g) => g.architecture)).join(' ')}`,
    `Date: ${arg.date}`, 'Acquire-By-Hash: yes',
  ];
  for (const [field, alg] of [['MD5Sum', 'md5'], ['SHA1', 'sha1'], ['SHA256', 'sha256'], ['SHA512', 'sha512']]) {
    lines.push(`${field}:`);
    for (const f of out) {
      const [, component, architecture] = f.key.split('|');
      lines.push(` ${hex(alg, f.bytes)} ${f.bytes.length} ${component}/binary-${architecture}/${f.name}`);
    }
  }
  const release = `${lines.join('\n')}\n`;
  const signingKeys = await signingKey(arg.privateKey);
  const config = { preferredHashAlgorithm: openpgp.enums.hash.sha256 };
  // why: as `gpg --clearsign` writes it: the newline before the signature ends the text's last line
  // (it is not signed twice), and lines end in LF (OpenPGP.js writes CRLF; both sign the same canonical text).
  const inRelease = (await openpgp.sign({ message: await openpgp.createCleartextMessage({ text: release.slice(0, -1) }), signingKeys, config })).replace(/\r\n/g, '\n');
  const detached = await openpgp.sign({ message: await openpgp.createMessage({ binary: Buffer.from(release) }), signingKeys, detached: true, config });
  const props = { 'debian.distribution': arg.dist };
  out.push(
    { name: 'Release', key: arg.dist, props, bytes: Buffer.from(release) },
    { name: 'Release.gpg', key: arg.dist, props, bytes: Buffer.from(detached) },
    { name: 'InRelease', key: arg.dist, props, bytes: Buffer.from(inRelease) },
  );
  return out;
}

/** An `.apk` as APKINDEX lists it (its metadata as stored; `architecture`: of the index it is listed in). */
export interface AlpineEntry {
  name: string; version: string; size: number;
  versionMetadata: { description?: string; license?: string; project_url?: string; maintainer?: string };
  fileMetadata: {
    checksum: string; size?: number; origin?: string; build_date?: number; commit_hash?: string; dependencies?: string[]; provides?: string[];
    install_if?: string; provider_priority?: number;
  };
}

/** One index of a branch: its repository and architecture, and its packages in order. */
export interface AlpineIndexInput { branch: string; repository: string; architecture: string; entries: AlpineEntry[]; privateKey: string; keyName: string }

/** The bytes of a tar holding one file (ustar, root, mode 0600, time 0); `segment`: without the end-of-archive blocks. */
function tarOf(name: string, body: Buffer, segment: boolean): Promise<Buffer> {
  const pack = tar.pack();
  pack.entry({ name, size: body.length, mode: 0o600, uid: 0, gid: 0, mtime: new Date(0), type: 'file' }, body);
  pack.finalize();
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    pack.on('data', (c: unknown) => parts.push(c as Buffer));
    pack.on('error', reject);
    pack.on('end', () => {
      const all = Buffer.concat(parts);
      resolve(segment ? all.subarray(0, all.length - 1024) : all);
    });
  });
}

/**
 * `APKINDEX.tar.gz` of one repository and architecture: the index text in a tar, gzip'd; before
 * it, a gzip'd tar segment whose one entry `.SIGN.RSA.{key name}` holds the RSA SHA-1 signature of
 * that compressed member, which apk checks against `/etc/apk/keys/{key name}`.
 */
export async function alpineIndex(arg: AlpineIndexInput): Promise<Uint8Array> {
  const blocks = arg.entries.map((e) => {
    const v = e.versionMetadata;
    const f = e.fileMetadata;
    const lines = [`C:${f.checksum}`, `P:${e.name}`, `V:${e.version}`, `A:${arg.architecture}`];
    if (v.description) lines.push(`T:${v.description}`);
    if (v.project_url) lines.push(`U:${v.project_url}`);
    if (v.license) lines.push(`L:${v.license}`);
    lines.push(`S:${e.size}`, `I:${f.size ?? 0}`, `o:${f.origin ?? ''}`, `m:${v.maintainer ?? ''}`, `t:${f.build_date ?? 0}`);
    if (f.commit_hash) lines.push(`c:${f.commit_hash}`);
    if (f.dependencies?.length) lines.push(`D:${f.dependencies.join(' ')}`);
    if (f.provides?.length) lines.push(`p:${f.provides.join(' ')}`);
    if (f.install_if) lines.push(`i:${f.install_if}`);
    if (f.provider_priority) lines.push(`k:${f.provider_priority}`);
    return `${lines.join('\n')}\n\n`;
  });
  const index = zlib.gzipSync(await tarOf('APKINDEX', Buffer.from(blocks.join('')), false), { level: 9 });
  const signature = crypto.sign('sha1', index, arg.privateKey);
  const signed = zlib.gzipSync(await tarOf(`.SIGN.RSA.${arg.keyName}`, signature, true), { level: 9 });
  return Buffer.concat([signed, index]);
}
