/**
 * Tracker rows -> Gitea's Issue, Label, Milestone, Comment, TimelineComment and Reaction JSON.
 * Pure: everything shown is loaded by the caller. Rows may be plain values read raw (SQLite then
 * gives booleans as 0/1), so booleans go through Boolean().
 */
import type { Comment, Issue, Label, Milestone, Reaction, RepositoryMeta, TimelineComment, TrackedTime } from '../api/issue';
import type { IssueModel } from '../models/issue.model';
import type { LabelModel } from '../models/label.model';
import type { MilestoneModel } from '../models/milestone.model';
import type { AttachmentModel } from '../models/attachment.model';
import type { IssueParts, IssueView, RepoRef, TimelineView, TrackedTimeView } from '../models/issue-view';
import type { UserModel } from '../models/user.model';
import { COMMENT_TYPE_NAMES, CommentType, type CommentModel } from '../models/comment.model';
import type { ReactionModel } from '../models/reaction.model';
import { isoTime } from './time';
import { toAttachment } from './release';
import { toUser, type Viewer } from './user';
import { toTeam } from './org';

/** Unix seconds as Gitea's JSON time. */
export function unixTime(s: number): string {
  return isoTime(new Date(Number(s) * 1000));
}

const optTime = (s: number): string | null => (Number(s) > 0 ? unixTime(s) : null);

const full = (r: RepoRef) => `${encodeURIComponent(r.owner)}/${encodeURIComponent(r.repo)}`;

/** The API URL of a repository's label, or of an organization's when `orgName` is given. */
export function toLabel(l: LabelModel, rootUrl: string, where: { owner: string; repo?: string }): Label {
  const base = where.repo === undefined
    ? `${rootUrl}api/v1/orgs/${encodeURIComponent(where.owner)}/labels`
    : `${rootUrl}api/v1/repos/${encodeURIComponent(where.owner)}/${encodeURIComponent(where.repo)}/labels`;
  return {
    id: l.id, name: l.name, exclusive: Boolean(l.exclusive), is_archived: Number(l.archivedUnix) > 0, color: l.color.replace(/^#/, ''),
    description: l.description, url: `${base}/${l.id}`,
  };
}

/** A milestone. */
export function toMilestone(m: MilestoneModel): Milestone {
  return {
    id: m.id, title: m.name, description: m.content, state: m.isClosed ? 'closed' : 'open',
    open_issues: m.numIssues - m.numClosedIssues, closed_issues: m.numClosedIssues,
    created_at: unixTime(m.createdUnix), updated_at: unixTime(m.updatedUnix),
    closed_at: m.isClosed ? optTime(m.closedDateUnix) : null, due_on: optTime(m.deadlineUnix),
  };
}

/** The web URL of an issue (pull requests under /pulls). */
export function issueHtmlUrl(i: IssueModel, r: RepoRef): string {
  return `${r.rootUrl}${full(r)}/${i.isPull ? 'pulls' : 'issues'}/${i.index}`;
}

/** An issue (or a pull request seen as an issue). */
export function toIssue(i: IssueModel, p: IssueParts, r: RepoRef, viewer: Viewer | null): Issue {
  const user = (u: UserModel) => toUser(u, viewer, r.rootUrl);
  const html = issueHtmlUrl(i, r);
  const repository: RepositoryMeta = { id: r.repoId, name: r.repo, owner: r.owner, full_name: `${r.owner}/${r.repo}` };
  const assignees = p.assignees.map(user);
  return {
    id: i.id, url: `${r.rootUrl}api/v1/repos/${full(r)}/issues/${i.index}`, html_url: html, number: Number(i.index), user: user(p.poster),
    original_author: i.originalAuthor ?? '', original_author_id: Number(i.originalAuthorId ?? 0), title: i.name, body: i.content, ref: i.ref,
    assets: p.assets.map((a) => toAttachment(a, r.rootUrl)),
    labels: p.labels.map((l) => toLabel(l.label, r.rootUrl, { owner: l.owner, repo: l.repo })),
    milestone: p.milestone ? toMilestone(p.milestone) : null,
    // why: Gitea shows the first assignee in the old single field and null, not [], for none.
    assignee: assignees[0] ?? null, assignees: assignees.length ? assignees : null,
    state: i.isClosed ? 'closed' : 'open', is_locked: Boolean(i.isLocked), comments: Number(i.numComments),
    created_at: unixTime(i.createdUnix), updated_at: unixTime(i.updatedUnix), closed_at: i.isClosed ? optTime(i.closedUnix) : null,
    due_date: optTime(i.deadlineUnix),
    pull_request: i.isPull ? { merged: false, merged_at: null, draft: false, html_url: html } : null,
    repository, pin_order: p.pinOrder,
  };
}

/** A comment. */
export function toComment(c: CommentModel, poster: UserModel | null, issue: IssueModel, r: RepoRef, viewer: Viewer | null, assets: AttachmentModel[]): Comment {
  const html = issueHtmlUrl(issue, r);
  return {
    id: c.id, html_url: `${html}#issuecomment-${c.id}`, pull_request_url: issue.isPull ? html : '', issue_url: issue.isPull ? '' : html,
    user: poster ? toUser(poster, viewer, r.rootUrl) : null, original_author: c.originalAuthor ?? '', original_author_id: Number(c.originalAuthorId ?? 0), body: c.content,
    assets: assets.map((a) => toAttachment(a, r.rootUrl)), created_at: unixTime(c.createdUnix), updated_at: unixTime(c.updatedUnix),
  };
}

/** Seconds as Gitea's SecToHours: "1 hour 2 minutes", seconds only under a minute. */
export function secondsToHours(total: number): string {
  const s = Math.max(0, Math.trunc(total));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const plural = (n: number, unit: string) => `${n} ${unit}${n === 1 ? '' : 's'}`;
  const parts = [h ? plural(h, 'hour') : '', m ? plural(m, 'minute') : ''].filter(Boolean);
  if (parts.length === 0) return plural(s, 'second');
  return parts.join(' ');
}

const REF_ACTIONS = ['none', 'closes', 'reopens', 'neutered'];

function timelineBody(c: CommentModel): string {
  const timed = [CommentType.StopTracking, CommentType.AddTimeManual, CommentType.DeleteTimeManual];
  if (timed.includes(c.type) && c.content.startsWith('|')) return secondsToHours(Number(c.content.slice(1)));
  return c.content;
}

/** An issue view. */
export function toIssueOf(v: IssueView, viewer: Viewer | null): Issue {
  return toIssue(v.row, v.parts, v.repo, viewer);
}

/** A tracked time. */
export function toTrackedTime(t: TrackedTimeView, viewer: Viewer | null): TrackedTime {
  return {
    id: t.id, created: unixTime(t.createdUnix), time: Number(t.time), user_id: t.user.id, user_name: t.user.name,
    issue_id: t.issue?.row.id ?? 0, issue: t.issue ? toIssueOf(t.issue, viewer) : null,
  };
}

/** A timeline entry. */
export function toTimelineComment(v: TimelineView, viewer: Viewer | null): TimelineComment {
  const { row: c, issue, repo: r } = v;
  const html = issueHtmlUrl(issue, r);
  const user = (u: UserModel | null) => (u ? toUser(u, viewer, r.rootUrl) : null);
  return {
    id: c.id, type: COMMENT_TYPE_NAMES[Number(c.type)] ?? 'comment', html_url: `${html}#issuecomment-${c.id}`,
    pull_request_url: issue.isPull ? html : '', issue_url: issue.isPull ? '' : html, user: user(v.user), body: timelineBody(c),
    created_at: unixTime(c.createdUnix), updated_at: unixTime(c.updatedUnix), old_project_id: Number(c.oldProjectId ?? 0), project_id: Number(c.projectId ?? 0),
    old_milestone: v.oldMilestone ? toMilestone(v.oldMilestone) : null, milestone: v.milestone ? toMilestone(v.milestone) : null,
    tracked_time: v.trackedTime ? toTrackedTime(v.trackedTime, viewer) : null, old_title: c.oldTitle, new_title: c.newTitle,
    old_ref: c.oldRef, new_ref: c.newRef, ref_issue: v.refIssue ? toIssueOf(v.refIssue, viewer) : null,
    ref_comment: v.refComment && v.refIssue ? toComment(v.refComment.row, v.refComment.poster, v.refIssue.row, v.refIssue.repo, viewer, []) : null,
    ref_action: REF_ACTIONS[c.refAction] ?? 'none', ref_commit_sha: c.commitSha, review_id: c.reviewId,
    label: v.label ? toLabel(v.label.label, r.rootUrl, { owner: v.label.owner, repo: v.label.repo }) : null,
    assignee: user(v.assignee), assignee_team: v.assigneeTeam ? toTeam(v.assigneeTeam.team, v.assigneeTeam.units, null) : null, removed_assignee: Boolean(c.removedAssignee), resolve_doer: null,
    dependent_issue: v.dependentIssue ? toIssueOf(v.dependentIssue, viewer) : null,
  };
}

/** A reaction. */
export function toReaction(rx: ReactionModel, user: UserModel, viewer: Viewer | null, rootUrl: string): Reaction {
  return { user: toUser(user, viewer, rootUrl), content: rx.type, created_at: unixTime(rx.createdUnix) };
}
