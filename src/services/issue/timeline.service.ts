/**
 * An issue's timeline (`GET /issues/{index}/timeline`): comments and history entries, oldest first,
 * with the labels, milestones, users and issues they point at loaded once per page. References
 * from issues the caller cannot read are left out, as Gitea leaves them out.
 */
import type { DbContext } from '../../db';
import { settings } from '../../config';
import { CommentType, listIssueComments, type TimeWindow } from '../../models/comment.model';
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
  const out: TimelineView[] = [];
  for (const row of rows) {
    if (CROSS_REFS.includes(row.type) && !readable.has(row.refIssueId)) continue;
    const label = labels.get(row.labelId);
    out.push({
      row, issue, repo, user: user(row.posterId),
      label: label ? { label, owner: rc.owner.name, repo: label.orgId ? undefined : rc.repo.name } : null,
      milestone: milestones.get(row.milestoneId) ?? null, oldMilestone: milestones.get(row.oldMilestoneId) ?? null,
      assignee: row.assigneeId ? user(row.assigneeId) : null, refIssue: otherViews.get(row.refIssueId) ?? null,
      dependentIssue: otherViews.get(row.dependentIssueId) ?? null, trackedTime: times.get(row.timeId) ?? null,
      assigneeTeam: teams.has(row.assigneeTeamId) ? { team: teams.get(row.assigneeTeamId)!, units: units.get(row.assigneeTeamId)! } : null,
    });
  }
  return out;
}
