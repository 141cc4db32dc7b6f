/**
 * Branches, tags and tag protection as Gitea's API shows and takes them (structs.Branch,
 * PayloadCommit, Tag, CommitMeta, TagProtection and their options).
 */

import type { CommitMeta, PayloadCommitVerification, PayloadUser } from './commit';

export type { CommitMeta, PayloadCommitVerification, PayloadUser } from './commit';

/** A commit as branches and webhooks show it. */
export interface PayloadCommit {
  /** sha1 hash of the commit */
  id: string;
  message: string;
  url: string;
  author: PayloadUser;
  committer: PayloadUser;
  timestamp: string;
  verification: PayloadCommitVerification | null;
  added: string[] | null;
  removed: string[] | null;
  modified: string[] | null;
}

/** A repository branch. */
export interface Branch {
  name: string;
  commit: PayloadCommit;
  protected: boolean;
  required_approvals: number;
  enable_status_check: boolean;
  status_check_contexts: string[];
  user_can_push: boolean;
  user_can_merge: boolean;
  effective_branch_protection_name: string;
}

/** Body of POST /repos/{owner}/{repo}/branches. */
export interface CreateBranchRepoOption {
  /** Name of the branch to create */
  new_branch_name: string;
  /** Deprecated: true. Name of the old branch to create from */
  old_branch_name?: string;
  /** Name of the old branch/tag/commit to create from */
  old_ref_name?: string;
}

/** Body of PATCH /repos/{owner}/{repo}/branches/{branch} (rename). */
export interface UpdateBranchRepoOption {
  /** New branch name */
  name: string;
}

/** A repository tag. */
export interface Tag {
  name: string;
  message: string;
  id: string;
  commit: CommitMeta;
  zipball_url: string;
  tarball_url: string;
}

/** Body of POST /repos/{owner}/{repo}/tags. */
export interface CreateTagOption {
  tag_name: string;
  message?: string;
  /** branch or commit to tag (the default branch when empty) */
  target?: string;
}

/** A tag protection rule. */
export interface TagProtection {
  id: number;
  name_pattern: string;
  whitelist_usernames: string[];
  whitelist_teams: string[];
  created_at: string;
  updated_at: string;
}

/** Body of POST /repos/{owner}/{repo}/tag_protections. */
export interface CreateTagProtectionOption {
  name_pattern?: string;
  whitelist_usernames?: string[];
  whitelist_teams?: string[];
}

/** Body of PATCH /repos/{owner}/{repo}/tag_protections/{id}; omitted fields keep their value. */
export interface EditTagProtectionOption {
  name_pattern?: string;
  whitelist_usernames?: string[];
  whitelist_teams?: string[];
}
