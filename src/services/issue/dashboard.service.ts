/**
 * The signed-in user's issue and pull request overview (Gitea's `/issues` and `/pulls`): one kind,
 * across repositories, narrowed by a filter (in your repositories, assigned to you, created by
 * you, mentioning you, and for pull requests review requested and reviewed by you), a state and
 * keywords, with the open and closed totals and each filter's total. Built on the issue search of
 * the API (`issueSearchFilter`), so the same repositories are readable.
 */
import type { DbContext } from '../../db';
import { Unauthorized } from '../../errors';
import { UnitType } from '../../models/perm';
import { archivedRepoIds } from '../../models/repository.model';
import { isDraftTitle, pullsOfIssues } from '../../models/pull-request.model';
import { isIssueSort, type IssueFilter, type RepoScope } from '../../models/issue-search';
import type { Principal } from '../auth/principal';
import { assertTwoFactorSatisfied } from '../auth/two-factor.service';
import { workingRepoIds } from '../repo/working';
import { pageOfIssues, totalOfIssues } from './issue.service';
import { issueSearchFilter } from './search.service';
import type { IssueView } from './view';

/** The filters of the overview, as Gitea's `type` names them. */
export const OVERVIEW_FILTERS = ['your_repositories', 'assigned', 'created_by', 'mentioned', 'review_requested', 'reviewed_by'] as const;
/** One filter of the overview. */
export type OverviewFilter = typeof OVERVIEW_FILTERS[number];

/** The filters a kind offers: the review ones are for pull requests only (as Gitea's menu). */
export function filtersOf(isPull: boolean): OverviewFilter[] {
  return OVERVIEW_FILTERS.filter((f) => isPull || (f !== 'review_requested' && f !== 'reviewed_by'));
}

/** What the overview asks for. */
export interface OverviewQuery {
  isPull: boolean; filter: OverviewFilter; closed: boolean; keyword?: string;
  /** One of the issue list's orders (Gitea's default here: recently updated). */
  sort?: string; limit: number; offset: number;
}

/** One row of the overview: the issue, and for a pull request whether it is merged or a draft. */
export interface OverviewItem { view: IssueView; merged: boolean; mergedUnix: number; draft: boolean }

/** A page of the overview with its totals. */
export interface Overview {
  items: OverviewItem[];
  /** Matches of the filter and keywords, open and closed. */
  open: number; closed: number;
  /** Matches of each filter the kind offers, in the state shown. */
  counts: Partial<Record<OverviewFilter, number>>;
}

/** A scope without the repositories in `drop`. */
function without(scope: RepoScope, drop: Set<number>): RepoScope {
  return { issues: scope.issues.filter((id) => !drop.has(id)), pulls: scope.pulls.filter((id) => !drop.has(id)) };
}

/** A page of the caller's overview, with the totals of its state toggle and of every filter. */
export async function issueOverview(ctx: DbContext, p: Principal, q: OverviewQuery): Promise<Overview> {
  const me = p.user;
  if (!me) throw new Unauthorized('sign in to see your issues');
  await assertTwoFactorSatisfied(ctx, p);
  const unit = q.isPull ? UnitType.PullRequests : UnitType.Issues;
  const [base, working, archived] = await Promise.all([
    issueSearchFilter(ctx, p, { type: q.isPull ? 'pulls' : 'issues', q: q.keyword, state: 'all' }),
    workingRepoIds(ctx, p, [unit]),
    archivedRepoIds(ctx),
  ]);
  // why: as Gitea's overview, archived repositories are left out; "your repositories" keeps the
  // ones the user works on, the other filters look in every repository it can read (public ones too).
  const readable = without(base.scope!, new Set(archived));
  const mine = new Set(working);
  const yours = { issues: readable.issues.filter((id) => mine.has(id)), pulls: readable.pulls.filter((id) => mine.has(id)) };
  const variant = (filter: OverviewFilter, closed: boolean): IssueFilter => {
    const f: IssueFilter = { ...base, scope: filter === 'your_repositories' ? yours : readable, isClosed: closed };
    if (filter === 'assigned') f.assigneeId = me.id;
    else if (filter === 'created_by') f.posterId = me.id;
    else if (filter === 'mentioned') f.mentionedId = me.id;
    else if (filter === 'review_requested') f.reviewRequestedId = me.id;
    else if (filter === 'reviewed_by') f.reviewedId = me.id;
    return f;
  };
  const sort = q.sort && isIssueSort(q.sort) ? q.sort : 'recentupdate';
  const others = filtersOf(q.isPull).filter((f) => f !== q.filter);
  const [page, other, ...counts] = await Promise.all([
    pageOfIssues(ctx, variant(q.filter, q.closed), sort, { limit: q.limit, offset: q.offset }),
    totalOfIssues(ctx, variant(q.filter, !q.closed)),
    ...others.map((f) => totalOfIssues(ctx, variant(f, q.closed))),
  ]);
  const pulls = q.isPull ? await pullsOfIssues(ctx, page.items.map((v) => v.row.id)) : new Map();
  const items = page.items.map((view) => {
    const pr = pulls.get(view.row.id);
    return { view, merged: !!pr?.hasMerged, mergedUnix: Number(pr?.mergedUnix ?? 0), draft: view.row.isPull && isDraftTitle(view.row.name) };
  });
  return {
    items, open: q.closed ? other : page.total, closed: q.closed ? page.total : other,
    counts: Object.fromEntries([[q.filter, page.total], ...others.map((f, i) => [f, counts[i]])]),
  };
}
