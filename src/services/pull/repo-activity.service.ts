/**
 * A repository's activity over a period, as Gitea's Activity page shows it: pull requests merged
 * and opened, issues closed and opened, and the commits pushed to the default branch by author.
 * Each part is shown only to those who may read its unit. (It lives with pull requests, the
 * highest of the domains it reads.)
 */
import type { DbContext } from '../../db';
import { findIssuesByIds, issuesMovedSince, type IssueModel } from '../../models/issue.model';
import { AccessMode, UnitType } from '../../models/perm';
import { pullsMergedSince } from '../../models/pull-request.model';
import { canReadIssues } from '../issue/access';
import { listCommits } from '../history/commit.service';
import type { RepoContext } from '../repo/context';

/** The periods the page offers, in days, by Gitea's names. */
export const ACTIVITY_PERIODS: Record<string, { days: number; name: string }> = {
  daily: { days: 1, name: '1 day' }, halfweekly: { days: 3, name: '3 days' }, weekly: { days: 7, name: '1 week' }, monthly: { days: 30, name: '1 month' },
};

/** An issue or pull request as the page lists it. */
export interface ActivityItem { index: number; title: string; at: number }

/** What happened in the period; a part is null when the caller may not read its unit. */
export interface RepoActivity {
  since: Date;
  pulls: { merged: ActivityItem[]; opened: ActivityItem[] } | null;
  issues: { closed: ActivityItem[]; opened: ActivityItem[] } | null;
  commits: { total: number; authors: { name: string; email: string; count: number }[] } | null;
}

const LIMIT = 100;
const item = (i: IssueModel, at: number): ActivityItem => ({ index: i.index, title: i.name, at });

/** The activity of the repository over `period` (a key of ACTIVITY_PERIODS; weekly otherwise). */
export async function repoActivity(ctx: DbContext, rc: RepoContext, period: string): Promise<RepoActivity> {
  const days = (Object.hasOwn(ACTIVITY_PERIODS, period) ? ACTIVITY_PERIODS[period] : ACTIVITY_PERIODS.weekly).days;
  const since = new Date(Date.now() - days * 86400_000);
  const sinceUnix = Math.floor(since.getTime() / 1000);
  const out: RepoActivity = { since, pulls: null, issues: null, commits: null };
  if (canReadIssues(rc, true)) {
    const merged = await pullsMergedSince(ctx, rc.repo.id, sinceUnix, LIMIT);
    const byId = new Map((await findIssuesByIds(ctx, merged.map((p) => p.issueId))).map((i) => [i.id, i]));
    const moved = await issuesMovedSince(ctx, rc.repo.id, true, sinceUnix, LIMIT);
    out.pulls = {
      merged: merged.flatMap((p) => (byId.has(p.issueId) ? [item(byId.get(p.issueId)!, p.mergedUnix)] : [])),
      opened: moved.opened.map((i) => item(i, i.createdUnix)),
    };
  }
  if (canReadIssues(rc, false)) {
    const moved = await issuesMovedSince(ctx, rc.repo.id, false, sinceUnix, LIMIT);
    out.issues = { closed: moved.closed.map((i) => item(i, i.closedUnix)), opened: moved.opened.map((i) => item(i, i.createdUnix)) };
  }
  if (rc.perm.can(UnitType.Code, AccessMode.Read) && !rc.repo.isEmpty) {
    const list = await listCommits(ctx, rc, { sha: '', since, skip: 0, limit: 1000, stat: false, files: false, verification: false });
    const authors = new Map<string, { name: string; email: string; count: number }>();
    for (const c of list.commits) {
      const key = c.author.email.toLowerCase();
      const a = authors.get(key) ?? { name: c.author.name, email: c.author.email, count: 0 };
      a.count++;
      authors.set(key, a);
    }
    out.commits = { total: list.total, authors: [...authors.values()].sort((a, b) => b.count - a.count || a.name.localeCompare(b.name)) };
  }
  return out;
}
