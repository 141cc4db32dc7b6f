/**
 * Rendering the Linux package registries' indexes off the event loop: the text, its compressed
 * forms and its signatures. The server reads the packages from the database and stores what
 * comes back; nothing here touches either.
 *
 * Debian: per component and architecture, `Packages` (each package's control text followed by
 * where and what its file is), `Packages.gz` and `Packages.xz`; per distribution, `Release`
 * (listing every Packages file with its sizes and hashes), `InRelease` (Release cleartext-signed)
 * and `Release.gpg` (a detached armored signature).
 */
import crypto from 'node:crypto';
import zlib from 'node:zlib';
import { execFileSync } from 'node:child_process';
import * as openpgp from 'openpgp';

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
