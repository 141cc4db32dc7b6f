/**
 * Packages in Gitea's tables: a package per owner, type and lower-case name (optionally linked to a
 * repository); its versions; a version's files, each pointing at a blob stored once by content;
 * and name/value properties of a version, file or package (ref_type 0, 1, 2). Internal packages
 * (the Linux formats' generated indexes) are never listed.
 */
import { Op, QueryTypes } from 'sequelize';
import { Table, Column, Model, DataType } from 'sequelize-typescript';
import { db, isUniqueViolation, type DbContext } from '../db';
import { readOnlyRow, TableCache } from './table-cache';
import { PackageVersionModel } from './package-version.model';
import { PackageFileModel } from './package-file.model';
import { PackageBlobModel } from './package-blob.model';
import { PackagePropertyModel, PropertyRef } from './package-property.model';

export { PackageVersionModel, PackageFileModel, PackageBlobModel, PackagePropertyModel, PropertyRef };

@Table({ tableName: 'package', underscored: true, timestamps: false })
export class PackageModel extends Model {
  @Column({ type: DataType.INTEGER, primaryKey: true, autoIncrement: true }) declare id: number;
  @Column({ type: DataType.INTEGER, allowNull: false }) declare ownerId: number;
  /** The linked repository (0: none). */
  @Column({ type: DataType.INTEGER, allowNull: false, defaultValue: 0 }) declare repoId: number;
  @Column({ type: DataType.STRING(255), allowNull: false }) declare type: string;
  @Column({ type: DataType.STRING(255), allowNull: false }) declare name: string;
  @Column({ type: DataType.STRING(255), allowNull: false }) declare lowerName: string;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: false }) declare semverCompatible: boolean;
  @Column({ type: DataType.BOOLEAN, allowNull: false, defaultValue: false }) declare isInternal: boolean;
}

const nowUnix = () => Math.floor(Date.now() / 1000);

/** The package of an owner by type and name (any case), internal ones included; or null. */
export function findPackage(ctx: DbContext, ownerId: number, type: string, name: string): Promise<PackageModel | null> {
  return PackageModel.findOne({ where: { ownerId, type, lowerName: name.toLowerCase() }, transaction: ctx.tx });
}

/**
 * Run an insert under a savepoint of ctx's transaction; null when it hit a unique index. why: when
 * two transactions insert the same key at once, PostgreSQL fails the second insert once the first
 * commits, and without the savepoint the second transaction could not go on to read that row.
 */
async function insertUnlessTaken<T>(ctx: DbContext, insert: (tx: DbContext) => Promise<T>): Promise<T | null> {
  try {
    return await db().transaction({ transaction: ctx.tx }, (savepoint) => insert({ ...ctx, tx: savepoint }));
  } catch (err) {
    if (isUniqueViolation(err)) return null;
    throw err;
  }
}

/** The package of an owner by type and name, made when it does not exist yet (answers whether it was made). */
export async function findOrInsertPackage(
  ctx: DbContext, p: { ownerId: number; type: string; name: string; semverCompatible: boolean; isInternal?: boolean },
): Promise<{ pkg: PackageModel; created: boolean }> {
  const found = await findPackage(ctx, p.ownerId, p.type, p.name);
  if (found) return { pkg: found, created: false };
  const made = await insertUnlessTaken(ctx, (tx) => PackageModel.create({ ...p, lowerName: p.name.toLowerCase(), isInternal: !!p.isInternal }, { transaction: tx.tx }));
  return made ? { pkg: made, created: true } : { pkg: (await findPackage(ctx, p.ownerId, p.type, p.name))!, created: false };
}

/** A version of a package by its name (any case), or null. */
export function findVersion(ctx: DbContext, packageId: number, version: string): Promise<PackageVersionModel | null> {
  return PackageVersionModel.findOne({ where: { packageId, lowerVersion: version.toLowerCase() }, transaction: ctx.tx });
}

/** Insert a version; null when the package already has it (in any case). */
export async function insertVersion(
  ctx: DbContext, v: { packageId: number; creatorId: number; version: string; metadataJson: string; isInternal?: boolean },
): Promise<PackageVersionModel | null> {
  return insertUnlessTaken(ctx, (tx) => PackageVersionModel.create({ ...v, lowerVersion: v.version.toLowerCase(), createdUnix: nowUnix(), isInternal: !!v.isInternal }, { transaction: tx.tx }));
}

/** The four hashes and the size of some content. */
export interface BlobHashes { size: number; md5: string; sha1: string; sha256: string; sha512: string }

/** The blob of exactly this content (size and all four hashes), or null. */
export function findBlob(ctx: DbContext, h: BlobHashes): Promise<PackageBlobModel | null> {
  return PackageBlobModel.findOne({ where: { size: h.size, hashMd5: h.md5, hashSha1: h.sha1, hashSha256: h.sha256, hashSha512: h.sha512 }, transaction: ctx.tx });
}

/** The blob row of `h`, inserted when missing (also when another transaction inserts it at the same moment). */
export async function findOrInsertBlob(ctx: DbContext, h: BlobHashes): Promise<PackageBlobModel> {
  return (await findBlob(ctx, h))
    ?? (await insertUnlessTaken(ctx, (tx) => PackageBlobModel.create({ size: h.size, hashMd5: h.md5, hashSha1: h.sha1, hashSha256: h.sha256, hashSha512: h.sha512, createdUnix: nowUnix() }, { transaction: tx.tx })))
    ?? (await findBlob(ctx, h))!;
}

/** Insert a file of a version; null when the version already has a file of that name and key. */
export async function insertFile(
  ctx: DbContext, f: { versionId: number; blobId: number; name: string; compositeKey: string; isLead: boolean },
): Promise<PackageFileModel | null> {
  return insertUnlessTaken(ctx, (tx) => PackageFileModel.create({ ...f, lowerName: f.name.toLowerCase(), createdUnix: nowUnix() }, { transaction: tx.tx }));
}

/** Insert properties of a version, file or package. */
export async function insertProperties(ctx: DbContext, refType: PropertyRef, refId: number, props: Record<string, string>): Promise<void> {
  const rows = Object.entries(props).map(([name, value]) => ({ refType, refId, name, value }));
  if (rows.length) await PackagePropertyModel.bulkCreate(rows, { transaction: ctx.tx });
}

/** The properties of several versions, files or packages, by owner id and name. */
export async function propertiesOf(ctx: DbContext, refType: PropertyRef, refIds: number[]): Promise<Map<number, Record<string, string>>> {
  const out = new Map<number, Record<string, string>>();
  if (refIds.length === 0) return out;
  for (const p of await PackagePropertyModel.findAll({ where: { refType, refId: { [Op.in]: refIds } }, order: [['id', 'ASC']], transaction: ctx.tx })) {
    const props = out.get(p.refId) ?? {};
    props[p.name] = p.value;
    out.set(p.refId, props);
  }
  return out;
}

/** How many (non-internal) versions the owner has. */
export async function ownerVersionCount(ctx: DbContext, ownerId: number): Promise<number> {
  const [row] = await db().query<{ n: number }>(
    'SELECT COUNT(*) AS n FROM package_version v JOIN package p ON p.id = v.package_id WHERE p.owner_id = :ownerId AND v.is_internal = :no',
    { replacements: { ownerId, no: false }, type: QueryTypes.SELECT, transaction: ctx.tx },
  );
  return Number(row.n);
}

/** The bytes of the owner's (non-internal) files, a shared blob counted once per file (as Gitea). */
export async function ownerFileBytes(ctx: DbContext, ownerId: number): Promise<number> {
  const [row] = await db().query<{ n: number | null }>(
    `SELECT SUM(b.size) AS n FROM package_file f JOIN package_blob b ON b.id = f.blob_id JOIN package_version v ON v.id = f.version_id
       JOIN package p ON p.id = v.package_id WHERE p.owner_id = :ownerId AND v.is_internal = :no`,
    { replacements: { ownerId, no: false }, type: QueryTypes.SELECT, transaction: ctx.tx },
  );
  return Number(row.n ?? 0);
}

/** A version with its package. */
export interface VersionRow { pkg: PackageModel; version: PackageVersionModel }

/** Which versions a listing takes: an owner's (every owner's for null: the site administration), of a type, names containing `q`, exactly `name`, linked to one repository. */
export interface VersionFilter { ownerId: number | null; type?: string; q?: string; name?: string; repoId?: number }

function versionWhere(f: VersionFilter): { sql: string; replacements: Record<string, unknown> } {
  const parts = ['v.is_internal = :no', 'p.is_internal = :no'];
  const replacements: Record<string, unknown> = { no: false };
  if (f.ownerId !== null) { parts.push('p.owner_id = :ownerId'); replacements.ownerId = f.ownerId; }
  if (f.type) { parts.push('p.type = :type'); replacements.type = f.type; }
  if (f.name !== undefined) { parts.push('p.lower_name = :name'); replacements.name = f.name.toLowerCase(); }
  if (f.repoId) { parts.push('p.repo_id = :repoId'); replacements.repoId = f.repoId; }
  if (f.q) { parts.push("p.lower_name LIKE :q ESCAPE '\\'"); replacements.q = `%${f.q.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`; }
  return { sql: parts.join(' AND '), replacements };
}

/** One page of the versions `from` selects (a FROM and WHERE over p and v), newest first (created time, then id), with the total. */
async function pageOfVersions(ctx: DbContext, from: string, replacements: Record<string, unknown>, limit: number, offset: number): Promise<{ rows: VersionRow[]; total: number }> {
  const [count] = await db().query<{ n: number }>(`SELECT COUNT(*) AS n ${from}`, { replacements, type: QueryTypes.SELECT, transaction: ctx.tx });
  const ids = await db().query<{ id: number }>(`SELECT v.id AS id ${from} ORDER BY v.created_unix DESC, v.id DESC LIMIT :limit OFFSET :offset`, {
    replacements: { ...replacements, limit, offset }, type: QueryTypes.SELECT, transaction: ctx.tx,
  });
  return { rows: await versionsByIds(ctx, ids.map((r) => Number(r.id))), total: Number(count.n) };
}

/** One page of versions, newest first (created time, then id), with the total. */
export function listVersions(ctx: DbContext, f: VersionFilter, limit: number, offset: number): Promise<{ rows: VersionRow[]; total: number }> {
  const w = versionWhere(f);
  return pageOfVersions(ctx, `FROM package_version v JOIN package p ON p.id = v.package_id WHERE ${w.sql}`, w.replacements, limit, offset);
}

/**
 * One page of packages with their latest versions (the highest id, as Gitea's SearchLatestVersions),
 * newest first, and how many packages match.
 */
export function listLatestVersions(ctx: DbContext, f: VersionFilter, limit: number, offset: number): Promise<{ rows: VersionRow[]; total: number }> {
  const w = versionWhere(f);
  // why: a package without a (non-internal) version is not listed; the join drops it.
  const from = `FROM package p JOIN package_version v ON v.id = (SELECT MAX(x.id) FROM package_version x WHERE x.package_id = p.id AND x.is_internal = :no) WHERE ${w.sql}`;
  return pageOfVersions(ctx, from, w.replacements, limit, offset);
}

/** Versions with their packages, in the order of `ids`. */
export async function versionsByIds(ctx: DbContext, ids: number[]): Promise<VersionRow[]> {
  if (ids.length === 0) return [];
  const versions = await PackageVersionModel.findAll({ where: { id: { [Op.in]: ids } }, transaction: ctx.tx });
  const pkgs = new Map((await PackageModel.findAll({ where: { id: { [Op.in]: [...new Set(versions.map((v) => v.packageId))] } }, transaction: ctx.tx })).map((p) => [p.id, p]));
  const byId = new Map(versions.map((v) => [v.id, v]));
  return ids.map((id) => byId.get(id)).filter((v): v is PackageVersionModel => !!v).map((version) => ({ version, pkg: pkgs.get(version.packageId)! }));
}

/** Every (non-internal) version of a package, oldest first. */
export function versionsOfPackage(ctx: DbContext, packageId: number): Promise<PackageVersionModel[]> {
  return PackageVersionModel.findAll({ where: { packageId, isInternal: false }, order: [['createdUnix', 'ASC'], ['id', 'ASC']], transaction: ctx.tx });
}

/** Every (non-internal) version of an owner's packages of one type, with the package, oldest first. */
export async function versionsOfType(ctx: DbContext, ownerId: number, type: string): Promise<VersionRow[]> {
  const pkgs = await PackageModel.findAll({ where: { ownerId, type, isInternal: false }, transaction: ctx.tx });
  if (pkgs.length === 0) return [];
  const byId = new Map(pkgs.map((p) => [p.id, p]));
  const versions = await PackageVersionModel.findAll({
    where: { packageId: { [Op.in]: pkgs.map((p) => p.id) }, isInternal: false }, order: [['createdUnix', 'ASC'], ['id', 'ASC']], transaction: ctx.tx,
  });
  return versions.map((version) => ({ version, pkg: byId.get(version.packageId)! }));
}

/** A file with its blob. */
export interface FileRow { file: PackageFileModel; blob: PackageBlobModel }

/** The files of versions with their blobs, in the order they were added. */
export async function filesOfVersions(ctx: DbContext, versionIds: number[]): Promise<FileRow[]> {
  if (versionIds.length === 0) return [];
  const files = await PackageFileModel.findAll({ where: { versionId: { [Op.in]: versionIds } }, order: [['id', 'ASC']], transaction: ctx.tx });
  const blobs = new Map((await PackageBlobModel.findAll({ where: { id: { [Op.in]: [...new Set(files.map((f) => f.blobId))] } }, transaction: ctx.tx })).map((b) => [b.id, b]));
  return files.map((file) => ({ file, blob: blobs.get(file.blobId)! }));
}

/** Count a download of a version. */
export async function countDownload(ctx: DbContext, versionId: number): Promise<void> {
  await PackageVersionModel.increment('downloadCount', { by: 1, where: { id: versionId }, transaction: ctx.tx });
}

/** Delete a version with its files and their properties, and its own properties (blobs stay for the cleanup). */
export async function deleteVersionRows(ctx: DbContext, versionId: number): Promise<void> {
  const fileIds = (await PackageFileModel.findAll({ attributes: ['id'], where: { versionId }, transaction: ctx.tx })).map((f) => f.id);
  if (fileIds.length) await PackagePropertyModel.destroy({ where: { refType: PropertyRef.File, refId: { [Op.in]: fileIds } }, transaction: ctx.tx });
  await PackageFileModel.destroy({ where: { versionId }, transaction: ctx.tx });
  await PackagePropertyModel.destroy({ where: { refType: PropertyRef.Version, refId: versionId }, transaction: ctx.tx });
  await PackageVersionModel.destroy({ where: { id: versionId }, transaction: ctx.tx });
}

/** Link a package to a repository (0: unlink). */
export async function setPackageRepo(ctx: DbContext, packageId: number, repoId: number): Promise<void> {
  await PackageModel.update({ repoId }, { where: { id: packageId }, transaction: ctx.tx });
}

/** Unlink every package of a repository (the repository is going). */
export async function unlinkPackagesOfRepo(ctx: DbContext, repoId: number): Promise<void> {
  await PackageModel.update({ repoId: 0 }, { where: { repoId }, transaction: ctx.tx });
}

/** The (non-internal) packages linked to a repository. */
export function packagesOfRepo(ctx: DbContext, repoId: number): Promise<PackageModel[]> {
  return PackageModel.findAll({ where: { repoId, isInternal: false }, order: [['lowerName', 'ASC']], transaction: ctx.tx });
}

/** Does the owner have any (non-internal) version? */
export async function ownerHasPackages(ctx: DbContext, ownerId: number): Promise<boolean> {
  return (await ownerVersionCount(ctx, ownerId)) > 0;
}

/**
 * Remove what no longer serves: packages without versions, and blobs no file uses that were made
 * before `olderThanUnix` (a blob made since may belong to an upload in progress). Answers the
 * removed blobs' sha256, whose stored files the caller deletes after the commit.
 */
export async function removeUnusedPackageRows(ctx: DbContext, olderThanUnix: number): Promise<string[]> {
  await db().query('DELETE FROM package_property WHERE ref_type = :pkg AND ref_id IN (SELECT id FROM package WHERE id NOT IN (SELECT package_id FROM package_version))', {
    replacements: { pkg: PropertyRef.Package }, transaction: ctx.tx,
  });
  await db().query('DELETE FROM package WHERE id NOT IN (SELECT package_id FROM package_version)', { transaction: ctx.tx });
  const unused = await PackageBlobModel.findAll({
    attributes: ['id', 'hashSha256'], transaction: ctx.tx,
    where: { createdUnix: { [Op.lt]: olderThanUnix }, id: { [Op.notIn]: db().literal('(SELECT blob_id FROM package_file)') } },
  });
  if (unused.length) await PackageBlobModel.destroy({ where: { id: { [Op.in]: unused.map((b) => b.id) } }, transaction: ctx.tx });
  return unused.map((b) => b.hashSha256);
}

/** The files of an owner's (non-internal) versions of one type named `name` (any case), newest first, with their blobs and versions. */
export async function filesNamed(ctx: DbContext, ownerId: number, type: string, name: string): Promise<(FileRow & { version: PackageVersionModel })[]> {
  const rows = await db().query<{ id: number }>(
    `SELECT f.id AS id FROM package_file f JOIN package_version v ON v.id = f.version_id JOIN package p ON p.id = v.package_id
      WHERE p.owner_id = :ownerId AND p.type = :type AND f.lower_name = :name AND v.is_internal = :no ORDER BY f.id DESC`,
    { replacements: { ownerId, type, name: name.toLowerCase(), no: false }, type: QueryTypes.SELECT, transaction: ctx.tx },
  );
  if (rows.length === 0) return [];
  const files = await PackageFileModel.findAll({ where: { id: { [Op.in]: rows.map((r) => Number(r.id)) } }, order: [['id', 'DESC']], transaction: ctx.tx });
  const blobs = new Map((await PackageBlobModel.findAll({ where: { id: { [Op.in]: files.map((f) => f.blobId) } }, transaction: ctx.tx })).map((b) => [b.id, b]));
  const versions = new Map((await PackageVersionModel.findAll({ where: { id: { [Op.in]: files.map((f) => f.versionId) } }, transaction: ctx.tx })).map((v) => [v.id, v]));
  return files.map((file) => ({ file, blob: blobs.get(file.blobId)!, version: versions.get(file.versionId)! }));
}

/** A file of a version as a registry serves it. */
export interface SnapshotFile { id: number; name: string; sha256: string; md5: string; size: number; createdUnix: number; props: Record<string, string> }

/** A (non-internal) version of a package with its properties and files, as a registry serves it. */
export interface SnapshotVersion { id: number; version: string; lowerVersion: string; createdUnix: number; metadataJson: string; props: Record<string, string>; files: SnapshotFile[] }

/** A package with every version (oldest upload first), read whole. */
export interface PackageSnapshot { pkg: PackageModel; versions: SnapshotVersion[] }

// why: a client installing from a registry asks for a package's list, then each version's documents and file, in quick succession; one read serves them all.
const snapshots = new TableCache<PackageSnapshot | null>('package-snapshots', ['package', 'package_version', 'package_file', 'package_blob', 'package_property']);

/** An owner's package of `type` named `name` (any case) with all its versions, properties and files; null when it has none. */
export function packageSnapshot(ctx: DbContext, ownerId: number, type: string, name: string): Promise<PackageSnapshot | null> {
  return snapshots.get(ctx, `${ownerId}/${type}/${name.toLowerCase()}`, async () => {
    const pkg = await findPackage(ctx, ownerId, type, name);
    if (!pkg || pkg.isInternal) return null;
    const versions = await versionsOfPackage(ctx, pkg.id);
    if (versions.length === 0) return null;
    const files = await filesOfVersions(ctx, versions.map((v) => v.id));
    const [vProps, fProps] = await Promise.all([propertiesOf(ctx, PropertyRef.Version, versions.map((v) => v.id)), propertiesOf(ctx, PropertyRef.File, files.map((f) => f.file.id))]);
    return readOnlyRow({
      pkg: readOnlyRow(pkg),
      versions: versions.map((v) => ({
        id: v.id, version: v.version, lowerVersion: v.lowerVersion, createdUnix: Number(v.createdUnix), metadataJson: v.metadataJson, props: vProps.get(v.id) ?? {},
        files: files.filter((f) => f.file.versionId === v.id).map((f) => ({
          id: f.file.id, name: f.file.name, sha256: f.blob.hashSha256, md5: f.blob.hashMd5, size: Number(f.blob.size), createdUnix: Number(f.file.createdUnix), props: fProps.get(f.file.id) ?? {},
        })),
      })),
    });
  });
}

/**
 * The internal version `version` of an owner's internal package `name` (the Linux formats keep their
 * generated indexes as its files), made on first use.
 */
export async function internalVersion(ctx: DbContext, ownerId: number, type: string, name: string, version: string): Promise<PackageVersionModel> {
  const { pkg } = await findOrInsertPackage(ctx, { ownerId, type, name, semverCompatible: false, isInternal: true });
  return (await findVersion(ctx, pkg.id, version))
    ?? (await insertVersion(ctx, { packageId: pkg.id, creatorId: ownerId, version, metadataJson: 'null', isInternal: true }))
    ?? (await findVersion(ctx, pkg.id, version))!;
}

/** The file of a version by name (any case) and composite key, with its blob; or null. */
export async function findFile(ctx: DbContext, versionId: number, name: string, compositeKey: string): Promise<FileRow | null> {
  const file = await PackageFileModel.findOne({ where: { versionId, lowerName: name.toLowerCase(), compositeKey }, transaction: ctx.tx });
  const blob = file && (await PackageBlobModel.findByPk(file.blobId, { transaction: ctx.tx }));
  return file && blob ? { file, blob } : null;
}

/** The hash columns of package_blob by algorithm. */
export type BlobHashName = 'md5' | 'sha1' | 'sha256' | 'sha512';

/** The files of some versions whose content has hash `hex` (lower case) by `alg`, with their blobs. */
export async function filesWithHash(ctx: DbContext, versionIds: number[], alg: BlobHashName, hex: string): Promise<FileRow[]> {
  if (versionIds.length === 0) return [];
  const column = { md5: 'hashMd5', sha1: 'hashSha1', sha256: 'hashSha256', sha512: 'hashSha512' }[alg];
  const blobs = await PackageBlobModel.findAll({ where: { [column]: hex }, transaction: ctx.tx });
  if (blobs.length === 0) return [];
  const files = await PackageFileModel.findAll({ where: { versionId: { [Op.in]: versionIds }, blobId: { [Op.in]: blobs.map((b) => b.id) } }, transaction: ctx.tx });
  return files.map((file) => ({ file, blob: blobs.find((b) => b.id === file.blobId)! }));
}

/** Delete files with their properties (their blobs stay for the cleanup). */
export async function deleteFileRows(ctx: DbContext, fileIds: number[]): Promise<void> {
  if (fileIds.length === 0) return;
  await PackagePropertyModel.destroy({ where: { refType: PropertyRef.File, refId: { [Op.in]: fileIds } }, transaction: ctx.tx });
  await PackageFileModel.destroy({ where: { id: { [Op.in]: fileIds } }, transaction: ctx.tx });
}

/** Move files, properties and all, to another version. */
export async function moveFiles(ctx: DbContext, fileIds: number[], versionId: number): Promise<void> {
  if (fileIds.length) await PackageFileModel.update({ versionId }, { where: { id: { [Op.in]: fileIds } }, transaction: ctx.tx });
}

/** The blob rows of several contents, inserted when missing (in one statement when none races), by sha256. */
export async function findOrInsertBlobs(ctx: DbContext, hs: BlobHashes[]): Promise<Map<string, PackageBlobModel>> {
  const have = async () => new Map((await PackageBlobModel.findAll({ where: { hashSha256: { [Op.in]: hs.map((h) => h.sha256) } }, transaction: ctx.tx })).map((b) => [b.hashSha256, b]));
  const found = await have();
  const missing = [...new Map(hs.filter((h) => !found.has(h.sha256)).map((h) => [h.sha256, h])).values()];
  if (missing.length === 0) return found;
  const rows = missing.map((h) => ({ size: h.size, hashMd5: h.md5, hashSha1: h.sha1, hashSha256: h.sha256, hashSha512: h.sha512, createdUnix: nowUnix() }));
  if (await insertUnlessTaken(ctx, (tx) => PackageBlobModel.bulkCreate(rows, { transaction: tx.tx }))) return have();
  // why: another transaction inserted one of them just now; each is inserted alone.
  for (const h of missing) await findOrInsertBlob(ctx, h);
  return have();
}

/** Insert files of versions (none may exist yet), with their properties; answers them in the order given. */
export async function insertFilesWithProperties(
  ctx: DbContext, files: { versionId: number; blobId: number; name: string; compositeKey: string; isLead: boolean; props: Record<string, string> }[],
): Promise<PackageFileModel[]> {
  if (files.length === 0) return [];
  const made = await PackageFileModel.bulkCreate(files.map(({ props: _props, ...f }) => ({ ...f, lowerName: f.name.toLowerCase(), createdUnix: nowUnix() })), { transaction: ctx.tx, returning: true });
  const props = made.flatMap((file, i) => Object.entries(files[i].props).map(([name, value]) => ({ refType: PropertyRef.File, refId: file.id, name, value })));
  if (props.length) await PackagePropertyModel.bulkCreate(props, { transaction: ctx.tx });
  return made;
}
