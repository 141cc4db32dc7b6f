/**
 * What the package pages read (Gitea's routers/web/user/package.go): an owner's packages as the
 * caller may see them (the registries' rule, 404 below it), the list of packages with their latest
 * versions, one version with its files and properties, and a package's versions. Reads only.
 */
import type { DbContext } from '../../db';
import { NotFound } from '../../errors';
import {
  filesOfVersions, findPackage, listLatestVersions, propertiesOf, PropertyRef, versionsOfPackage, type FileRow, type PackageModel, type PackageVersionModel,
} from '../../models/package.model';
import { AccessMode } from '../../models/perm';
import { findUserByName, UserType, type UserModel } from '../../models/user.model';
import type { Principal } from '../auth/principal';
import { packageAccessMode } from './access';
import { findPackageVersion } from './package.service';
import { packageViews, type PackageView } from './view';

/** The owner named `name` and the caller's mode on its packages; 404 when it is below `need` (as Gitea's pages). */
export async function packageOwner(ctx: DbContext, p: Principal, name: string, need: AccessMode = AccessMode.Read): Promise<{ owner: UserModel; mode: AccessMode }> {
  const owner = await findUserByName(ctx, name);
  if (!owner || (owner.type !== UserType.Individual && owner.type !== UserType.Organization)) throw new NotFound();
  const mode = await packageAccessMode(ctx, p, owner);
  if (mode < need) throw new NotFound();
  return { owner, mode };
}

/** Which packages a list page shows. */
export interface PackageListFilter { type?: string; q?: string; repoId?: number }

/** One page of `owner`'s packages with their latest versions, the total, and whether any exist without the type and name filters. */
export async function latestPackages(ctx: DbContext, p: Principal, owner: UserModel, f: PackageListFilter, limit: number, offset: number): Promise<{ views: PackageView[]; total: number; any: boolean }> {
  const { rows, total } = await listLatestVersions(ctx, { ownerId: owner.id, ...f }, limit, offset);
  // why: the search form shows only when there is something to search (Gitea's HasPackages).
  const any = total > 0 || (!!(f.type || f.q) && (await listLatestVersions(ctx, { ownerId: owner.id, repoId: f.repoId }, 1, 0)).total > 0);
  return { views: await packageViews(ctx, p, owner, rows), total, any };
}

/** A package with its versions, newest first (created time, then id); 404 for a missing or internal package. */
async function packageWithVersions(ctx: DbContext, owner: UserModel, type: string, name: string): Promise<{ pkg: PackageModel; versions: PackageVersionModel[] }> {
  const pkg = await findPackage(ctx, owner.id, type, name);
  if (!pkg || pkg.isInternal) throw new NotFound('package does not exist');
  return { pkg, versions: (await versionsOfPackage(ctx, pkg.id)).reverse() };
}

/** The latest version of a package: the most recent upload (highest id), as Gitea's package page redirects to. */
export async function latestVersionOf(ctx: DbContext, owner: UserModel, type: string, name: string): Promise<{ pkg: PackageModel; version: PackageVersionModel }> {
  const { pkg, versions } = await packageWithVersions(ctx, owner, type, name);
  if (versions.length === 0) throw new NotFound('package does not exist');
  return { pkg, version: versions.reduce((a, b) => (b.id > a.id ? b : a)) };
}

/** One version with what its page shows. */
export interface VersionDetails {
  view: PackageView;
  files: FileRow[];
  /** The version's properties (Go: its go.mod). */
  props: Record<string, string>;
  /** Each file's properties, in the order of `files` (Debian: distribution, component, architecture). */
  fileProps: Record<string, string>[];
  /** The package's versions, newest first. */
  versions: PackageVersionModel[];
}

/** A version of `owner`'s package as `p` sees it (404 when missing). */
export async function versionDetails(ctx: DbContext, p: Principal, owner: UserModel, type: string, name: string, version: string): Promise<VersionDetails> {
  const found = await findPackageVersion(ctx, owner, type, name, version);
  const [view] = await packageViews(ctx, p, owner, [found]);
  const [files, props, { versions }] = await Promise.all([
    filesOfVersions(ctx, [found.version.id]), propertiesOf(ctx, PropertyRef.Version, [found.version.id]), packageWithVersions(ctx, owner, type, name),
  ]);
  const fileProps = await propertiesOf(ctx, PropertyRef.File, files.map((f) => f.file.id));
  return { view, files, props: props.get(found.version.id) ?? {}, fileProps: files.map((f) => fileProps.get(f.file.id) ?? {}), versions };
}

/** How the versions page sorts (Gitea's `sort` values; version order is plain text order, as Gitea's). */
export type VersionSort = 'version_asc' | 'version_desc' | 'created_asc' | 'created_desc';

/** One page of a package's versions whose name contains `q`, in `sort` order, with the total. */
export async function packageVersions(
  ctx: DbContext, p: Principal, owner: UserModel, type: string, name: string, o: { q: string; sort: VersionSort; limit: number; offset: number },
): Promise<{ pkg: PackageModel; views: PackageView[]; total: number }> {
  const { pkg, versions } = await packageWithVersions(ctx, owner, type, name);
  const q = o.q.toLowerCase();
  const matching = versions.filter((v) => v.lowerVersion.includes(q));
  const byVersion = (a: PackageVersionModel, b: PackageVersionModel) => (a.version < b.version ? -1 : a.version > b.version ? 1 : 0);
  const sorted = o.sort === 'version_asc' ? matching.sort(byVersion)
    : o.sort === 'version_desc' ? matching.sort((a, b) => byVersion(b, a))
    : o.sort === 'created_asc' ? matching.reverse() : matching;
  const page = sorted.slice(o.offset, o.offset + o.limit).map((version) => ({ pkg, version }));
  return { pkg, views: await packageViews(ctx, p, owner, page), total: matching.length };
}
