/**
 * Pull request views -> Gitea's PullRequest JSON, as its single converter (one pull request) or
 * its list converter shows them; they differ where Gitea's do (empty lists as null, the head's
 * commit, the counts of lines and files).
 */
import type { PRBranchInfo, PullRequest } from '../api/pull';
import { isDraftTitle, PullStatus } from '../models/pull-request.model';
import type { BranchSide as BranchSideOf, PullView as PullViewOf } from '../models/pull-view';
import { toIssueOf, unixTime } from './issue';
import { toRepositoryView, type RepoViewData } from './repo';
import type { Viewer } from './user';
import { toUser } from './user';

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
    // why: reviews and review requests come with the reviews work; until then nobody is requested.
    requested_reviewers: v.list ? null : [], requested_reviewers_teams: v.list ? null : [],
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
