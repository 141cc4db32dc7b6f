/**
 * `/repos/issues/search`: issues and pull requests across every repository the caller may read
 * (public ones for anonymous callers), with Gitea's filters and sorts.
 */
import type { DbContext } from '../../db';
import { BadRequest } from '../../errors';
import { findTeamByName } from '../../models/team.model';
import { teamRepoIds } from '../../models/team-repo.model';
import { UnitType } from '../../models/perm';
import { visibleRepoIds } from '../../models/repository.model';
import { findUserByName } from '../../models/user.model';
import { findLabelsByNamesAnywhere } from '../../models/label.model';
import { milestoneIdsByNamesAnywhere } from '../../models/milestone.model';
import { isIssueSort, type IssueFilter } from '../../models/issue-search';
import type { Principal } from '../auth/principal';
import { repoVisibility } from '../repo/repo.service';
import { pageOfIssues } from './issue.service';
import type { IssueView } from './view';

/** The query of an issue search. */
export interface IssueSearchQuery {
  state?: string; labels?: string; milestones?: string; q?: string; type?: string; since?: number; before?: number; owner?: string; team?: string;
  created?: boolean; assigned?: boolean; mentioned?: boolean; reviewRequested?: boolean; reviewed?: boolean; sort?: string;
}

/** One page of the issues the caller may read that match `q`, and the total. */
export async function searchIssues(ctx: DbContext, p: Principal, q: IssueSearchQuery, opts: { limit: number; offset: number }): Promise<{ items: IssueView[]; total: number }> {
  const f = await issueSearchFilter(ctx, p, q);
  const sort = q.sort && isIssueSort(q.sort) ? q.sort : 'newest';
  return pageOfIssues(ctx, f, sort, opts);
}

/**
 * The filter of an issue search: the repositories the caller may read (issues and pull requests
 * by their own units) narrowed by `q`. Pages that list issues across repositories start from it,
 * so the same visibility rules apply as in the API.
 */
export async function issueSearchFilter(ctx: DbContext, p: Principal, q: IssueSearchQuery): Promise<IssueFilter> {
  const [issues, pulls] = await Promise.all([repoVisibility(ctx, p, UnitType.Issues), repoVisibility(ctx, p, UnitType.PullRequests)]);
  const [issueRepos, pullRepos] = await Promise.all([visibleRepoIds(ctx, issues, UnitType.Issues), visibleRepoIds(ctx, pulls, UnitType.PullRequests)]);
  // why: the ids are known (and cached), so the statements name them instead of asking which repositories are visible per row.
  const f: IssueFilter = {
    repoIds: [], scope: { issues: issueRepos, pulls: pullRepos },
    isClosed: q.state === 'closed' ? true : q.state === 'all' ? undefined : false,
    isPull: q.type === 'pulls' ? true : q.type === 'issues' ? false : undefined,
    since: q.since, before: q.before, keyword: q.q?.includes('\0') ? undefined : q.q,
  };
  if (q.owner) {
    const owner = await findUserByName(ctx, q.owner);
    if (!owner) throw new BadRequest(`user does not exist [uid: 0, name: ${q.owner}]`);
    f.ownerId = owner.id;
  } else if (q.team) {
    throw new BadRequest('Owner organisation is required for filtering on team');
  }
  if (q.team) {
    const ids = new Set(await teamRepoIdsOf(ctx, f.ownerId!, q.team));
    f.scope = { issues: issueRepos.filter((id) => ids.has(id)), pulls: pullRepos.filter((id) => ids.has(id)) };
  }
  if (q.labels) {
    const names = q.labels.split(',').map((s) => s.trim()).filter(Boolean);
    const ids = (await findLabelsByNamesAnywhere(ctx, names)).map((l) => l.id);
    if (ids.length) f.anyLabelIds = ids;
  }
  if (q.milestones) {
    const ids = await milestoneIdsByNamesAnywhere(ctx, q.milestones.split(',').map((s) => s.trim()).filter(Boolean));
    // why: as Gitea, names that match no milestone filter nothing rather than everything.
    f.milestoneIds = ids.length ? ids : [-1];
  }
  const me = p.user;
  if (me) {
    if (q.created) f.posterId = me.id;
    if (q.assigned) f.assigneeId = me.id;
    if (q.mentioned) f.mentionedId = me.id;
    if (q.reviewRequested) f.reviewRequestedId = me.id;
    if (q.reviewed) f.reviewedId = me.id;
  }
  return f;
}

/** The repositories of an organization's team by name; 400 for an unknown team. */
async function teamRepoIdsOf(ctx: DbContext, orgId: number, name: string): Promise<number[]> {
  const team = await findTeamByName(ctx, orgId, name);
  if (!team) throw new BadRequest(`team does not exist [org_id: ${orgId}, name: ${name}]`);
  return teamRepoIds(ctx, orgId, team.id, team.includesAllRepositories);
}
