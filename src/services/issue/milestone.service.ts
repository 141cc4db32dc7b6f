/**
 * Milestones of a repository (`/repos/{owner}/{repo}/milestones`): by id or by name, open or
 * closed, with their issue counts and the repository's milestone counts.
 */
import { withTx, type DbContext } from '../../db';
import { NotFound, Unauthorized } from '../../errors';
import type { CreateMilestoneOption, EditMilestoneOption } from '../../api/issue';
import {
  deleteMilestoneRow, findMilestone, findMilestoneByName, insertMilestone, isMilestoneSort, listMilestones as listRows, milestoneTallies, milestonesOfRepos,
  saveMilestone, type MilestoneModel,
} from '../../models/milestone.model';
import { UnitType } from '../../models/perm';
import { findReposByIds } from '../../models/repository.model';
import type { Principal } from '../auth/principal';
import { assertTwoFactorSatisfied } from '../auth/two-factor.service';
import { workingRepoIds } from '../repo/working';
import { clearMilestoneOfIssues, nowUnix } from '../../models/issue.model';
import { adjustIssueCounts, issueCountsOf } from '../../models/repo-issue-counter.model';
import type { RepoContext } from '../repo/context';
import { assertTrackerWriter } from './access';
import { endOfDay, parseApiTime } from './history';

/**
 * Milestones of a repository: `state` open or closed (anything else: all), `name` a substring,
 * `sort` one of Gitea's milestone orders (closestduedate, mostcomplete...; else deadline then name).
 */
export function listMilestones(
  ctx: DbContext, rc: RepoContext, state: string | undefined, name: string | undefined, page?: { limit: number; offset: number }, sort?: string,
): Promise<{ rows: MilestoneModel[]; count: number }> {
  const closed = state === 'open' ? false : state === 'closed' ? true : undefined;
  return listRows(ctx, rc.repo.id, { closed, name, sort }, page?.limit, page?.offset);
}

/** How many open and closed milestones the repository has (whose name contains `name`, when given). */
export async function milestoneCounts(ctx: DbContext, rc: RepoContext, name?: string): Promise<{ open: number; closed: number }> {
  if (!name) {
    // why: without a filter the repository's counters answer, as for issue totals.
    const c = (await issueCountsOf(ctx, [rc.repo.id])).get(rc.repo.id)!;
    return { open: c.numMilestones - c.numClosedMilestones, closed: c.numClosedMilestones };
  }
  const [open, closed] = await Promise.all([false, true].map((isClosed) => listRows(ctx, rc.repo.id, { closed: isClosed, name }, 1, 0)));
  return { open: open.count, closed: closed.count };
}

/** Set a row's state in the caller's transaction, moving the repository's closed count when it changes. */
async function setState(tx: DbContext, rc: RepoContext, row: MilestoneModel, closed: boolean): Promise<void> {
  if (closed === row.isClosed) return;
  await adjustIssueCounts(tx, rc.repo.id, { numClosedMilestones: closed ? 1 : -1 });
  row.isClosed = closed;
  row.closedDateUnix = closed ? nowUnix() : 0;
}

/** A milestone by id, or by exact name when `key` is not a number. */
export async function getMilestone(ctx: DbContext, rc: RepoContext, key: string): Promise<MilestoneModel> {
  const row = /^\d+$/.test(key) ? await findMilestone(ctx, rc.repo.id, Number(key)) : await findMilestoneByName(ctx, rc.repo.id, key);
  if (!row) throw new NotFound(`milestone does not exist [id: ${/^\d+$/.test(key) ? key : 0}, repo_id: ${rc.repo.id}, name: ${key}]`);
  return row;
}

/** Create a milestone (`state: "closed"` creates it closed). */
export async function createMilestone(ctx: DbContext, rc: RepoContext, o: CreateMilestoneOption): Promise<MilestoneModel> {
  assertTrackerWriter(rc);
  const closed = o.state === 'closed';
  const deadline = o.due_on ? parseApiTime(o.due_on, 'Deadline') : 0;
  return withTx(ctx, async (tx) => {
    const row = await insertMilestone(tx, rc.repo.id, {
      name: (o.title ?? '').trim(), content: o.description ?? '', isClosed: closed, deadlineUnix: deadline, closedDateUnix: closed ? nowUnix() : 0,
    });
    await adjustIssueCounts(tx, rc.repo.id, { numMilestones: 1, numClosedMilestones: closed ? 1 : 0 });
    return row;
  });
}

/**
 * Edit a milestone: a non-empty title, the description, the state; `due_on` becomes 23:59:59 of
 * its date, and an absent `due_on` clears the deadline (as Gitea).
 */
export async function editMilestone(ctx: DbContext, rc: RepoContext, key: string, o: EditMilestoneOption): Promise<MilestoneModel> {
  assertTrackerWriter(rc);
  const found = await getMilestone(ctx, rc, key);
  const deadline = o.due_on ? endOfDay(o.due_on, 'Deadline') : 0;
  return withTx(ctx, async (tx) => {
    const row = await findMilestone(tx, rc.repo.id, found.id);
    if (!row) throw new NotFound();
    if (o.title) row.name = o.title.trim();
    if (o.description !== undefined && o.description !== null) row.content = o.description;
    row.deadlineUnix = deadline;
    if (o.state !== undefined && o.state !== null) await setState(tx, rc, row, o.state === 'closed');
    await saveMilestone(tx, row);
    return row;
  });
}

/** Close or reopen a milestone, leaving the rest of it as it is (the milestones page's Close and Reopen, as Gitea's). */
export async function changeMilestoneState(ctx: DbContext, rc: RepoContext, key: string, closed: boolean): Promise<MilestoneModel> {
  assertTrackerWriter(rc);
  const found = await getMilestone(ctx, rc, key);
  return withTx(ctx, async (tx) => {
    const row = await findMilestone(tx, rc.repo.id, found.id);
    if (!row) throw new NotFound();
    await setState(tx, rc, row, closed);
    await saveMilestone(tx, row);
    return row;
  });
}

/** Delete a milestone; its issues keep no milestone. */
export async function deleteMilestone(ctx: DbContext, rc: RepoContext, key: string): Promise<void> {
  assertTrackerWriter(rc);
  const found = await getMilestone(ctx, rc, key);
  await withTx(ctx, async (tx) => {
    const row = await findMilestone(tx, rc.repo.id, found.id);
    if (!row) throw new NotFound();
    await clearMilestoneOfIssues(tx, row.id);
    await adjustIssueCounts(tx, rc.repo.id, { numMilestones: -1, numClosedMilestones: row.isClosed ? -1 : 0 });
    await deleteMilestoneRow(tx, row.id);
  });
}

/** What the milestone overview asks for: a state, a name's part, some repositories (none: all), an order. */
export interface MilestoneOverviewQuery { closed: boolean; keyword?: string; repoIds: number[]; sort?: string; limit: number; offset: number }

/** A repository of the milestone overview, with how many of its milestones match in the state shown. */
export interface OverviewRepo { id: number; owner: string; name: string; count: number }

/** A page of the milestone overview. */
export interface MilestoneOverview {
  milestones: { row: MilestoneModel; repo: OverviewRepo }[];
  /** Repositories with matching milestones (in either state), by full name. */
  repos: OverviewRepo[];
  /** The chosen repositories that are among them. */
  selected: number[];
  /** Matches in the chosen repositories, open and closed; and in all of them, in the state shown. */
  open: number; closed: number; total: number;
}

/**
 * The signed-in caller's milestones across the repositories it works on (Gitea's `/milestones`):
 * owned, collaborated on or reached through an organization, whose issues or pull requests it can
 * read, by the permission function; archived repositories are left out.
 */
export async function milestoneOverview(ctx: DbContext, p: Principal, q: MilestoneOverviewQuery): Promise<MilestoneOverview> {
  if (!p.user) throw new Unauthorized('sign in to see your milestones');
  await assertTwoFactorSatisfied(ctx, p);
  const ids = await workingRepoIds(ctx, p, [UnitType.Issues, UnitType.PullRequests]);
  const tallies = await milestoneTallies(ctx, ids, q.keyword);
  const rows = (await findReposByIds(ctx, [...tallies.keys()])).map((r) => ({ id: r.id, owner: r.ownerName, name: r.name }));
  const state = (id: number) => { const t = tallies.get(id); return t ? (q.closed ? t.closed : t.open) : 0; };
  const repos = rows.map((r) => ({ ...r, count: state(r.id) }))
    .sort((a, b) => `${a.owner}/${a.name}`.toLowerCase().localeCompare(`${b.owner}/${b.name}`.toLowerCase()));
  const selected = q.repoIds.filter((id) => tallies.has(id));
  // why: as Gitea, chosen ids that are not among the caller's repositories are ignored.
  const within = selected.length ? selected : repos.map((r) => r.id);
  const sum = (pick: (t: { open: number; closed: number }) => number) => within.reduce((n, id) => n + pick(tallies.get(id) ?? { open: 0, closed: 0 }), 0);
  const sort = q.sort && isMilestoneSort(q.sort) ? q.sort : 'closestduedate';
  const page = await milestonesOfRepos(ctx, within, { closed: q.closed, name: q.keyword }, sort, q.limit, q.offset);
  const byId = new Map(repos.map((r) => [r.id, r]));
  return {
    milestones: page.flatMap((row) => { const repo = byId.get(row.repoId); return repo ? [{ row, repo }] : []; }),
    repos, selected, open: sum((t) => t.open), closed: sum((t) => t.closed), total: repos.reduce((n, r) => n + r.count, 0),
  };
}
