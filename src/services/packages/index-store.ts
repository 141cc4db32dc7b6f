/**
 * Where the Linux formats' generated indexes live, as in Gitea: files of the owner's internal
 * package `_{type}`, version `_repository`, each with a composite key and properties naming its
 * index. The files of one index (a Debian distribution: every Packages and the Release that lists
 * them) are replaced together in one transaction, so a reader gets all old or all new. A replaced
 * file moves to a second internal version, `_previous`, where only reads by hash find it: a client
 * that fetched the old Release just before a rebuild still gets the files it lists.
 */
import { withTx, type DbContext } from '../../db';
import { NotFound } from '../../errors';
import {
  deleteFileRows, filesOfVersions, filesWithHash, findFile, findOrInsertBlobs, findPackage, findVersion, insertFilesWithProperties, internalVersion, moveFiles,
  propertiesOf, PropertyRef, type BlobHashName, type FileRow,
} from '../../models/package.model';
import { markIndexBuilt, type IndexRef } from '../../models/package-index.model';
import { TableCache } from '../../models/table-cache';
import { hashesOf, keepBytes, removeBlobFiles, type StoredFile } from './blob-store';
import { indexProperty } from './index-state';

/** A generated file of an index. */
export interface IndexFile { name: string; key: string; props: Record<string, string>; bytes: Uint8Array }

const CURRENT = '_repository';
const PREVIOUS = '_previous';
const internalName = (type: string) => `_${type}`;

/** The internal versions of an owner's `type` indexes, made on first use (in their own transaction, so two first builds do not collide). */
async function internalVersions(ctx: DbContext, ownerId: number, type: string): Promise<{ current: number; previous: number }> {
  const pkg = await findPackage(ctx, ownerId, type, internalName(type));
  const [current, previous] = pkg?.isInternal ? await Promise.all([CURRENT, PREVIOUS].map((v) => findVersion(ctx, pkg.id, v))) : [null, null];
  if (current && previous) return { current: current.id, previous: previous.id };
  return withTx(ctx, async (tx) => ({
    current: (await internalVersion(tx, ownerId, type, internalName(type), CURRENT)).id,
    previous: (await internalVersion(tx, ownerId, type, internalName(type), PREVIOUS)).id,
  }));
}

/** A stored index file as a download sends it. */
function stored(f: FileRow): StoredFile {
  return { name: f.file.name, sha256: f.blob.hashSha256, size: Number(f.blob.size), createdUnix: Number(f.file.createdUnix) };
}

/**
 * Make `files` the whole of index `ref` (the files of its key that are not among them go) and
 * record that it reflects `built` changes, in one transaction. A file whose bytes did not change
 * keeps its row, and so its Last-Modified.
 */
export async function storeIndex(ctx: DbContext, ref: IndexRef, files: IndexFile[], built: number): Promise<void> {
  const property = indexProperty(ref.type)!;
  const versions = await internalVersions(ctx, ref.ownerId, ref.type);
  const hashes = files.map((f) => hashesOf(f.bytes));
  const placed: string[] = [];
  try {
    await withTx(ctx, async (tx) => {
      const rows = await filesOfVersions(tx, [versions.current, versions.previous]);
      const props = await propertiesOf(tx, PropertyRef.File, rows.map((r) => r.file.id));
      const inIndex = (r: FileRow) => props.get(r.file.id)?.[property] === ref.key;
      const slot = (name: string, key: string) => `${name.toLowerCase()}\n${key}`;
      const current = new Map(rows.filter((r) => r.file.versionId === versions.current && inIndex(r)).map((r) => [slot(r.file.name, r.file.compositeKey), r]));
      const previous = new Map(rows.filter((r) => r.file.versionId === versions.previous).map((r) => [slot(r.file.name, r.file.compositeKey), r]));
      const changed = files.map((f, i) => ({ f, h: hashes[i], have: current.get(slot(f.name, f.key)) })).filter((c) => c.have?.blob.hashSha256 !== c.h.sha256);
      const written = new Set(files.map((f) => slot(f.name, f.key)));
      const retiring = [...changed.map((c) => c.have).filter((r) => !!r), ...[...current].filter(([k]) => !written.has(k)).map(([, r]) => r)];
      // why: one statement each, whatever the number of files, so a rebuild holds the database briefly.
      await deleteFileRows(tx, retiring.map((r) => previous.get(slot(r.file.name, r.file.compositeKey))?.file.id).filter((id) => id !== undefined));
      await moveFiles(tx, retiring.map((r) => r.file.id), versions.previous);
      const blobs = await findOrInsertBlobs(tx, changed.map((c) => c.h));
      for (const c of changed) if (await keepBytes(c.f.bytes, c.h)) placed.push(c.h.sha256);
      await insertFilesWithProperties(tx, changed.map((c) => ({
        versionId: versions.current, blobId: blobs.get(c.h.sha256)!.id, name: c.f.name, compositeKey: c.f.key, isLead: false, props: c.f.props,
      })));
      await markIndexBuilt(tx, ref, built);
    });
    placed.length = 0;
  } finally {
    // why: a blob file placed by a rebuild that then failed belongs to no row.
    await removeBlobFiles(placed);
  }
}

/** The current internal version of an owner's `type` indexes (null: nothing was ever built). */
async function currentVersion(ctx: DbContext, ownerId: number, type: string): Promise<number | null> {
  const pkg = await findPackage(ctx, ownerId, type, internalName(type));
  const v = pkg?.isInternal ? await findVersion(ctx, pkg.id, CURRENT) : null;
  return v?.id ?? null;
}

// why: apt and dnf read the same few files (by name or by hash) on every update; a write to the package tables clears this in every process.
const indexFiles = new TableCache<StoredFile | null>('package-index-files', ['package', 'package_version', 'package_file', 'package_blob'], 60_000);

/** An index file by name and composite key (404 `package file does not exist`). */
export async function readIndexFile(ctx: DbContext, ownerId: number, type: string, name: string, key: string): Promise<StoredFile> {
  const f = await indexFiles.get(ctx, `${ownerId}\n${type}\n${name.toLowerCase()}\n${key}`, async () => {
    const version = await currentVersion(ctx, ownerId, type);
    const row = version ? await findFile(ctx, version, name, key) : null;
    return row ? stored(row) : null;
  });
  if (!f) throw new NotFound('package file does not exist');
  return f;
}

/**
 * An index file by the hash of its bytes, current or of the generation before, whose composite key
 * starts with `keyPrefix` (Gitea searches every index file of the owner and needs exactly one
 * match; the path's distribution narrows it here). Null when none has it.
 */
export function indexFileByHash(ctx: DbContext, ownerId: number, type: string, keyPrefix: string, alg: BlobHashName, hex: string): Promise<StoredFile | null> {
  return indexFiles.get(ctx, `${ownerId}\n${type}\n${keyPrefix}\n${alg}:${hex.toLowerCase()}`, async () => {
    const pkg = await findPackage(ctx, ownerId, type, internalName(type));
    if (!pkg?.isInternal) return null;
    const versions = (await Promise.all([CURRENT, PREVIOUS].map((v) => findVersion(ctx, pkg.id, v)))).filter((v) => !!v).map((v) => v.id);
    const hit = (await filesWithHash(ctx, versions, alg, hex.toLowerCase())).find((f) => f.file.compositeKey === keyPrefix || f.file.compositeKey.startsWith(`${keyPrefix}|`));
    return hit ? stored(hit) : null;
  });
}
