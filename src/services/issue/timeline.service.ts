/**
 * An issue's timeline (`GET /issues/{index}/timeline`): comments and history entries, oldest first,
 * with the labels, milestones, users, issues and comments they point at loaded once per page.
 * References from issues the caller cannot read are left out, as Gitea leaves them out; so are
 * references from commits of a repository whose code the caller cannot read, and a close or
 * reopen made by such a commit does not name it.
 */
import type { DbContext } from '../../db';
import { settings } from '../../config';
import { CommentType, findCommentsByIds, listIssueComments, type CommentModel, type TimeWindow } from '../../models/comment.model';
import { AccessMode, UnitType } from '../../models/perm';
import { findReposByIds } from '../../models/repository.model';
import { findUsersByIds } from '../../models/user.model';
import type { RepoRef } from '../../models/issue-view';
import { can } from '../perm/permission';
import { findIssuesByIds } from '../../models/issue.model';
import { labelsByIds } from '../../models/label.model';
import { milestonesByIds } from '../../models/milestone.model';
import type { TimelineView } from '../../models/issue-view';
import type { Principal } from '../auth/principal';
import type { RepoContext } from '../repo/context';
import { readableIssue, readableIssueIds } from './access';
import { issueViews, namesOf, usersById } from './view';
import { timeViews } from './time.service';
import { findTrackedTimes } from '../../models/tracked-time.model';
import { teamsByIds } from '../../models/team.model';
import { teamUnits } from '../org/team.service';

const CROSS_REFS = [CommentType.IssueRef, CommentType.CommentRef, CommentType.PullRef];
const BY_COMMIT = [CommentType.CommitRef, CommentType.Close, CommentType.Reopen];

/** The repositories (other than `rc`'s) holding the commits the rows name, that `p` may read the code of. */
async function readableCommitRepos(ctx: DbContext, p: Principal, rc: RepoContext, rows: CommentModel[]): Promise<Map<number, RepoRef>> {
  const rootUrl = settings().server.rootUrl;
  const out = new Map<number, RepoRef>([[rc.repo.id, { rootUrl, repoId: rc.repo.id, owner: rc.owner.name, repo: rc.repo.name }]]);
  const ids = [...new Set(rows.filter((r) => BY_COMMIT.includes(r.type) && r.refRepoId > 0 && r.refRepoId !== rc.repo.id).map((r) => r.refRepoId))];
  if (ids.length === 0) return out;
  const repos = await findReposByIds(ctx, ids);
  const owners = new Map((await findUsersByIds(ctx, repos.map((r) => r.ownerId))).map((u) => [u.id, u]));
  for (const repo of repos) {
    const owner = owners.get(repo.ownerId);
    if (owner && (await can(ctx, p, repo, owner, UnitType.Code, AccessMode.Read))) out.set(repo.id, { rootUrl, repoId: repo.id, owner: owner.name, repo: repo.name });
  }
  return out;
}

/** The timeline of an issue: all of it, or one page. */
export async function timeline(
  ctx: DbContext, p: Principal, rc: RepoContext, index: number, w: TimeWindow, page?: { limit: number; offset: number },
): Promise<TimelineView[]> {
  const issue = await readableIssue(ctx, rc, index);
  const rows = await listIssueComments(ctx, issue.id, { ...w, excludeTypes: [CommentType.Code], limit: page?.limit, offset: page?.offset });
  const pointed = [...rows.map((r) => r.refIssueId), ...rows.map((r) => r.dependentIssueId)].filter((id) => id > 0);
  const others = await findIssuesByIds(ctx, pointed);
  const readable = await readableIssueIds(ctx, p, rc, others);
  const otherViews = new Map((await issueViews(ctx, others.filter((i) => readable.has(i.id)), namesOf(rc))).map((v) => [v.row.id, v]));
  const user = await usersById(ctx, [...rows.map((r) => r.posterId), ...rows.map((r) => r.assigneeId)]);
  const labels = new Map((await labelsByIds(ctx, rows.map((r) => r.labelId).filter((id) => id > 0))).map((l) => [l.id, l]));
  const milestones = new Map((await milestonesByIds(ctx, [...rows.map((r) => r.milestoneId), ...rows.map((r) => r.oldMilestoneId)])).map((m) => [m.id, m]));
  const times = new Map((await timeViews(ctx, await findTrackedTimes(ctx, rows.map((r) => r.timeId).filter((id) => id > 0)))).map((t) => [t.id, t]));
  const teams = new Map((await teamsByIds(ctx, rows.map((r) => r.assigneeTeamId).filter((id) => id > 0))).map((t) => [t.id, t]));
  const units = await teamUnits(ctx, [...teams.values()]);
  const repo = { rootUrl: settings().server.rootUrl, repoId: rc.repo.id, owner: rc.owner.name, repo: rc.repo.name };
  const commitRepos = await readableCommitRepos(ctx, p, rc, rows);
  const refComments = new Map((await findCommentsByIds(ctx, rows.filter((r) => r.type === CommentType.CommentRef && r.refCommentId > 0).map((r) => r.refCommentId))).map((c) => [c.id, c]));
  const refPosters = await usersById(ctx, [...refComments.values()].map((c) => c.posterId));
  const out: TimelineView[] = [];
  for (const original of rows) {
    if (CROSS_REFS.includes(original.type) && !readable.has(original.refIssueId)) continue;
    // why: an entry a commit made names a repository; one the reader cannot read is not shown (a reference) or not named (a close).
    const fromCommit = BY_COMMIT.includes(original.type) && original.commitSha !== '' && original.refRepoId > 0;
    const commitRepo = fromCommit ? commitRepos.get(original.refRepoId) ?? null : null;
    if (fromCommit && !commitRepo && original.type === CommentType.CommitRef) continue;
    const row = fromCommit && !commitRepo ? { ...original, commitSha: '', refRepoId: 0 } as CommentModel : original;
    const refComment = refComments.get(row.refCommentId);
    const label = labels.get(row.labelId);
    out.push({
      row, issue, repo, user: user(row.posterId),
      label: label ? { label, owner: rc.owner.name, repo: label.orgId ? undefined : rc.repo.name } : null,
      milestone: milestones.get(row.milestoneId) ?? null, oldMilestone: milestones.get(row.oldMilestoneId) ?? null,
      assignee: row.assigneeId ? user(row.assigneeId) : null, refIssue: otherViews.get(row.refIssueId) ?? null,
      dependentIssue: otherViews.get(row.dependentIssueId) ?? null, trackedTime: times.get(row.timeId) ?? null,
      assigneeTeam: teams.has(row.assigneeTeamId) ? { team: teams.get(row.assigneeTeamId)!, units: units.get(row.assigneeTeamId)! } : null,
      refComment: row.type === CommentType.CommentRef && refComment ? { row: refComment, poster: refPosters(refComment.posterId) } : null, commitRepo,
    });
  }
  return out;
}
