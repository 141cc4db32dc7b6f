/** Webhooks as Gitea's API shows and takes them (structs.Hook, CreateHookOption, EditHookOption) and the payloads they are sent. */
import type { PayloadCommit } from './refs';
import type { Repository } from './repo';
import type { User } from './user';
import type { Issue, Comment } from './issue';
import type { PullRequest } from './pull';
import type { Release } from './release';
import type { Organization } from './org';
import type { Package } from './package';

/** A hook. `config` holds `url` and `content_type` (and a Slack hook's channel, username, icon_url and color); the secret is never shown. */
export interface Hook {
  id: number; type: string; branch_filter: string; config: Record<string, string>; events: string[]; authorization_header: string;
  active: boolean; updated_at: string; created_at: string;
}

/**
 * The body of a hook's creation: `type` (gitea, gogs, slack, discord, dingtalk, telegram, msteams,
 * feishu, matrix, wechatwork, packagist); `config` with `url` and `content_type` (json or form),
 * optionally `secret` and `is_system_webhook`; the events (push when none).
 */
export interface CreateHookOption {
  type: string; config: Record<string, string>; events?: string[]; branch_filter?: string; authorization_header?: string; active?: boolean;
}

/** The body of a hook's change. */
export interface EditHookOption { config?: Record<string, string>; events?: string[]; branch_filter?: string; authorization_header?: string; active?: boolean }

// Payloads (Gitea's modules/structs/hook.go), in the field order Gitea writes them.

/** A push: the commits (newest first, at most `[ui] FEED_MAX_COMMIT_NUM`), their untruncated count, and the newest. */
export interface PushPayload {
  ref: string; before: string; after: string; compare_url: string; commits: PayloadCommit[]; total_commits: number;
  head_commit: PayloadCommit | null; repository: Repository; pusher: User; sender: User;
}

/** A branch or tag created (`ref` is the short name). */
export interface CreatePayload { sha: string; ref: string; ref_type: 'branch' | 'tag'; repository: Repository; sender: User }

/** A branch or tag deleted (`ref` is the short name). */
export interface DeletePayload { ref: string; ref_type: 'branch' | 'tag'; pusher_type: 'user'; repository: Repository; sender: User }

/** A repository forked: `forkee` is the original, `repository` the new fork (Gitea's naming). */
export interface ForkPayload { forkee: Repository; repository: Repository; sender: User }

/** What an edit changed: the earlier values. */
export interface ChangesPayload { title?: { from: string }; body?: { from: string }; ref?: { from: string } }

/** An issue event. */
export interface IssuePayload {
  action: string; number: number; changes?: ChangesPayload; issue: Issue; repository: Repository; sender: User; commit_id: string;
}

/** A comment on an issue or a pull request. */
export interface IssueCommentPayload {
  action: 'created' | 'edited' | 'deleted'; issue: Issue; pull_request?: PullRequest; comment: Comment; changes?: ChangesPayload;
  repository: Repository; sender: User; is_pull: boolean;
}

/** A pull request event; `review` for a submitted review, `requested_reviewer` for a review request (and the reviewer of a review). */
export interface PullRequestPayload {
  action: string; number: number; changes?: ChangesPayload; pull_request: PullRequest; requested_reviewer: User | null;
  repository: Repository; sender: User; commit_id: string; review: { type: string; content: string } | null;
}

/** A release published, updated or deleted. */
export interface ReleasePayload { action: 'published' | 'updated' | 'deleted'; release: Release; repository: Repository; sender: User }

/** A repository created or deleted; `organization` is the owner, user or organization. */
export interface RepositoryPayload { action: 'created' | 'deleted'; repository: Repository; organization: User; sender: User }

/** A wiki page created, edited or deleted; `comment` is the commit message. */
export interface WikiPayload { action: 'created' | 'edited' | 'deleted'; repository: Repository; sender: User; page: string; comment: string }

/** A commit status created. */
export interface CommitStatusPayload {
  commit: PayloadCommit | null; context: string; created_at: string; description: string; id: number; repository: Repository; sender: User;
  sha: string; state: string; target_url: string; updated_at: string | null;
}

/** A package created or deleted (`repository` is null in Gitea 1.24). */
export interface PackagePayload { action: 'created' | 'deleted'; repository: Repository | null; package: Package; organization: Organization | null; sender: User }

/** An actions job's state change (emitted by the actions work). */
export interface WorkflowJobPayload {
  action: 'queued' | 'waiting' | 'in_progress' | 'completed'; workflow_job: unknown; pull_request?: PullRequest | null;
  organization?: Organization | null; repository: Repository; sender: User;
}

/** An actions run's state change (Gitea 1.25's payload; emitted by the actions work). */
export interface WorkflowRunPayload {
  action: 'requested' | 'in_progress' | 'completed'; workflow: unknown; workflow_run: unknown; pull_request?: PullRequest | null;
  organization?: Organization | null; repository: Repository; sender: User;
}

/** Any payload a hook is sent. */
export type HookPayload = PushPayload | CreatePayload | DeletePayload | ForkPayload | IssuePayload | IssueCommentPayload | PullRequestPayload
  | ReleasePayload | RepositoryPayload | WikiPayload | CommitStatusPayload | PackagePayload | WorkflowJobPayload | WorkflowRunPayload;

/**
 * One delivery of an event to a hook, with what was sent and what came back (the forge's own
 * shape: Gitea shows this history only on its web pages). `status` is pending (waiting for its
 * first attempt or a retry), delivered or failed (given up after `[webhook] MAX_ATTEMPTS`).
 */
export interface HookDelivery {
  id: number; uuid: string; event: string; status: 'pending' | 'delivered' | 'failed'; is_succeed: boolean; attempts: number;
  /** When it was last tried (or queued, before its first attempt). */
  delivered_at: string;
  /** When the next attempt is due; null when none is. */
  next_attempt_at: string | null;
  request: { url: string; http_method: string; headers: Record<string, string>; body: string } | null;
  response: { status: number; headers: Record<string, string>; body: string } | null;
}
