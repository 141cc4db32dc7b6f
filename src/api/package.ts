/** Packages as Gitea's API shows them (structs.Package, structs.PackageFile). */
import type { User } from './user';
import type { Repository } from './repo';

/** A package version: `id` is the version's. */
export interface Package {
  /** @isInt */
  id: number;
  owner: User;
  /** The linked repository, when the viewer may see it. */
  repository: Repository | null;
  creator: User;
  type: string;
  name: string;
  version: string;
  html_url: string;
  created_at: string;
}

/** A file of a package version. */
export interface PackageFile {
  /** @isInt */
  id: number;
  /** @isInt */
  size: number;
  name: string;
  md5: string;
  sha1: string;
  sha256: string;
  sha512: string;
}
