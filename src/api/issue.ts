/**
 * The issue tracker as Gitea's API shows it (structs.Issue, Label, Milestone, Comment,
 * TimelineComment, Reaction and their options), field for field.
 */
import type { User } from './user';
import type { Attachment } from './release';
import type { Team } from './org';

/** The repository an issue belongs to. */
export interface RepositoryMeta { id: number; name: string; owner: string; full_name: string }

/** What an issue that is a pull request adds (null for issues). */
export interface PullRequestMeta { merged: boolean; merged_at: string | null; draft: boolean; html_url: string }

/** A label of a repository or an organization; `color` has no `#`. */
export interface Label {
  id: number; name: string; exclusive: boolean; is_archived: boolean; color: string; description: string; url: string;
}

/** A milestone with its open and closed issue counts. */
export interface Milestone {
  id: number; title: string; description: string; state: 'open' | 'closed'; open_issues: number; closed_issues: number;
  created_at: string; updated_at: string | null; closed_at: string | null; due_on: string | null;
}

/** An issue (or a pull request seen as an issue). */
export interface Issue {
  id: number; url: string; html_url: string; number: number; user: User; original_author: string; original_author_id: number;
  title: string; body: string; ref: string; assets: Attachment[]; labels: Label[]; milestone: Milestone | null;
  assignee: User | null; assignees: User[] | null; state: 'open' | 'closed'; is_locked: boolean; comments: number;
  created_at: string; updated_at: string; closed_at: string | null; due_date: string | null;
  pull_request: PullRequestMeta | null; repository: RepositoryMeta; pin_order: number;
}

/** A comment on an issue. */
export interface Comment {
  id: number; html_url: string; pull_request_url: string; issue_url: string; user: User | null; original_author: string;
  original_author_id: number; body: string; assets: Attachment[]; created_at: string; updated_at: string;
}

/** Time spent on an issue. */
export interface TrackedTime {
  id: number; created: string; time: number; user_id: number; user_name: string; issue_id: number; issue: Issue | null;
}

/** A comment or history entry of an issue's timeline. */
export interface TimelineComment {
  id: number; type: string; html_url: string; pull_request_url: string; issue_url: string; user: User | null; body: string;
  created_at: string; updated_at: string; old_project_id: number; project_id: number; old_milestone: Milestone | null;
  milestone: Milestone | null; tracked_time: TrackedTime | null; old_title: string; new_title: string; old_ref: string;
  new_ref: string; ref_issue: Issue | null; ref_comment: Comment | null; ref_action: string; ref_commit_sha: string;
  review_id: number; label: Label | null; assignee: User | null; assignee_team: Team | null; removed_assignee: boolean;
  resolve_doer: User | null; dependent_issue: Issue | null;
}

/** A reaction of a user. */
export interface Reaction { user: User; content: string; created_at: string }

/** An issue's deadline. */
export interface IssueDeadline { due_date: string | null }

/** Body of POST /repos/{owner}/{repo}/issues. */
export interface CreateIssueOption {
  title: string; body?: string; ref?: string; assignee?: string; assignees?: string[]; due_date?: string;
  /** milestone id */
  milestone?: number;
  /** label ids */
  labels?: number[];
  closed?: boolean;
}

/** Body of PATCH /repos/{owner}/{repo}/issues/{index}; absent fields stay unchanged. */
export interface EditIssueOption {
  title?: string; body?: string; ref?: string; assignee?: string; assignees?: string[]; milestone?: number; state?: string;
  due_date?: string; unset_due_date?: boolean;
}

/** Body of POST /repos/{owner}/{repo}/issues/{index}/deadline. */
export interface EditDeadlineOption { due_date?: string | null }

/** Body of label creation. */
export interface CreateLabelOption { name: string; color: string; description?: string; exclusive?: boolean; is_archived?: boolean }

/** Body of label edits. */
export interface EditLabelOption { name?: string; color?: string; description?: string; exclusive?: boolean; is_archived?: boolean }

/** Body of the issue label routes: label ids, or label names (not both). */
export interface IssueLabelsOption {
  /** ids (integers) or names (strings) */
  labels?: unknown[];
}

/** Body of milestone creation. */
export interface CreateMilestoneOption { title?: string; description?: string; due_on?: string; state?: string }

/** Body of milestone edits. */
export interface EditMilestoneOption { title?: string; description?: string; due_on?: string; state?: string }

/** Body of comment creation. */
export interface CreateIssueCommentOption { body: string }

/** Body of comment edits. */
export interface EditIssueCommentOption { body: string }

/** Body of the reaction routes. */
export interface EditReactionOption { content?: string }

/** An issue named by its repository and number (dependency bodies). */
export interface IssueMeta { index: number; owner?: string; repo?: string }

/** A running stopwatch. */
export interface StopWatch {
  created: string; seconds: number; duration: string; issue_index: number; issue_title: string; repo_owner_name: string; repo_name: string;
}

/** Body of POST /issues/{index}/times: seconds spent (required), when, and for whom (admins). */
export interface AddTimeOption { time: number; created?: string; user_name?: string }

/** Body of PUT /issues/{index}/lock. */
export interface LockIssueOption { lock_reason?: string }

/** Whether another issue and another pull request may be pinned. */
export interface NewIssuePinsAllowed { issues: boolean; pull_requests: boolean }
