/** Package versions and files as Gitea's API shows them. */
import type { Package, PackageFile } from '../api/package';
import type { FileRow, PackageModel, PackageVersionModel } from '../models/package.model';
import type { UserModel } from '../models/user.model';
import { toUser, type Viewer } from './user';
import { isoTime } from './time';
import { toRepositoryView, type RepoViewData } from './repo';

/** The web page of a package (`version` given: of that version); name and version lower-cased, as Gitea links them. */
export function packageHtmlUrl(rootUrl: string, ownerName: string, type: string, lowerName: string, lowerVersion?: string): string {
  const base = `${rootUrl}${encodeURIComponent(ownerName)}/-/packages/${type}/${encodeURIComponent(lowerName)}`;
  return lowerVersion === undefined ? base : `${base}/${encodeURIComponent(lowerVersion)}`;
}

/** What a version is shown with: its owner, its creator, and its linked repository as the viewer may see it (else null). */
export interface PackageViewData { pkg: PackageModel; version: PackageVersionModel; owner: UserModel; creator: UserModel; repo: RepoViewData | null }

/** A version of a package. */
export function toPackage(v: PackageViewData, viewer: Viewer | null, rootUrl: string): Package {
  const { pkg, version, owner, creator } = v;
  const repository = v.repo ? toRepositoryView(v.repo, viewer, rootUrl) : null;
  return {
    id: version.id, owner: toUser(owner, viewer, rootUrl), repository, creator: toUser(creator, viewer, rootUrl), type: pkg.type, name: pkg.name,
    version: version.version, html_url: packageHtmlUrl(rootUrl, owner.name, pkg.type, pkg.lowerName, version.lowerVersion),
    created_at: isoTime(new Date(Number(version.createdUnix) * 1000)),
  };
}

/** A file of a version. */
export function toPackageFile(f: FileRow): PackageFile {
  return {
    id: f.file.id, size: Number(f.blob.size), name: f.file.name, md5: f.blob.hashMd5, sha1: f.blob.hashSha1, sha256: f.blob.hashSha256, sha512: f.blob.hashSha512,
  };
}
