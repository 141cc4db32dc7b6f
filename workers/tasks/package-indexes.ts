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
 *
 * RPM: per group, `repodata/` (primary, filelists and other metadata, and the signed repomd.xml).
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

/** An `.rpm` as the repository metadata lists it (its metadata as stored, and where the group serves it). */
export interface RpmIndexEntry {
  name: string; arch: string; sha256: string; size: number; href: string;
  versionMetadata: { license?: string; project_url?: string; summary?: string; description?: string };
  fileMetadata: {
    epoch: string; version: string; release: string; vendor: string; group: string; packager: string; source_rpm: string; build_host: string;
    build_time: number; file_time: number; installed_size: number; archive_size: number;
    provide: RpmDependency[]; require: RpmDependency[]; conflict: RpmDependency[]; obsolete: RpmDependency[];
    files: { path: string; type?: string; is_executable: boolean }[]; changelogs: { author: string; date: number; text: string }[];
  };
}
interface RpmDependency { name: string; flags?: string; version?: string; epoch?: string; release?: string }

/** A group's repository metadata: its entries, the time to stamp, and the key that signs repomd.xml. */
export interface RpmIndexInput { entries: RpmIndexEntry[]; timestamp: number; privateKey: string }

/** Text for XML content or an attribute value; code points XML cannot carry become U+FFFD. */
function xml(s: string | number): string {
  const escapes: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;', '\t': '&#x9;', '\n': '&#xA;', '\r': '&#xD;' };
  return String(s)
    .replace(/[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '\uFFFD')
    .replace(/[&<>"'\t\n\r]/g, (c) => escapes[c]);
}

/** An element with attributes (in order, the empty ones left out when `optional`) and content. */
function el(name: string, attrs: [string, string | number | undefined][], content = ''): string {
  const a = attrs.filter(([, v]) => v !== undefined).map(([k, v]) => ` ${k}="${xml(v!)}"`).join('');
  return `<${name}${a}>${content}</${name}>`;
}

const XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n';

/** Is a path one createrepo lists in primary.xml (so that dnf resolves file dependencies without filelists)? */
const primaryFile = (path: string) => path.startsWith('/etc/') || path.includes('bin/') || path === '/usr/lib/sendmail';

/**
 * A group's `repodata/`: primary, filelists and other (each `.xml.gz`), and `repomd.xml` listing
 * their sizes and SHA-256 sums, with its detached signature `repomd.xml.asc`.
 */
export async function rpmIndex(arg: RpmIndexInput): Promise<{ name: string; bytes: Uint8Array }[]> {
  const n = arg.entries.length;
  const version = (f: RpmIndexEntry['fileMetadata']) => el('version', [['epoch', f.epoch], ['ver', f.version], ['rel', f.release]]);
  const deps = (tag: string, list: RpmDependency[]) => el(`rpm:${tag}`, [], list
    // why: createrepo leaves out rpm's own capabilities (rpmlib(...)); no repository provides them.
    .filter((d) => !d.name.startsWith('rpmlib('))
    .map((d) => el('rpm:entry', [['name', d.name], ['flags', d.flags || undefined], ['epoch', d.epoch || undefined], ['ver', d.version || undefined], ['rel', d.release || undefined]])).join(''));
  const fileEl = (f: { path: string; type?: string }) => el('file', [['type', f.type || undefined]], xml(f.path));
  const primary = XML_DECLARATION + el('metadata', [['xmlns', 'http://linux.duke.edu/metadata/common'], ['xmlns:rpm', 'http://linux.duke.edu/metadata/rpm'], ['packages', n]], arg.entries.map((e) => {
    const f = e.fileMetadata;
    const v = e.versionMetadata;
    return el('package', [['type', 'rpm']], [
      el('name', [], xml(e.name)), el('arch', [], xml(e.arch)), version(f), el('checksum', [['type', 'sha256'], ['pkgid', 'YES']], e.sha256),
      el('summary', [], xml(v.summary ?? '')), el('description', [], xml(v.description ?? '')), el('packager', [], xml(f.packager)), el('url', [], xml(v.project_url ?? '')),
      el('time', [['file', f.file_time], ['build', f.build_time]]), el('size', [['package', e.size], ['installed', f.installed_size], ['archive', f.archive_size]]),
      el('location', [['href', e.href]]),
      el('format', [], [
        el('rpm:license', [], xml(v.license ?? '')), el('rpm:vendor', [], xml(f.vendor)), el('rpm:group', [], xml(f.group)), el('rpm:buildhost', [], xml(f.build_host)),
        el('rpm:sourcerpm', [], xml(f.source_rpm)), deps('provides', f.provide), deps('requires', f.require), deps('conflicts', f.conflict), deps('obsoletes', f.obsolete),
        ...f.files.filter((x) => primaryFile(x.path)).map(fileEl),
      ].join('')),
    ].join(''));
  }).join(''));
  const filelists = XML_DECLARATION + el('filelists', [['xmlns', 'http://linux.duke.edu/metadata/filelists'], ['packages', n]], arg.entries.map((e) => el('package', [['pkgid', e.sha256], ['name', e.name], ['arch', e.arch]],
    version(e.fileMetadata) + e.fileMetadata.files.map(fileEl).join(''))).join(''));
  const other = XML_DECLARATION + el('otherdata', [['xmlns', 'http://linux.duke.edu/metadata/other'], ['packages', n]], arg.entries.map((e) => el('package', [['pkgid', e.sha256], ['name', e.name], ['arch', e.arch]],
    version(e.fileMetadata) + e.fileMetadata.changelogs.map((c) => el('changelog', [['author', c.author], ['date', c.date]], xml(c.text))).join(''))).join(''));
  const out: { name: string; bytes: Uint8Array }[] = [];
  const data: string[] = [];
  for (const [type, text] of [['primary', primary], ['filelists', filelists], ['other', other]]) {
    const open = Buffer.from(text);
    const gz = zlib.gzipSync(open, { level: 9 });
    out.push({ name: `${type}.xml.gz`, bytes: gz });
    data.push(el('data', [['type', type]], [
      el('checksum', [['type', 'sha256']], hex('sha256', gz)), el('open-checksum', [['type', 'sha256']], hex('sha256', open)), el('location', [['href', `repodata/${type}.xml.gz`]]),
      el('timestamp', [], String(arg.timestamp)), el('size', [], String(gz.length)), el('open-size', [], String(open.length)),
    ].join('')));
  }
  const repomd = Buffer.from(XML_DECLARATION + el('repomd', [['xmlns', 'http://linux.duke.edu/metadata/repo'], ['xmlns:rpm', 'http://linux.duke.edu/metadata/rpm']], data.join('')));
  const signingKeys = await signingKey(arg.privateKey);
  const asc = await openpgp.sign({ message: await openpgp.createMessage({ binary: repomd }), signingKeys, detached: true, config: { preferredHashAlgorithm: openpgp.enums.hash.sha256 } });
  out.push({ name: 'repomd.xml', bytes: repomd }, { name: 'repomd.xml.asc', bytes: Buffer.from(asc) });
  return out;
}
