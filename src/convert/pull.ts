/**
 * Pull request views -> Gitea's PullRequest JSON, as its single converter (one pull request) or
 * its list converter shows them; they differ where Gitea's do (empty lists as null, the head's
 * commit, the counts of lines and files).
 */
import type { ChangedFile, PRBranchInfo, PullRequest, PullReview, PullReviewComment } from '../api/pull';
import type { UserModel } from '../models/user.model';
import type { TeamModel } from '../models/team.model';
import type { AccessMode, UnitType } from '../models/perm';
import { isDraftTitle, PullStatus } from '../models/pull-request.model';
import type { BranchSide as BranchSideOf, PullView as PullViewOf } from '../models/pull-view';
import { toIssueOf, unixTime } from './issue';
import { toRepositoryView, type RepoViewData } from './repo';
import type { Viewer } from './user';
import { toUser } from './user';
import { toOrganization, toTeam } from './org';

function side(s: BranchSide, viewer: Viewer | null, rootUrl: string): PRBranchInfo {
  return { label: s.label, ref: s.ref, sha: s.sha, repo_id: s.repoId, repo: s.repo ? toRepositoryView(s.repo, viewer, rootUrl) : null };
}

type BranchSide = BranchSideOf<RepoViewData>;
type PullView = PullViewOf<RepoViewData>;

const NOT_MERGEABLE = new Set([PullStatus.Conflict, PullStatus.Checking, PullStatus.Error]);

/** A pull request. */
export function toPullRequest(v: PullView, viewer: Viewer | null): PullRequest {
  const rootUrl = v.issue.repo.rootUrl;
  const i = toIssueOf(v.issue, viewer);
  const pr = v.pull;
  const draft = isDraftTitle(i.title);
  const merged = Boolean(pr.hasMerged);
  return {
    id: pr.id, url: i.html_url, number: i.number, user: i.user, title: i.title, body: i.body, labels: i.labels, milestone: i.milestone,
    assignee: i.assignee, assignees: i.assignees ?? (v.list ? null : []),
    // why: as Gitea's list converter, empty lists are null there, and it never fills in the teams.
    requested_reviewers: v.list && v.reviewers.length === 0 ? null : v.reviewers.map((u) => toUser(u, null, rootUrl)),
    requested_reviewers_teams: v.list ? null : v.reviewerTeams.map((t) => toTeam(t.team, t.units, toOrganization(t.org, viewer, rootUrl))),
    state: i.state, draft, is_locked: i.is_locked, comments: i.comments,
    ...(v.stats ? { additions: v.stats.additions, deletions: v.stats.deletions, changed_files: v.stats.changedFiles } : {}),
    html_url: i.html_url, diff_url: `${i.html_url}.diff`, patch_url: `${i.html_url}.patch`,
    mergeable: !NOT_MERGEABLE.has(Number(pr.status)) && !draft,
    merged, merged_at: merged ? unixTime(pr.mergedUnix) : null, merge_commit_sha: merged ? pr.mergedCommitId : null,
    merged_by: merged && v.merger ? toUser(v.merger, null, rootUrl) : null, allow_maintainer_edit: Boolean(pr.allowMaintainerEdit),
    base: side(v.base, viewer, rootUrl), head: side(v.head, viewer, rootUrl), merge_base: pr.mergeBase,
    due_date: i.due_date, created_at: i.created_at, updated_at: i.updated_at, closed_at: i.closed_at, pin_order: i.pin_order,
  };
}

/** Gitea's status of a changed file: deleted, added, copied, renamed, unchanged (no lines) or changed. */
function fileStatus(f: FileChangeLike): string {
  const s = f.status[0];
  if (s === 'D') return 'deleted';
  if (s === 'A') return 'added';
  if (s === 'C') return 'copied';
  if (s === 'R') return 'renamed';
  return f.additions === 0 && f.deletions === 0 ? 'unchanged' : 'changed';
}

/** A changed file as git reports it (src/git/history.ts FileChange). */
export interface FileChangeLike { status: string; path: string; oldPath: string; additions: number; deletions: number }

/** A file of a pull request, its URLs at the head commit `head` of repository `repo` (web and API bases). */
export function toChangedFile(f: FileChangeLike, repo: { html: string; api: string }, head: string): ChangedFile {
  const p = f.path.split('/').map(encodeURIComponent).join('/');
  const renamed = f.status[0] === 'R';
  return {
    filename: f.path, ...(renamed ? { previous_filename: f.oldPath } : {}), status: fileStatus(f),
    additions: f.additions, deletions: f.deletions, changes: f.additions + f.deletions,
    html_url: `${repo.html}/src/commit/${head}/${p}`, contents_url: `${repo.api}/contents/${p}?ref=${head}`, raw_url: `${repo.html}/raw/commit/${head}/${p}`,
  };
}

const REVIEW_STATES = ['PENDING', 'APPROVED', 'COMMENT', 'REQUEST_CHANGES', 'REQUEST_REVIEW'];

/** A review with what its JSON shows (services/pull/review.service ReviewView). */
export interface ReviewViewLike {
  row: { id: number; type: number; content: string; commitId: string; stale: boolean; official: boolean; dismissed: boolean; createdUnix: number; updatedUnix: number };
  reviewer: UserModel | null; team: TeamModel | null; teamUnits: Map<UnitType, AccessMode>; entryId: number | null; comments: number;
}

/** A review as Gitea shows it (`html_url` names its timeline entry when it has one; a requested team comes without its organization). */
export function toPullReview(v: ReviewViewLike, pullHtml: string, viewer: Viewer | null, rootUrl: string): PullReview {
  const r = v.row;
  return {
    id: r.id, user: v.reviewer ? toUser(v.reviewer, viewer, rootUrl) : null, team: v.team ? toTeam(v.team, v.teamUnits, null) : null,
    state: REVIEW_STATES[Number(r.type)] ?? '', body: r.content,
    commit_id: r.commitId, stale: Boolean(r.stale), official: Boolean(r.official), dismissed: Boolean(r.dismissed), comments_count: v.comments,
    submitted_at: unixTime(r.createdUnix), updated_at: unixTime(r.updatedUnix), html_url: v.entryId ? `${pullHtml}#issuecomment-${v.entryId}` : '',
    pull_request_url: pullHtml,
  };
}

/** A comment on a line of a pull request's diff, as a review lists it. */
export function toPullReviewComment(
  c: { id: number; content: string; treePath: string; line: number; commitSha: string; oldRef: string; patch: string; reviewId: number; createdUnix: number; updatedUnix: number },
  poster: UserModel | null, resolver: UserModel | null, pending: boolean, pullHtml: string, viewer: Viewer | null, rootUrl: string,
): PullReviewComment {
  const line = Number(c.line);
  // why: Gitea shows the hunk only when the kept patch has exactly one.
  const hunk = c.patch.split('\n@@').length === 2 ? c.patch.slice(c.patch.indexOf('@@')) : '';
  return {
    id: c.id, body: c.content, user: poster ? toUser(poster, viewer, rootUrl) : null, resolver: resolver ? toUser(resolver, viewer, rootUrl) : null,
    pull_request_review_id: c.reviewId, created_at: unixTime(c.createdUnix), updated_at: unixTime(c.updatedUnix), path: c.treePath,
    commit_id: c.commitSha, original_commit_id: c.oldRef, diff_hunk: hunk, position: line > 0 ? line : 0, original_position: line < 0 ? -line : 0,
    html_url: pending ? `${pullHtml}/files#issuecomment-${c.id}` : `${pullHtml}#issuecomment-${c.id}`, pull_request_url: pullHtml,
  };
}
