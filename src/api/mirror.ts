/** Migrations and mirrors as Gitea's API takes and shows them (structs.MigrateRepoOptions, PushMirror, CreatePushMirrorOption). */

/** Where a migration comes from, and what it brings. */
export interface MigrateRepoOptions {
  /** The source: an http(s) git URL (a server directory for site administrators with [security] IMPORT_LOCAL_PATHS). */
  clone_addr: string;
  /** Name of the new repository. */
  repo_name: string;
  /** Name of the user or organization who will own it (default: the caller). */
  repo_owner?: string;
  /**
   * deprecated: the owner's id, when repo_owner is not given
   * @isInt
   */
  uid?: number;
  /** `git` (code only, the default) or `gitea` (a Gitea-compatible API beside the code). */
  service?: 'git' | 'github' | 'gitea' | 'gitlab' | 'gogs' | 'onedev' | 'gitbucket' | 'codebase' | 'codecommit';
  auth_username?: string;
  auth_password?: string;
  auth_token?: string;
  aws_access_key_id?: string;
  aws_secret_access_key?: string;
  /** A pull mirror that keeps following the source. */
  mirror?: boolean;
  /** How often a mirror syncs, as a Go duration (`8h`, `30m`; `0` for never on its own). */
  mirror_interval?: string;
  private?: boolean;
  description?: string;
  wiki?: boolean;
  milestones?: boolean;
  labels?: boolean;
  issues?: boolean;
  pull_requests?: boolean;
  releases?: boolean;
  lfs?: boolean;
  lfs_endpoint?: string;
}

/** A push mirror of a repository. */
export interface PushMirror {
  repo_name: string;
  remote_name: string;
  /** The target without its credentials. */
  remote_address: string;
  created: string;
  last_update: string;
  last_error: string;
  interval: string;
  sync_on_commit: boolean;
}

/** A new push mirror. */
export interface CreatePushMirrorOption {
  remote_address?: string;
  remote_username?: string;
  remote_password?: string;
  /** How often it pushes, as a Go duration (`8h`; `0` for only on demand and on commit). */
  interval?: string;
  sync_on_commit?: boolean;
}
