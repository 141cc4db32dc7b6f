/**
 * Pull requests as Gitea's API shows them (structs.PullRequest, PRBranchInfo and their options),
 * field for field.
 */
import type { User } from './user';
import type { Team } from './org';
import type { Repository } from './repo';
import type { Label, Milestone } from './issue';

/** One side of a pull request: the branch, its commit and repository. */
export interface PRBranchInfo { label: string; ref: string; sha: string; repo_id: number; repo: Repository | null }

/** A pull request. */
export interface PullRequest {
  id: number; url: string; number: number; user: User; title: string; body: string; labels: Label[]; milestone: Milestone | null;
  assignee: User | null; assignees: User[] | null; requested_reviewers: User[] | null; requested_reviewers_teams: Team[] | null;
  state: 'open' | 'closed'; draft: boolean; is_locked: boolean; comments: number; review_comments?: number;
  additions?: number; deletions?: number; changed_files?: number;
  html_url: string; diff_url: string; patch_url: string; mergeable: boolean; merged: boolean; merged_at: string | null;
  merge_commit_sha: string | null; merged_by: User | null; allow_maintainer_edit: boolean;
  base: PRBranchInfo; head: PRBranchInfo; merge_base: string; due_date: string | null;
  created_at: string; updated_at: string; closed_at: string | null; pin_order: number;
}

/** The body of `POST /repos/{owner}/{repo}/pulls`. */
export interface CreatePullRequestOption {
  /** `branch` of this repository, or `owner:branch` of a fork (or of the parent). */
  head?: string;
  base?: string;
  title?: string;
  body?: string;
  assignee?: string;
  assignees?: string[];
  /** @isInt */
  milestone?: number;
  labels?: number[];
  due_date?: string;
  reviewers?: string[];
  team_reviewers?: string[];
}

/** The body of `POST /repos/{owner}/{repo}/pulls/{index}/merge` (Gitea's MergePullRequestForm). */
export interface MergePullRequestOption {
  Do: 'merge' | 'rebase' | 'rebase-merge' | 'squash' | 'fast-forward-only' | 'manually-merged';
  /** The commit a manual merge names (full id, on the base branch). */
  MergeCommitID?: string;
  MergeMessageField?: string;
  MergeTitleField?: string;
  delete_branch_after_merge?: boolean;
  /** Repository admins: merge although branch protection says the pull request is not ready. */
  force_merge?: boolean;
  /** Refuse (409) when the head is no longer at this commit. */
  head_commit_id?: string;
  merge_when_checks_succeed?: boolean;
}

/** A file a pull request changes (`/pulls/{index}/files`). */
export interface ChangedFile {
  filename: string; previous_filename?: string; status: string; additions: number; deletions: number; changes: number;
  html_url: string; contents_url: string; raw_url: string;
}

/** The body of `PATCH /repos/{owner}/{repo}/pulls/{index}`. */
export interface EditPullRequestOption {
  title?: string; body?: string; base?: string; assignee?: string; assignees?: string[];
  /** @isInt */
  milestone?: number;
  labels?: number[]; state?: string; due_date?: string; unset_due_date?: boolean; allow_maintainer_edit?: boolean;
}

/** The body of `POST /repos/{owner}/{repo}/merge-upstream`. */
export interface MergeUpstreamRequest {
  /** The fork's branch (its default branch when empty). */
  branch?: string;
  /** Only a fast-forward; a branch with commits of its own is refused (409). */
  ff_only?: boolean;
}

/** What merge-upstream did: `up-to-date`, `fast-forward` or `merge`. */
export interface MergeUpstreamResponse { merge_type: string }

/** A review of a pull request. */
export interface PullReview {
  id: number; user: User | null; team: Team | null; state: string; body: string; commit_id: string; stale: boolean; official: boolean;
  dismissed: boolean; comments_count: number; submitted_at: string; updated_at: string; html_url: string; pull_request_url: string;
}

/** A comment on a line of the diff, in a new review (`old_position` for the old side, `new_position` for the new). */
export interface CreatePullReviewComment { path?: string; body?: string; old_position?: number; new_position?: number }

/** The body of `POST /pulls/{index}/reviews` (and of a submission). */
export interface CreatePullReviewOptions { body?: string; event?: string; commit_id?: string; comments?: CreatePullReviewComment[] }

/** A comment on a line of a pull request's diff. */
export interface PullReviewComment {
  id: number; body: string; user: User | null; resolver: User | null; pull_request_review_id: number; created_at: string; updated_at: string;
  path: string; commit_id: string; original_commit_id: string; diff_hunk: string; position: number; original_position: number;
  html_url: string; pull_request_url: string;
}

/** The body of `POST`/`DELETE /pulls/{index}/requested_reviewers`. */
export interface PullReviewRequestOptions { reviewers?: string[]; team_reviewers?: string[] }

/** The body of a dismissal. */
export interface DismissPullReviewOptions { message?: string; priors?: boolean }
