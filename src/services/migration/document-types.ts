/**
 * The migration documents as TypeScript sees them: one interface per schema of `schemas/` (the
 * schemas are the contract; these follow them field for field). A Gitea source and a dump both
 * come to the importer in this form.
 */

/** A reaction (schemas/reaction.json). */
export interface ReactionDoc { user_id: number; user_name?: string; content: string }

/** A label (schemas/label.json). */
export interface LabelDoc { name: string; color?: string; description?: string; exclusive?: boolean; archived?: boolean }

/** A milestone (schemas/milestone.json). */
export interface MilestoneDoc {
  title: string; description?: string; deadline?: string | null; created: string; updated?: string | null; closed?: string | null; state: 'open' | 'closed';
}

/** An issue (schemas/issue.json). */
export interface IssueDoc {
  number: number; poster_id: number; poster_name: string; poster_email?: string; title: string; content: string; ref?: string; milestone?: string;
  state: 'open' | 'closed'; is_locked: boolean; created: string; updated: string; closed?: string | null; labels?: LabelDoc[]; reactions?: ReactionDoc[];
  assignees?: string[];
}

/** A comment (schemas/comment.json). */
export interface CommentDoc {
  issue_index: number; index?: number; comment_type?: string; poster_id: number; poster_name: string; poster_email?: string; content: string;
  created: string; updated: string; reactions?: ReactionDoc[];
}

/** A branch of a pull request. */
export interface BranchDoc { clone_url?: string; ref: string; sha: string; repo_name?: string; owner_name?: string }

/** A pull request (schemas/pull_request.json). */
export interface PullRequestDoc {
  number: number; title: string; poster_id: number; poster_name: string; poster_email?: string; content: string; milestone?: string;
  state: 'open' | 'closed'; created: string; updated: string; closed?: string | null; labels?: LabelDoc[]; patch_url?: string; merged: boolean;
  merged_time?: string | null; merge_commit_sha?: string; head: BranchDoc; base: BranchDoc; assignees?: string[]; is_locked?: boolean; is_draft?: boolean;
  reactions?: ReactionDoc[];
}

/** A line comment of a review. */
export interface ReviewCommentDoc {
  id?: number; in_reply_to?: number; content: string; tree_path: string; diff_hunk?: string; position?: number; line?: number; commit_id?: string;
  poster_id: number; poster_name?: string; poster_email?: string; reactions?: ReactionDoc[]; created_at: string; updated_at?: string;
}

/** A review (schemas/review.json). */
export interface ReviewDoc {
  id?: number; issue_index: number; reviewer_id: number; reviewer_name: string; reviewer_email?: string; official?: boolean; commit_id?: string; content?: string; created_at: string;
  state: 'PENDING' | 'APPROVED' | 'CHANGES_REQUESTED' | 'COMMENTED' | 'REQUEST_REVIEW'; comments?: ReviewCommentDoc[];
}

/** A release's file (schemas/asset.json). */
export interface AssetDoc {
  id?: number; name: string; content_type?: string; size?: number; download_count?: number; created?: string; updated?: string; download_url?: string;
}

/** A release (schemas/release.json). */
export interface ReleaseDoc {
  tag_name: string; target_commitish?: string; name?: string; body?: string; draft?: boolean; prerelease?: boolean; publisher_id: number;
  publisher_name: string; publisher_email?: string; assets?: AssetDoc[]; created: string; published?: string | null;
}

/** A repository (schemas/repository.json). */
export interface RepositoryDoc {
  name: string; owner?: string; description?: string; website?: string; is_private?: boolean; is_mirror?: boolean; default_branch: string;
  original_url?: string; topics?: string[];
}
