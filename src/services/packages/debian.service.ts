/**
 * The Debian registry's answers (Gitea's debian routes): publish a `.deb` to a distribution and
 * component (a version may have files in several, and of several architectures), delete one of
 * them, download it from the pool, and build a distribution's indexes (rendered off the event loop
 * by the pool's `debianIndex`, signed with the owner's key).
 */
import { settings } from '../../config';
import type { DbContext } from '../../db';
import { BadRequest, NotFound } from '../../errors';
import { filesOfVersions, findFile, propertiesOf, PropertyRef, versionsOfType, type BlobHashName } from '../../models/package.model';
import type { UserModel } from '../../models/user.model';
import { runTask } from '../../pool';
import { discardTemp, type StoredFile, type TempBlob } from './blob-store';
import { readDebPackage } from './deb';
import { indexFileByHash, readIndexFile, type IndexFile } from './index-store';
import { repositoryPgpKey } from './keys';
import { findPackageVersion, publishPackageFile, removePackageFile } from './package.service';

const DISTRIBUTION = 'debian.distribution';
const COMPONENT = 'debian.component';
const ARCHITECTURE = 'debian.architecture';
const CONTROL = 'debian.control';

// why: a distribution or component becomes a path segment, a composite key (`|`-separated) and a Release line.
const SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._+~-]{0,63}$/;

/** A distribution and component of a path, checked (400 `invalid distribution or component`). */
export function debianPlace(dist: string, component: string): { dist: string; component: string } {
  const d = dist.trim();
  const c = component.trim();
  if (!SEGMENT.test(d) || !SEGMENT.test(c)) throw new BadRequest('invalid distribution or component');
  return { dist: d, component: c };
}

/** Check and publish an uploaded `.deb` to `dist`/`component`; answers once its Packages lists it. */
export async function publishDebian(ctx: DbContext, doer: UserModel, owner: UserModel, dist: string, component: string, blob: TempBlob): Promise<void> {
  const deb = await readDebPackage(blob.file).catch(async (err: unknown) => { await discardTemp(blob); throw err; });
  const metadata = Object.fromEntries(Object.entries({
    maintainer: deb.maintainer, project_url: deb.homepage, description: deb.description, dependencies: deb.dependencies,
  }).filter(([, v]) => v !== ''));
  await publishPackageFile(ctx, {
    owner, doer, type: 'debian', name: deb.name, version: deb.version, semverCompatible: false, metadata, addToExisting: true,
    file: {
      name: `${deb.name}_${deb.version}_${deb.architecture}.deb`, compositeKey: `${dist}|${component}`, isLead: true,
      props: { [DISTRIBUTION]: dist, [COMPONENT]: component, [ARCHITECTURE]: deb.architecture, [CONTROL]: deb.control },
    },
    blob,
  });
}

/** Delete the file of `name` `version` for `arch` from `dist`/`component` (Gitea's 404s); answers once Packages no longer lists it. */
export async function removeDebian(ctx: DbContext, doer: UserModel, owner: UserModel, dist: string, component: string, name: string, version: string, arch: string): Promise<void> {
  const { pkg, version: v } = await findPackageVersion(ctx, owner, 'debian', name, version);
  const f = await findFile(ctx, v.id, `${pkg.name}_${v.version}_${arch}.deb`, `${dist}|${component}`);
  if (!f) throw new NotFound('package file does not exist');
  await removePackageFile(ctx, doer, owner, pkg, v, f.file.id);
}

/** A `.deb` of the pool by its file name `{name}_{version}_{arch}.deb`. */
export async function debianPoolFile(ctx: DbContext, owner: UserModel, dist: string, component: string, file: string): Promise<StoredFile> {
  const m = /^([^_]+)_([^_]+)_([^_]+)\.deb$/.exec(file);
  if (!m) throw new NotFound('package file does not exist');
  const { version } = await findPackageVersion(ctx, owner, 'debian', m[1], m[2]);
  const f = await findFile(ctx, version.id, file, `${dist}|${component}`);
  if (!f) throw new NotFound('package file does not exist');
  return { name: f.file.name, sha256: f.blob.hashSha256, size: Number(f.blob.size), createdUnix: Number(f.file.createdUnix) };
}

/** A distribution's `Release`, `InRelease` or `Release.gpg`. */
export function debianReleaseFile(ctx: DbContext, owner: UserModel, dist: string, name: string): Promise<StoredFile> {
  return readIndexFile(ctx, owner.id, 'debian', name, dist);
}

/** `Packages` (or `.gz`, `.xz`) of a component and architecture (`binary-` before the architecture is optional, as in Gitea). */
export function debianPackagesFile(ctx: DbContext, owner: UserModel, dist: string, component: string, arch: string, name: string): Promise<StoredFile> {
  return readIndexFile(ctx, owner.id, 'debian', name, `${dist}|${component}|${arch.replace(/^binary-/, '')}`);
}

/** An index file of `dist` by hash (`by-hash/{MD5Sum|SHA1|SHA256|SHA512}/{hex}`), current or one generation old; 404 with no body otherwise. */
export async function debianByHash(ctx: DbContext, owner: UserModel, dist: string, alg: string, hash: string): Promise<StoredFile> {
  const a = alg.toLowerCase().replace(/sum$/, '');
  if (!['md5', 'sha1', 'sha256', 'sha512'].includes(a) || !/^[0-9a-fA-F]{32,128}$/.test(hash)) throw new NotFound('');
  const f = await indexFileByHash(ctx, owner.id, 'debian', dist, a as BlobHashName, hash);
  if (!f) throw new NotFound('');
  return f;
}

/**
 * The index files of `dist`: per component and architecture, every version with a file there
 * (by package name, then oldest upload first), and the Release over them; none when it is empty.
 */
export async function buildDebianIndex(ctx: DbContext, owner: UserModel, dist: string): Promise<IndexFile[]> {
  const versions = (await versionsOfType(ctx, owner.id, 'debian')).sort((a, b) => a.pkg.lowerName.localeCompare(b.pkg.lowerName));
  const files = await filesOfVersions(ctx, versions.map((v) => v.version.id));
  const props = await propertiesOf(ctx, PropertyRef.File, files.map((f) => f.file.id));
  const order = new Map(versions.map((v, i) => [v.version.id, i]));
  const entries = files
    .filter((f) => f.file.isLead && props.get(f.file.id)?.[DISTRIBUTION] === dist)
    .sort((a, b) => order.get(a.file.versionId)! - order.get(b.file.versionId)! || a.file.id - b.file.id)
    .map((f) => {
      const p = props.get(f.file.id)!;
      return {
        component: p[COMPONENT], architecture: p[ARCHITECTURE], control: p[CONTROL], filename: `pool/${dist}/${p[COMPONENT]}/${f.file.name}`,
        size: Number(f.blob.size), md5: f.blob.hashMd5, sha1: f.blob.hashSha1, sha256: f.blob.hashSha256, sha512: f.blob.hashSha512,
      };
    });
  if (entries.length === 0) return [];
  const key = await repositoryPgpKey(ctx, owner, 'debian');
  const date = new Date().toUTCString().replace(/GMT$/, 'UTC');
  const out = await runTask('debianIndex', { dist, origin: settings().appName, date, privateKey: key.privateKey, entries });
  return out.map((f) => ({ ...f, bytes: Buffer.from(f.bytes) }));
}
