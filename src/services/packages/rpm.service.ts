/**
 * The RPM registry's answers (Gitea's rpm routes): publish an `.rpm` to a group (none, `el9`,
 * `rocky/el9`...), signed with the owner's key when asked or by default; download and delete it;
 * the `.repo` file dnf and zypper add; and a group's `repodata/` (rendered off the event loop by the
 * pool's `rpmIndex`, repomd.xml signed).
 */
import fs from 'node:fs';
import { Readable } from 'node:stream';
import { settings } from '../../config';
import type { DbContext } from '../../db';
import { BadRequest, NotFound } from '../../errors';
import { filesOfVersions, findFile, propertiesOf, PropertyRef, versionsOfType } from '../../models/package.model';
import type { UserModel } from '../../models/user.model';
import { runTask } from '../../pool';
import type { RpmIndexEntry } from '../../../workers/tasks/package-indexes';
import { discardTemp, receiveBlob, type StoredFile, type TempBlob } from './blob-store';
import { readIndexFile, type IndexFile } from './index-store';
import { repositoryPgpKey } from './keys';
import { findPackageVersion, publishPackageFile, removePackageFile } from './package.service';
import { readRpmPackage, signRpm, type RpmFileMetadata, type RpmPackage } from './rpm';

const GROUP = 'rpm.group';
const ARCHITECTURE = 'rpm.architecture';
const METADATA = 'rpm.metadata';
const SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
// why: these segments would make a path ambiguous between a group and the routes below it.
const RESERVED = new Set(['repodata', 'package', 'upload']);

/** A group of a path (`/` at its ends trimmed), checked (400 `invalid group`). */
export function rpmGroup(raw: string): string {
  const g = raw.replace(/^\/+|\/+$/g, '');
  if (g === '') return '';
  if (g.length > 200 || !g.split('/').every((s) => SEGMENT.test(s) && !RESERVED.has(s))) throw new BadRequest('invalid group');
  return g;
}

/** The file name a package is stored and served under. */
const fileName = (name: string, version: string, arch: string) => `${name}-${version}.${arch}.rpm`;

/** The path of a package below its group's base URL (what primary.xml's location says). */
const hrefOf = (name: string, version: string, arch: string) => `package/${name}/${version}/${arch}/${fileName(name, version, arch)}`;

/** The package at `blob`, signed when `sign` is set: a new temporary blob (the old one gone). */
async function signed(ctx: DbContext, owner: UserModel, blob: TempBlob, pkg: RpmPackage): Promise<TempBlob> {
  const key = await repositoryPgpKey(ctx, owner, 'rpm');
  const { head, restFrom } = await signRpm(blob.file, pkg, key.privateKey);
  async function* parts() {
    yield head;
    yield* fs.createReadStream(blob.file, { start: restFrom });
  }
  try {
    return await receiveBlob(Readable.from(parts()), -1);
  } finally {
    await discardTemp(blob);
  }
}

/** Check and publish an uploaded `.rpm` to `group`, signed when `sign` (or [packages] DEFAULT_RPM_SIGN_ENABLED) says so; answers once repodata lists it. */
export async function publishRpm(ctx: DbContext, doer: UserModel, owner: UserModel, group: string, blob: TempBlob, sign: boolean): Promise<void> {
  let file = blob;
  let pkg: RpmPackage;
  try {
    pkg = await readRpmPackage(blob.file);
    if (sign || settings().packages.defaultRpmSignEnabled) file = await signed(ctx, owner, blob, pkg);
  } catch (err) {
    await discardTemp(blob);
    throw err;
  }
  await publishPackageFile(ctx, {
    owner, doer, type: 'rpm', name: pkg.name, version: pkg.version, semverCompatible: false, metadata: pkg.versionMetadata, addToExisting: true,
    file: {
      name: fileName(pkg.name, pkg.version, pkg.architecture), compositeKey: group, isLead: true,
      props: { [GROUP]: group, [ARCHITECTURE]: pkg.architecture, [METADATA]: JSON.stringify(pkg.fileMetadata) },
    },
    blob: file,
  });
}

/** The file of `name` `version` for `arch` in `group` (Gitea's 404s), with its package and version. */
async function rpmFile(ctx: DbContext, owner: UserModel, group: string, name: string, version: string, arch: string) {
  const found = await findPackageVersion(ctx, owner, 'rpm', name, version);
  const f = await findFile(ctx, found.version.id, fileName(name, version, arch), group);
  if (!f) throw new NotFound('package file does not exist');
  return { ...found, f };
}

/** Download a package. */
export async function rpmDownload(ctx: DbContext, owner: UserModel, group: string, name: string, version: string, arch: string): Promise<StoredFile> {
  const { f } = await rpmFile(ctx, owner, group, name, version, arch);
  return { name: f.file.name, sha256: f.blob.hashSha256, size: Number(f.blob.size), createdUnix: Number(f.file.createdUnix) };
}

/** Delete a package from `group`; answers once its repodata no longer lists it. */
export async function removeRpm(ctx: DbContext, doer: UserModel, owner: UserModel, group: string, name: string, version: string, arch: string): Promise<void> {
  const { pkg, version: v, f } = await rpmFile(ctx, owner, group, name, version, arch);
  await removePackageFile(ctx, doer, owner, pkg, v, f.file.id);
}

/** A file of a group's `repodata/` (404 `package file does not exist`). */
export function rpmRepodataFile(ctx: DbContext, owner: UserModel, group: string, name: string): Promise<StoredFile> {
  return readIndexFile(ctx, owner.id, 'rpm', name, group);
}

/** The `.repo` file of a group, as Gitea writes it (no newline at its end). */
export function rpmRepoConfig(owner: UserModel, group: string): string {
  const { rootUrl } = settings().server;
  const parts = group ? group.split('/') : [];
  return [
    `[gitea-${[owner.lowerName, ...parts].join('-')}]`,
    `name=${[owner.name, settings().appName, ...parts].join(' - ')}`,
    `baseurl=${rootUrl}api/packages/${owner.name}/rpm${group ? `/${group}` : ''}`,
    'enabled=1',
    'gpgcheck=1',
    `gpgkey=${rootUrl}api/packages/${owner.name}/rpm/repository.key`,
  ].join('\n');
}

/** The repodata of `group`: its packages (exactly this group's, in upload order); none when it is empty. */
export async function buildRpmIndex(ctx: DbContext, owner: UserModel, group: string): Promise<IndexFile[]> {
  const versions = await versionsOfType(ctx, owner.id, 'rpm');
  const byVersion = new Map(versions.map((v) => [v.version.id, v]));
  const files = await filesOfVersions(ctx, versions.map((v) => v.version.id));
  const props = await propertiesOf(ctx, PropertyRef.File, files.map((f) => f.file.id));
  const entries: RpmIndexEntry[] = files.filter((f) => f.file.isLead && props.get(f.file.id)?.[GROUP] === group).map((f) => {
    const v = byVersion.get(f.file.versionId)!;
    const p = props.get(f.file.id)!;
    return {
      name: v.pkg.name, arch: p[ARCHITECTURE], sha256: f.blob.hashSha256, size: Number(f.blob.size), href: hrefOf(v.pkg.name, v.version.version, p[ARCHITECTURE]),
      versionMetadata: JSON.parse(v.version.metadataJson ?? 'null') ?? {}, fileMetadata: JSON.parse(p[METADATA]) as RpmFileMetadata,
    };
  });
  if (entries.length === 0) return [];
  const key = await repositoryPgpKey(ctx, owner, 'rpm');
  const out = await runTask('rpmIndex', { entries, timestamp: Math.floor(Date.now() / 1000), privateKey: key.privateKey });
  return out.map((f) => ({ name: f.name, key: group, props: { [GROUP]: group }, bytes: Buffer.from(f.bytes) }));
}
