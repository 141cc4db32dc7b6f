/**
 * A pull request with what its JSON shows, as the pull services load it and the converter reads
 * it. `R` is the repository view (services/repo's RepoView; the converter's RepoViewData).
 */
import type { IssueView } from './issue-view';
import type { PullRequestModel } from './pull-request.model';
import type { UserModel } from './user.model';
import type { TeamModel } from './team.model';
import type { AccessMode, UnitType } from './perm';

/** One side of a pull request as shown (Gitea's PRBranchInfo). */
export interface BranchSide<R> { label: string; ref: string; sha: string; repoId: number; repo: R | null }

/** A pull request ready to convert. `list` selects Gitea's list converter, which differs in a few fields. */
export interface PullView<R> {
  issue: IssueView; pull: PullRequestModel; base: BranchSide<R>; head: BranchSide<R>; merger: UserModel | null; list: boolean;
  /** Requested reviewers: users, and teams of the owning organization with their units. */
  reviewers: UserModel[]; reviewerTeams: { team: TeamModel; units: Map<UnitType, AccessMode>; org: UserModel }[];
  /** Line and file counts against the merge base (single pull requests of the branch flow only). */
  stats?: { additions: number; deletions: number; changedFiles: number };
}
