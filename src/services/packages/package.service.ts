/**
 * Publishing, reading, linking and deleting package versions, shared by every format (Gitea's
 * services/packages). A publish runs in one transaction, in Gitea's order: the package (made on
 * first use), the version (a second upload of it is 409 unless the format adds files to versions),
 * the count quota, the size quotas, the blob (kept once by content), the file; then the `package`
 * event. Quotas are 403 with Gitea's words, and site administrators are exempt. A refused or
 * failed publish leaves no row, blob or temporary file.
 */
import { systemCtx, withTx, type DbContext } from '../../db';
import { settings, type PackageType } from '../../config';
import { BadRequest, Conflict, Forbidden, NotFound } from '../../errors';
import {
  deleteFileRows, deleteVersionRows, filesOfVersions, findOrInsertBlob, findOrInsertPackage, findPackage, findVersion, insertFile, insertProperties, insertVersion, ownerFileBytes,
  ownerVersionCount, propertiesOf, PropertyRef, removeUnusedPackageRows, setPackageRepo, type PackageFileModel, type PackageModel, type PackageVersionModel,
} from '../../models/package.model';
import { findRepoById, findRepoByOwnerAndName, type RepositoryModel } from '../../models/repository.model';
import { AccessMode, UnitType } from '../../models/perm';
import type { UserModel } from '../../models/user.model';
import { nowUnix } from '../../models/issue.model';
import { notify, type PackageRef } from '../notify/notifier';
import { repoPermission } from '../perm/permission';
import { asUser, type Principal } from '../auth/principal';
import { discardTemp, keepBlob, removeBlobFiles, type TempBlob } from './blob-store';
import { registerCronTask, scheduleCronTask } from '../cron/cron.service';
import { awaitIndexes, indexChanged, indexProperty, type IndexTicket } from './index-state';

/** A file to publish as (part of) a version. */
export interface Publication {
  owner: UserModel; doer: UserModel; type: PackageType; name: string; version: string; semverCompatible: boolean;
  /** The format's metadata of the version (stored as JSON; kept from its first upload). */
  metadata: unknown;
  versionProps?: Record<string, string>;
  file: { name: string; compositeKey?: string; isLead?: boolean; props?: Record<string, string> };
  blob: TempBlob;
  /** Add the file to the version when it exists (CRAN's binaries beside its source) rather than refuse it. */
  addToExisting?: boolean;
}

/** What a publish made. */
export interface Published { pkg: PackageModel; version: PackageVersionModel; file: PackageFileModel; newVersion: boolean }

/** Throw Gitea's quota refusals for `size` more bytes of `type` (and, for a new version, one more version). */
async function checkQuotas(tx: DbContext, p: Publication, newVersion: boolean): Promise<void> {
  if (p.doer.isAdmin) return;
  const q = settings().packages;
  if (newVersion && q.limitTotalOwnerCount > -1 && (await ownerVersionCount(tx, p.owner.id)) > q.limitTotalOwnerCount) {
    throw new Forbidden('maximum allowed package count exceeded');
  }
  const typeLimit = q.limitSize[p.type];
  if (typeLimit > -1 && p.blob.hashes.size > typeLimit) throw new Forbidden('maximum allowed package type size exceeded');
  if (q.limitTotalOwnerSize > -1 && (await ownerFileBytes(tx, p.owner.id)) + p.blob.hashes.size > q.limitTotalOwnerSize) {
    throw new Forbidden('maximum allowed package storage quota exceeded');
  }
}

/** Publish a file (answering once its index, if its format has one, lists it); the temporary blob is gone afterwards, kept or not. */
export async function publishPackageFile(ctx: DbContext, p: Publication): Promise<Published> {
  let stored = false;
  try {
    const done = await withTx(ctx, async (tx) => {
      const { pkg } = await findOrInsertPackage(tx, { ownerId: p.owner.id, type: p.type, name: p.name, semverCompatible: p.semverCompatible });
      let version = await findVersion(tx, pkg.id, p.version);
      if (version && !p.addToExisting) throw new Conflict('package version already exists');
      const made = version ? null : await insertVersion(tx, { packageId: pkg.id, creatorId: p.doer.id, version: p.version, metadataJson: JSON.stringify(p.metadata ?? null) });
      const newVersion = !!made;
      if (made) await insertProperties(tx, PropertyRef.Version, made.id, p.versionProps ?? {});
      // why: another upload made the version just now; a format that adds files to versions adds this one.
      version ??= made ?? (p.addToExisting ? await findVersion(tx, pkg.id, p.version) : null);
      if (!version) throw new Conflict('package version already exists');
      await checkQuotas(tx, p, newVersion);
      const blob = await findOrInsertBlob(tx, p.blob.hashes);
      stored = await keepBlob(p.blob);
      const file = await insertFile(tx, { versionId: version.id, blobId: blob.id, name: p.file.name, compositeKey: p.file.compositeKey ?? '', isLead: p.file.isLead ?? true });
      if (!file) throw new Conflict('package file already exists');
      await insertProperties(tx, PropertyRef.File, file.id, p.file.props ?? {});
      const ticket = await indexChanged(tx, p.owner.id, p.type, p.file.props ?? {});
      if (newVersion) await notify.packageChanged(tx, { doer: p.doer, action: 'created', pkg: await packageRef(tx, p.owner, pkg, version) });
      return { pkg, version, file, newVersion, ticket };
    });
    stored = false;
    const { ticket, ...published } = done;
    await awaitIndexes([ticket]);
    return published;
  } finally {
    // why: a blob file moved into place by a publish that then failed belongs to no row.
    if (stored) await removeBlobFiles([p.blob.hashes.sha256]);
    await discardTemp(p.blob);
  }
}

/** A version with what events and answers name: its owner and linked repository. */
export async function packageRef(ctx: DbContext, owner: UserModel, pkg: PackageModel, version: PackageVersionModel): Promise<PackageRef> {
  return { owner, pkg, version, repo: pkg.repoId ? await findRepoById(ctx, pkg.repoId) : null };
}

/** The version `version` of an owner's package, or 404 (Gitea's words). */
export async function findPackageVersion(ctx: DbContext, owner: UserModel, type: string, name: string, version: string): Promise<{ pkg: PackageModel; version: PackageVersionModel }> {
  const pkg = await findPackage(ctx, owner.id, type, name);
  const v = pkg && !pkg.isInternal ? await findVersion(ctx, pkg.id, version) : null;
  if (!pkg || !v || v.isInternal) throw new NotFound('package does not exist');
  return { pkg, version: v };
}

/** Count the changes to the indexes of `files` (theirs are going). */
async function filesLeaving(tx: DbContext, owner: UserModel, pkg: PackageModel, fileIds: number[]): Promise<(IndexTicket | null)[]> {
  if (!indexProperty(pkg.type)) return [];
  const props = await propertiesOf(tx, PropertyRef.File, fileIds);
  const tickets: (IndexTicket | null)[] = [];
  for (const id of fileIds) tickets.push(await indexChanged(tx, owner.id, pkg.type, props.get(id) ?? {}));
  return tickets;
}

/** Delete a version with its files (their blobs go with the cleanup), announcing it; answers once the indexes that listed it no longer do. */
export async function removePackageVersion(ctx: DbContext, doer: UserModel, owner: UserModel, pkg: PackageModel, version: PackageVersionModel): Promise<void> {
  const tickets = await withTx(ctx, async (tx) => {
    const ref = await packageRef(tx, owner, pkg, version);
    const leaving = await filesLeaving(tx, owner, pkg, (await filesOfVersions(tx, [version.id])).map((f) => f.file.id));
    await deleteVersionRows(tx, version.id);
    await notify.packageChanged(tx, { doer, action: 'deleted', pkg: ref });
    return leaving;
  });
  await awaitIndexes(tickets);
}

/**
 * Delete one file of a version (the Linux formats' own deletes); the version goes with its last
 * file, announced as deleted. Answers once the file's index no longer lists it.
 */
export async function removePackageFile(ctx: DbContext, doer: UserModel, owner: UserModel, pkg: PackageModel, version: PackageVersionModel, fileId: number): Promise<void> {
  const tickets = await withTx(ctx, async (tx) => {
    const leaving = await filesLeaving(tx, owner, pkg, [fileId]);
    await deleteFileRows(tx, [fileId]);
    if ((await filesOfVersions(tx, [version.id])).length === 0) {
      const ref = await packageRef(tx, owner, pkg, version);
      await deleteVersionRows(tx, version.id);
      await notify.packageChanged(tx, { doer, action: 'deleted', pkg: ref });
    }
    return leaving;
  });
  await awaitIndexes(tickets);
}

/** May the caller write the Packages unit of `repo`? why: as Gitea, the user's rights decide (the token's package scope was checked). */
async function writesPackagesOf(ctx: DbContext, p: Principal, repo: RepositoryModel, owner: UserModel): Promise<boolean> {
  return !!p.user && (await repoPermission(ctx, asUser(p.user), repo, owner)).can(UnitType.Packages, AccessMode.Write);
}

/** Link an owner's package to one of the owner's repositories (Gitea's answers: 404, 400 when linked, 403). */
export async function linkPackage(ctx: DbContext, p: Principal, owner: UserModel, type: string, name: string, repoName: string): Promise<void> {
  const pkg = await findPackage(ctx, owner.id, type, name);
  if (!pkg || pkg.isInternal) throw new NotFound('package does not exist');
  const repo = await findRepoByOwnerAndName(ctx, owner.id, repoName);
  if (!repo) throw new NotFound(`repository does not exist [id: 0, uid: ${owner.id}, owner_name: , name: ${repoName}]`);
  if (pkg.repoId) throw new BadRequest('invalid argument');
  if (!(await writesPackagesOf(ctx, p, repo, owner))) throw new Forbidden('permission denied');
  await withTx(ctx, (tx) => setPackageRepo(tx, pkg.id, repo.id));
}

/** Unlink a package from its repository (400 when it is not linked; 403 without write on the repository's packages). */
export async function unlinkPackage(ctx: DbContext, p: Principal, owner: UserModel, type: string, name: string): Promise<void> {
  const pkg = await findPackage(ctx, owner.id, type, name);
  if (!pkg || pkg.isInternal) throw new NotFound('package does not exist');
  if (!pkg.repoId) throw new BadRequest('invalid argument');
  const repo = await findRepoById(ctx, pkg.repoId);
  if (repo && !(await writesPackagesOf(ctx, p, repo, owner))) throw new Forbidden('permission denied');
  await withTx(ctx, (tx) => setPackageRepo(tx, pkg.id, 0));
}

/**
 * The cron task `cleanup_packages`: packages left without versions, and blobs no file uses that
 * are older than [cron.cleanup_packages] OLDER_THAN, with their files. Answers how many blobs went.
 */
export async function cleanupPackages(): Promise<number> {
  const gone = await withTx(systemCtx, (tx) => removeUnusedPackageRows(tx, nowUnix() - settings().cleanupPackages.olderThan));
  await removeBlobFiles(gone);
  return gone.length;
}

/**
 * Register the cleanup as the cron task `cleanup_packages` (so any worker runs it on request) and,
 * with `timer`, start its schedule ([cron.cleanup_packages] ENABLED); `stop` ends it.
 */
export function startPackageCleanup(timer: boolean): { stop(): void } | null {
  const c = settings().cleanupPackages;
  if (!settings().packages.enabled) return null;
  registerCronTask('cleanup_packages', c.schedule * 1000, cleanupPackages);
  return timer && c.enabled ? scheduleCronTask('cleanup_packages') : null;
}
