/**
 * Repositories as Gitea's API shows and takes them (structs.Repository, CreateRepoOption,
 * EditRepoOption, SearchResults).
 */
import type { User } from './user';
import type { Team } from './org';

/** The caller's permission on a repository. */
export interface RepoPermissions { admin: boolean; push: boolean; pull: boolean }

/** Settings of the internal issue tracker. */
export interface InternalTracker {
  enable_time_tracker: boolean;
  allow_only_contributors_to_track_time: boolean;
  enable_issue_dependencies: boolean;
}

/** An external issue tracker that replaces the built-in one. */
export interface ExternalTracker {
  external_tracker_url: string;
  /** The issue URL, with {user}, {repo} and {index} placeholders. */
  external_tracker_format?: string;
  /** numeric, alphanumeric or regexp */
  external_tracker_style?: string;
  external_tracker_regexp_pattern?: string;
}

/** A repository. */
export interface Repository {
  id: number;
  owner: User;
  name: string;
  full_name: string;
  description: string;
  empty: boolean;
  private: boolean;
  fork: boolean;
  template: boolean;
  parent?: Repository;
  mirror: boolean;
  size: number;
  language: string;
  languages_url: string;
  html_url: string;
  url: string;
  link: string;
  ssh_url: string;
  clone_url: string;
  original_url: string;
  website: string;
  stars_count: number;
  forks_count: number;
  watchers_count: number;
  open_issues_count: number;
  open_pr_counter: number;
  release_counter: number;
  default_branch: string;
  archived: boolean;
  created_at: string;
  updated_at: string;
  archived_at: string;
  permissions?: RepoPermissions;
  has_code: boolean;
  has_issues: boolean;
  internal_tracker?: InternalTracker;
  external_tracker?: ExternalTracker;
  has_wiki: boolean;
  has_pull_requests: boolean;
  has_projects: boolean;
  projects_mode: string;
  has_releases: boolean;
  has_packages: boolean;
  has_actions: boolean;
  ignore_whitespace_conflicts: boolean;
  allow_merge_commits: boolean;
  allow_rebase: boolean;
  allow_rebase_explicit: boolean;
  allow_squash_merge: boolean;
  allow_fast_forward_only_merge: boolean;
  allow_rebase_update: boolean;
  allow_manual_merge: boolean;
  autodetect_manual_merge: boolean;
  default_delete_branch_after_merge: boolean;
  default_merge_style: string;
  default_allow_maintainer_edit: boolean;
  avatar_url: string;
  internal: boolean;
  mirror_interval: string;
  object_format_name: string;
  mirror_updated: string;
  repo_transfer: RepoTransfer | null;
  topics: string[];
  licenses: string[];
}

/** Options to create a repository. */
export interface CreateRepoOption {
  /** @maxLength 100 */
  name: string;
  /** @maxLength 2048 */
  description?: string;
  private?: boolean;
  template?: boolean;
  auto_init?: boolean;
  /** Comma-separated .gitignore template names. */
  gitignores?: string;
  license?: string;
  readme?: string;
  issue_labels?: string;
  default_branch?: string;
  trust_model?: 'default' | 'collaborator' | 'committer' | 'collaboratorcommitter';
  object_format_name?: 'sha1' | 'sha256';
}

/** Options to edit a repository; omitted fields keep their value. */
export interface EditRepoOption {
  name?: string;
  /** @maxLength 2048 */
  description?: string;
  /** @maxLength 1024 */
  website?: string;
  private?: boolean;
  template?: boolean;
  has_code?: boolean;
  has_issues?: boolean;
  /** Settings of the built-in tracker (with has_issues). */
  internal_tracker?: InternalTracker;
  /** An external tracker to use instead of the built-in one (with has_issues). */
  external_tracker?: ExternalTracker;
  has_wiki?: boolean;
  has_pull_requests?: boolean;
  has_projects?: boolean;
  has_releases?: boolean;
  has_packages?: boolean;
  has_actions?: boolean;
  default_branch?: string;
  archived?: boolean;
  mirror_interval?: string;
  enable_prune?: boolean;
  projects_mode?: string;
  // Merge settings: stored in the pull-request unit's config; ignored while pull requests are disabled.
  ignore_whitespace_conflicts?: boolean;
  allow_merge_commits?: boolean;
  allow_rebase?: boolean;
  allow_rebase_explicit?: boolean;
  allow_squash_merge?: boolean;
  allow_fast_forward_only_merge?: boolean;
  allow_manual_merge?: boolean;
  autodetect_manual_merge?: boolean;
  allow_rebase_update?: boolean;
  default_delete_branch_after_merge?: boolean;
  /** One of merge, rebase, rebase-merge, squash, fast-forward-only. */
  default_merge_style?: string;
  default_allow_maintainer_edit?: boolean;
}

/** A pending transfer of a repository. */
export interface RepoTransfer { doer: User; recipient: User; teams: Team[] }

/** Options to fork a repository; the fork goes to the caller unless an organization is named. */
export interface CreateForkOption {
  /** Organization that will own the fork. */
  organization?: string;
  /** Name of the fork; the parent's name when omitted. */
  name?: string;
}

/** Options to transfer a repository. */
export interface TransferRepoOption {
  new_owner: string;
  /** Teams of a receiving organization that get the repository. */
  team_ids?: number[] | null;
}

/** Options to create a repository from a template; at least one of the template items must be chosen. */
export interface GenerateRepoOption {
  /** The user or organization that will own the new repository. */
  owner: string;
  /** @maxLength 100 */
  name: string;
  /** @maxLength 2048 */
  description?: string;
  private?: boolean;
  default_branch?: string;
  /** Copy the template's files (default branch) as one new commit, with template variables expanded. */
  git_content?: boolean;
  /** Copy the template's topics. */
  topics?: boolean;
  git_hooks?: boolean;
  webhooks?: boolean;
  avatar?: boolean;
  labels?: boolean;
  protected_branch?: boolean;
}

/** The answer of /repos/search. */
export interface SearchResults { ok: boolean; data: Repository[] }
