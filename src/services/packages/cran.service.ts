/**
 * The R package registry's answers (Gitea's cran routes): publish a source package (`src`) or a
 * binary for a platform and R version (`bin`), several files under one version; `PACKAGES` and
 * `PACKAGES.gz` of the source tree and of each binary tree (404 when empty, and for any other
 * index name such as `PACKAGES.rds`, which R then skips); downloads by file name, old versions
 * included (`Archive/{name}/...`).
 */
import zlib from 'node:zlib';
import type { DbContext } from '../../db';
import { NotFound } from '../../errors';
import { filesNamed, filesOfVersions, propertiesOf, PropertyRef, versionsOfType } from '../../models/package.model';
import type { UserModel } from '../../models/user.model';
import { TableCache } from '../../models/table-cache';
import { compareRVersions, packagesStanza, readCranPackage, type CranMetadata } from './cran';
import { discardTemp, type StoredFile, type TempBlob } from './blob-store';
import { publishPackageFile } from './package.service';

/** A binary's platform and R version (null: the source tree). */
export interface CranBinary { platform: string; rversion: string }

/** What a read answers: an index, or a stored file. */
export type CranFile = { kind: 'text'; contentType: string; body: string | Buffer } | { kind: 'file'; file: StoredFile };

// why: Gitea's property names, misspelling included, so a database moved between the two reads the same.
const TYPE = 'cran.type';
const PLATFORM = 'cran.platform';
const RVERSION = 'cran.rvserion';

/** Check and publish an uploaded package (`bin` null: a source package). */
export async function publishCran(ctx: DbContext, doer: UserModel, owner: UserModel, bin: CranBinary | null, blob: TempBlob): Promise<void> {
  const pkg = await readCranPackage(blob.file).catch(async (err: unknown) => { await discardTemp(blob); throw err; });
  await publishPackageFile(ctx, {
    owner, doer, type: 'cran', name: pkg.name, version: pkg.version, semverCompatible: false, metadata: pkg.metadata, addToExisting: true,
    file: {
      name: `${pkg.name}_${pkg.version}${pkg.isZip ? '.zip' : '.tar.gz'}`, compositeKey: bin ? `${bin.platform}|${bin.rversion}` : '', isLead: true,
      props: bin ? { [TYPE]: 'binary', [PLATFORM]: bin.platform, [RVERSION]: bin.rversion } : { [TYPE]: 'source' },
    },
    blob,
  });
}

/** Is a file of these properties in the tree asked for? */
function inTree(props: Record<string, string>, bin: CranBinary | null): boolean {
  return bin ? props[TYPE] === 'binary' && props[PLATFORM] === bin.platform && props[RVERSION] === bin.rversion : props[TYPE] === 'source';
}

/** A tree's index, as text and gzip'd; null when the tree is empty. */
type Index = { text: string; gz: Buffer } | null;

// why: R reads the whole index on every install and every available.packages(); it is built once and kept until a package of any owner changes.
const indexes = new TableCache<Index>('cran-indexes', ['package', 'package_version', 'package_file', 'package_blob', 'package_property'], 60_000);

/** Build the index of a tree: per package, its newest version (R's order) with a file in the tree. */
async function buildIndex(ctx: DbContext, owner: UserModel, bin: CranBinary | null): Promise<Index> {
  const versions = await versionsOfType(ctx, owner.id, 'cran');
  const files = await filesOfVersions(ctx, versions.map((v) => v.version.id));
  const props = await propertiesOf(ctx, PropertyRef.File, files.map((f) => f.file.id));
  const md5ByVersion = new Map<number, string>();
  for (const f of files) if (!md5ByVersion.has(f.file.versionId) && inTree(props.get(f.file.id) ?? {}, bin)) md5ByVersion.set(f.file.versionId, f.blob.hashMd5);
  const newest = new Map<number, (typeof versions)[number]>();
  for (const v of versions) {
    if (!md5ByVersion.has(v.version.id)) continue;
    const best = newest.get(v.pkg.id);
    if (!best || compareRVersions(v.version.version, best.version.version) > 0) newest.set(v.pkg.id, v);
  }
  if (newest.size === 0) return null;
  const text = [...newest.values()].sort((a, b) => a.pkg.lowerName.localeCompare(b.pkg.lowerName))
    .map((v) => packagesStanza(v.pkg.name, v.version.version, JSON.parse(v.version.metadataJson) as CranMetadata, md5ByVersion.get(v.version.id)!)).join('\n');
  return { text, gz: zlib.gzipSync(text) };
}

/** `PACKAGES` (or `.gz`) of a tree (404 when it is empty). */
export async function cranIndex(ctx: DbContext, owner: UserModel, bin: CranBinary | null, gz: boolean): Promise<CranFile> {
  const index = await indexes.get(ctx, `${owner.id}/${bin ? `${bin.platform}|${bin.rversion}` : ''}`, () => buildIndex(ctx, owner, bin));
  if (!index) throw new NotFound('');
  return gz ? { kind: 'text', contentType: 'application/x-gzip', body: index.gz } : { kind: 'text', contentType: 'text/plain; charset=utf-8', body: index.text };
}

/** A file of the tree by its name, whatever version it belongs to. */
export async function cranDownload(ctx: DbContext, owner: UserModel, bin: CranBinary | null, name: string): Promise<CranFile> {
  const candidates = await filesNamed(ctx, owner.id, 'cran', name);
  const props = await propertiesOf(ctx, PropertyRef.File, candidates.map((c) => c.file.id));
  const hit = candidates.find((c) => inTree(props.get(c.file.id) ?? {}, bin));
  if (!hit) throw new NotFound('package file does not exist');
  return { kind: 'file', file: { name: hit.file.name, sha256: hit.blob.hashSha256, size: Number(hit.blob.size), createdUnix: Number(hit.file.createdUnix) } };
}
