/**
 * The shapes services load for the tracker's converters: an issue with everything its JSON shows,
 * and a timeline entry with the objects it points at. Types only.
 */
import type { IssueModel } from './issue.model';
import type { LabelModel } from './label.model';
import type { MilestoneModel } from './milestone.model';
import type { AttachmentModel } from './attachment.model';
import type { UserModel } from './user.model';
import type { CommentModel } from './comment.model';
import type { TeamModel } from './team.model';
import type { AccessMode, UnitType } from './perm';

/** Where a tracker object lives: root URL, repository id, owner and repository names. */
export interface RepoRef { rootUrl: string; repoId: number; owner: string; repo: string }

/** A label with the names its URL is built from (`repo` absent for an organization's label). */
export interface LabelRef { label: LabelModel; owner: string; repo?: string }

/** What the Issue JSON shows besides the row. */
export interface IssueParts {
  poster: UserModel; labels: LabelRef[]; milestone: MilestoneModel | null; assignees: UserModel[]; assets: AttachmentModel[]; pinOrder: number;
}

/** An issue with what its JSON shows. */
export interface IssueView { row: IssueModel; parts: IssueParts; repo: RepoRef }

/** A tracked time with its issue. */
export interface TrackedTimeView { id: number; createdUnix: number; time: number; user: UserModel; issue: IssueView | null }

/** A timeline entry with the objects it points at. */
export interface TimelineView {
  row: CommentModel; issue: IssueModel; repo: RepoRef; user: UserModel | null; label: LabelRef | null; milestone: MilestoneModel | null;
  oldMilestone: MilestoneModel | null; assignee: UserModel | null; refIssue: IssueView | null; dependentIssue: IssueView | null;
  trackedTime: TrackedTimeView | null;
  /** The team a review request entry names, with its units. */
  assigneeTeam: { team: TeamModel; units: Map<UnitType, AccessMode> } | null;
  /** The comment a comment_ref entry points at (on `refIssue`), with its poster. */
  refComment: { row: CommentModel; poster: UserModel | null } | null;
  /** The repository holding the commit a commit_ref, close or reopen entry names, when the reader may read it. */
  commitRepo: RepoRef | null;
}
