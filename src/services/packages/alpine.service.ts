/**
 * The Alpine registry's answers (Gitea's alpine routes): publish an `.apk` to a branch and
 * repository (one version may be in several), download and delete it by file name, and build a
 * branch's signed `APKINDEX.tar.gz` files (rendered off the event loop by the pool's
 * `alpineIndex`). A `noarch` package is listed in every architecture's index of its repository,
 * and both its download and an architecture without an index of its own fall back to `noarch`.
 */
import type { DbContext } from '../../db';
import { BadRequest, NotFound } from '../../errors';
import { filesNamed, filesOfVersions, propertiesOf, PropertyRef, versionsOfType } from '../../models/package.model';
import type { UserModel } from '../../models/user.model';
import { runTask } from '../../pool';
import type { AlpineEntry } from '../../../workers/tasks/package-indexes';
import { readApkPackage, type ApkPackage } from './apk';
import { discardTemp, type StoredFile, type TempBlob } from './blob-store';
import { readIndexFile, type IndexFile } from './index-store';
import { alpineKey, alpineKeyName } from './keys';
import { findPackageVersion, publishPackageFile, removePackageFile } from './package.service';

const BRANCH = 'alpine.branch';
const REPOSITORY = 'alpine.repository';
const ARCHITECTURE = 'alpine.architecture';
const METADATA = 'alpine.metadata';
const NOARCH = 'noarch';
const INDEX = 'APKINDEX.tar.gz';

// why: a branch or repository becomes a path segment and a part of a `|`-separated composite key.
const SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._+~-]{0,63}$/;

/** A branch and repository of a path, checked (400 `invalid branch or repository`). */
export function alpinePlace(branch: string, repository: string): { branch: string; repository: string } {
  const b = branch.trim();
  const r = repository.trim();
  if (!SEGMENT.test(b) || !SEGMENT.test(r)) throw new BadRequest('invalid branch or repository');
  return { branch: b, repository: r };
}

/** Check and publish an uploaded `.apk` to `branch`/`repository`; answers once its index lists it. */
export async function publishAlpine(ctx: DbContext, doer: UserModel, owner: UserModel, branch: string, repository: string, blob: TempBlob): Promise<void> {
  const apk = await readApkPackage(blob.file).catch(async (err: unknown) => { await discardTemp(blob); throw err; });
  await publishPackageFile(ctx, {
    owner, doer, type: 'alpine', name: apk.name, version: apk.version, semverCompatible: false, metadata: apk.versionMetadata, addToExisting: true,
    file: {
      name: `${apk.name}-${apk.version}.apk`, compositeKey: `${branch}|${repository}|${apk.architecture}`, isLead: true,
      props: { [BRANCH]: branch, [REPOSITORY]: repository, [ARCHITECTURE]: apk.architecture, [METADATA]: JSON.stringify(apk.fileMetadata) },
    },
    blob,
  });
}

/** The owner's `.apk` named `file` (any case) in `branch`/`repository`/`arch`, with its version; null when there is none. */
async function apkFile(ctx: DbContext, owner: UserModel, branch: string, repository: string, arch: string, file: string) {
  return (await filesNamed(ctx, owner.id, 'alpine', file)).find((f) => f.file.compositeKey === `${branch}|${repository}|${arch}`) ?? null;
}

/** Download an `.apk` (one of `noarch` answers for any architecture); 404 with no body otherwise. */
export async function alpineDownload(ctx: DbContext, owner: UserModel, branch: string, repository: string, arch: string, file: string): Promise<StoredFile> {
  const f = (await apkFile(ctx, owner, branch, repository, arch, file)) ?? (arch !== NOARCH ? await apkFile(ctx, owner, branch, repository, NOARCH, file) : null);
  if (!f) throw new NotFound('');
  return { name: f.file.name, sha256: f.blob.hashSha256, size: Number(f.blob.size), createdUnix: Number(f.file.createdUnix) };
}

/** Delete an `.apk` from `branch`/`repository`/`arch` (no `noarch` fallback); answers once its index no longer lists it. */
export async function removeAlpine(ctx: DbContext, doer: UserModel, owner: UserModel, branch: string, repository: string, arch: string, file: string): Promise<void> {
  const f = await apkFile(ctx, owner, branch, repository, arch, file);
  const suffix = f ? `-${f.version.version}.apk` : '';
  if (!f || !f.file.name.endsWith(suffix)) throw new NotFound('');
  const { pkg, version } = await findPackageVersion(ctx, owner, 'alpine', f.file.name.slice(0, -suffix.length), f.version.version);
  await removePackageFile(ctx, doer, owner, pkg, version, f.file.id);
}

/** `APKINDEX.tar.gz` of an architecture, or of `noarch` when it has none of its own. */
export async function alpineIndexFile(ctx: DbContext, owner: UserModel, branch: string, repository: string, arch: string): Promise<StoredFile> {
  try {
    return await readIndexFile(ctx, owner.id, 'alpine', INDEX, `${branch}|${repository}|${arch}`);
  } catch (err) {
    if (!(err instanceof NotFound) || arch === NOARCH) throw err;
    return readIndexFile(ctx, owner.id, 'alpine', INDEX, `${branch}|${repository}|${NOARCH}`);
  }
}

/**
 * The index files of `branch`: per repository, one for each architecture it has packages of (the
 * `noarch` ones listed in each), and one of `noarch` alone when it has any.
 */
export async function buildAlpineIndex(ctx: DbContext, owner: UserModel, branch: string): Promise<IndexFile[]> {
  const versions = await versionsOfType(ctx, owner.id, 'alpine');
  const byVersion = new Map(versions.map((v) => [v.version.id, v]));
  const files = await filesOfVersions(ctx, versions.map((v) => v.version.id));
  const props = await propertiesOf(ctx, PropertyRef.File, files.map((f) => f.file.id));
  const repos = new Map<string, Map<string, AlpineEntry[]>>();
  for (const f of files) {
    const p = props.get(f.file.id) ?? {};
    if (!f.file.isLead || p[BRANCH] !== branch) continue;
    const v = byVersion.get(f.file.versionId)!;
    const list = repos.get(p[REPOSITORY]) ?? new Map();
    repos.set(p[REPOSITORY], list);
    const entries = list.get(p[ARCHITECTURE]) ?? [];
    list.set(p[ARCHITECTURE], entries);
    entries.push({
      name: v.pkg.name, version: v.version.version, size: Number(f.blob.size),
      versionMetadata: JSON.parse(v.version.metadataJson ?? 'null') ?? {}, fileMetadata: JSON.parse(p[METADATA] ?? '{}') as ApkPackage['fileMetadata'],
    });
  }
  if (repos.size === 0) return [];
  const key = await alpineKey(ctx, owner);
  const keyName = alpineKeyName(owner, key.publicKey);
  const out: IndexFile[] = [];
  for (const [repository, byArch] of repos) {
    const noarch = byArch.get(NOARCH) ?? [];
    for (const [arch, own] of byArch) {
      const entries = arch === NOARCH ? own : [...own, ...noarch];
      const bytes = await runTask('alpineIndex', { branch, repository, architecture: arch, entries, privateKey: key.privateKey, keyName });
      out.push({ name: INDEX, key: `${branch}|${repository}|${arch}`, props: { [BRANCH]: branch, [REPOSITORY]: repository, [ARCHITECTURE]: arch }, bytes: Buffer.from(bytes) });
    }
  }
  return out;
}
