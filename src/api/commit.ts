/** Commit shapes of Gitea's API (modules/structs/repo_commit.go). */
import type { User } from './user';
import type { Repository } from './repo';

/** A git object reference with its API url. */
export interface CommitMeta { url: string; sha: string; created: string }

/** Author or committer of a commit as git records it. */
export interface CommitUser { name: string; email: string; date: string }

/** A commit signer or a push author. */
export interface PayloadUser { name: string; email: string; username: string }

/** Whether a commit's signature was verified, and against whom. */
export interface PayloadCommitVerification {
  verified: boolean;
  reason: string;
  signature: string;
  signer: PayloadUser | null;
  payload: string;
}

/** The git data of a commit. */
export interface RepoCommit {
  url: string;
  author: CommitUser;
  committer: CommitUser;
  message: string;
  tree: CommitMeta;
  verification?: PayloadCommitVerification;
}

/** A file a commit touched: "added", "removed" or "modified". */
export interface CommitAffectedFiles { filename: string; status: string }

/** Line totals of a commit's diff. */
export interface CommitStats { total: number; additions: number; deletions: number }

/** A commit with the forge users behind its author and committer emails. */
export interface Commit {
  url: string;
  sha: string;
  created: string;
  html_url: string;
  commit: RepoCommit;
  author: User | null;
  committer: User | null;
  parents: CommitMeta[];
  files?: CommitAffectedFiles[];
  stats?: CommitStats;
}

/** A status a CI system reported for a commit. */
export interface CommitStatus {
  id: number;
  /** pending, success, error, failure, warning or skipped. */
  status: string;
  target_url: string;
  description: string;
  url: string;
  context: string;
  creator: User | null;
  created_at: string;
  updated_at: string;
}

/** The latest status per context of a commit and the worst of their states. */
export interface CombinedStatus {
  state: string;
  sha: string;
  total_count: number;
  statuses: CommitStatus[];
  repository: Repository;
  commit_url: string;
  url: string;
}

/** A status to record (`state`: pending, success, error, failure, warning or skipped). */
export interface CreateStatusOption {
  state: string;
  target_url?: string;
  description?: string;
  context?: string;
}

/** The commits of head since its merge base with base, and the files they change. */
export interface Compare { total_commits: number; commits: Commit[]; files: CommitAffectedFiles[] }

/** A git note of a commit (Gitea's Note): its text and the notes commit that last changed it. */
export interface Note {
  message: string;
  commit: Commit;
}
