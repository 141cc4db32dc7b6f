/**
 * Time tracking: stopwatches (start, stop, cancel; one running per user) and tracked times (add,
 * list, reset, delete), honouring [service] ENABLE_TIMETRACKING and the repository's tracker
 * settings (time tracker on, only contributors may track).
 */
import { withTx, type DbContext } from '../../db';
import { BadRequest, Conflict, Forbidden, NotFound, Validation } from '../../errors';
import { CommentType } from '../../models/comment.model';
import { issuesInOrder, nowUnix, type IssueModel } from '../../models/issue.model';
import { assigneeIdsOfIssues } from '../../models/issue-links';
import type { TrackedTimeView } from '../../models/issue-view';
import { findStopwatch, insertStopwatch, deleteStopwatch, stopwatchesOf, type StopwatchModel } from '../../models/stopwatch.model';
import {
  findTrackedTime, insertTrackedTime, listTrackedTimes, markTrackedTimesDeleted, type TrackedTimeFilter, type TrackedTimeModel,
} from '../../models/tracked-time.model';
import { findUserByName, type UserModel } from '../../models/user.model';
import { findReposByIds } from '../../models/repository.model';
import type { RepoContext } from '../repo/context';
import { isRepoAdmin } from '../repo/access';
import { assertMayChangeIssue, assertTrackerReadable, canWriteIssues, readableIssue } from './access';
import { parseApiTime, record } from './history';
import { finishStopwatch } from './stopwatch';
import { timetrackerEnabled, trackerConfigOf } from '../repo/tracker-settings';
import { issueViewsByIds, usersById } from './view';

/** May `doer` track time on the issue (Gitea's CanUseTimetracker)? */
async function canUseTimetracker(ctx: DbContext, rc: RepoContext, doer: UserModel, issue: IssueModel): Promise<boolean> {
  if (!(await timetrackerEnabled(ctx, rc.repo.id))) return false;
  if (!(await trackerConfigOf(ctx, rc.repo.id)).AllowOnlyContributorsToTrackTime) return true;
  if (canWriteIssues(rc, issue.isPull) || issue.posterId === doer.id) return true;
  return ((await assigneeIdsOfIssues(ctx, [issue.id])).get(issue.id) ?? []).includes(doer.id);
}

/** The issue of a stopwatch route: the caller writes its unit and may track time (403 with no body otherwise). */
async function stopwatchIssue(ctx: DbContext, rc: RepoContext, doer: UserModel, index: number): Promise<IssueModel> {
  const issue = await readableIssue(ctx, rc, index);
  if (!canWriteIssues(rc, issue.isPull) || !(await canUseTimetracker(ctx, rc, doer, issue))) throw new Forbidden('');
  return issue;
}

/** Start the caller's stopwatch on an issue; a running one elsewhere is stopped first (its time kept). */
export async function startStopwatch(ctx: DbContext, doer: UserModel, rc: RepoContext, index: number): Promise<void> {
  const issue = await stopwatchIssue(ctx, rc, doer, index);
  await assertMayChangeIssue(ctx, rc, doer, issue);
  await withTx(ctx, async (tx) => {
    const running = await stopwatchesOf(tx, doer.id);
    if (running.some((s) => s.issueId === issue.id)) throw new Conflict('cannot start a stopwatch again if it already exists');
    for (const sw of running) await finishStopwatch(tx, sw);
    await insertStopwatch(tx, doer.id, issue.id);
    await record(tx, { type: CommentType.StartTracking, issueId: issue.id, posterId: doer.id });
  });
}

async function runningOn(tx: DbContext, doer: UserModel, issue: IssueModel): Promise<StopwatchModel> {
  const sw = await findStopwatch(tx, doer.id, issue.id);
  if (!sw) throw new Conflict('cannot stop/cancel a non existent stopwatch');
  return sw;
}

/**
 * Stop the caller's stopwatch on an issue, keeping its time. why: refused, as adding time is, to
 * a caller the poster or owner blocked meanwhile; cancelling (which keeps nothing) stays open.
 */
export async function stopStopwatch(ctx: DbContext, doer: UserModel, rc: RepoContext, index: number): Promise<void> {
  const issue = await stopwatchIssue(ctx, rc, doer, index);
  await assertMayChangeIssue(ctx, rc, doer, issue);
  await withTx(ctx, async (tx) => finishStopwatch(tx, await runningOn(tx, doer, issue)));
}

/** Cancel the caller's stopwatch on an issue, dropping its time. */
export async function cancelStopwatch(ctx: DbContext, doer: UserModel, rc: RepoContext, index: number): Promise<void> {
  const issue = await stopwatchIssue(ctx, rc, doer, index);
  await withTx(ctx, async (tx) => {
    await deleteStopwatch(tx, (await runningOn(tx, doer, issue)).id);
    await record(tx, { type: CommentType.CancelTracking, issueId: issue.id, posterId: doer.id });
  });
}

/** A running stopwatch with its issue and repository names. */
export interface StopwatchView { row: StopwatchModel; issue: IssueModel; owner: string; repo: string }

/** Does the user's stopwatch run on this issue? */
export async function stopwatchRunning(ctx: DbContext, doer: UserModel, issueId: number): Promise<boolean> {
  return (await findStopwatch(ctx, doer.id, issueId)) !== null;
}

/** The caller's running stopwatches. */
export async function myStopwatches(ctx: DbContext, doer: UserModel): Promise<StopwatchView[]> {
  const rows = await stopwatchesOf(ctx, doer.id);
  const issues = new Map((await issuesInOrder(ctx, rows.map((r) => r.issueId))).map((i) => [i.id, i]));
  const repos = new Map((await findReposByIds(ctx, [...issues.values()].map((i) => i.repoId))).map((r) => [r.id, r]));
  return rows.flatMap((row) => {
    const issue = issues.get(row.issueId);
    const repo = issue ? repos.get(issue.repoId) : undefined;
    return issue && repo ? [{ row, issue, owner: repo.ownerName, repo: repo.name }] : [];
  });
}

/** Tracked times with their users and issues. */
export async function timeViews(ctx: DbContext, rows: TrackedTimeModel[]): Promise<TrackedTimeView[]> {
  const user = await usersById(ctx, rows.map((r) => r.userId));
  const views = new Map((await issueViewsByIds(ctx, [...new Set(rows.map((r) => r.issueId))])).map((v) => [v.row.id, v]));
  return rows.map((r) => ({ id: r.id, createdUnix: r.createdUnix, time: r.time, user: user(r.userId), issue: views.get(r.issueId) ?? null }));
}

/** Who a listing may show: a repository admin or writer sees anyone's, others only their own. */
async function listedUser(ctx: DbContext, rc: RepoContext, doer: UserModel, isPull: boolean, name?: string): Promise<number | undefined> {
  const seesAll = doer.isAdmin || isRepoAdmin(rc) || canWriteIssues(rc, isPull);
  if (!name) return seesAll ? undefined : doer.id;
  const user = await findUserByName(ctx, name);
  if (!user) throw new NotFound(`user does not exist [uid: 0, name: ${name}]`);
  if (!seesAll && user.id !== doer.id) throw new Forbidden('query by user not allowed; not enough rights');
  return user.id;
}

/** Tracked times of an issue (or of the whole repository when `index` is absent), one page or all. */
export async function listTimes(
  ctx: DbContext, doer: UserModel, rc: RepoContext, index: number | undefined, q: { user?: string; since?: number; before?: number },
  page?: { limit: number; offset: number },
): Promise<{ items: TrackedTimeView[]; total: number }> {
  const issue = index === undefined ? null : await readableIssue(ctx, rc, index);
  if (!issue) assertTrackerReadable(rc);
  if (!(await timetrackerEnabled(ctx, rc.repo.id))) throw issue ? new NotFound('Timetracker is disabled') : new BadRequest('time tracking disabled');
  const f: TrackedTimeFilter = { since: q.since, before: q.before, userId: await listedUser(ctx, rc, doer, issue?.isPull ?? false, q.user) };
  if (issue) f.issueId = issue.id;
  else f.repoId = rc.repo.id;
  const { rows, count } = await listTrackedTimes(ctx, f, page?.limit, page?.offset);
  return { items: await timeViews(ctx, rows), total: count };
}

/** The caller's tracked times in every repository. */
export async function myTimes(ctx: DbContext, doer: UserModel, q: { since?: number; before?: number }, page: { limit: number; offset: number }): Promise<{ items: TrackedTimeView[]; total: number }> {
  const { rows, count } = await listTrackedTimes(ctx, { userId: doer.id, ...q }, page.limit, page.offset);
  return { items: await timeViews(ctx, rows), total: count };
}

/** The issue of a time-writing route: time tracking on (400), the caller may track (403 with no body). */
async function trackableIssue(ctx: DbContext, rc: RepoContext, doer: UserModel, index: number): Promise<IssueModel> {
  const issue = await readableIssue(ctx, rc, index);
  if (!(await timetrackerEnabled(ctx, rc.repo.id))) throw new BadRequest('time tracking disabled');
  if (!(await canUseTimetracker(ctx, rc, doer, issue))) throw new Forbidden('');
  return issue;
}

/**
 * Add time to an issue. `user_name` books it for someone else, honoured for site admins and
 * repository admins only (ignored otherwise, as Gitea).
 */
export async function addTime(
  ctx: DbContext, doer: UserModel, rc: RepoContext, index: number, o: { time?: number; created?: string; user_name?: string },
): Promise<TrackedTimeView> {
  const issue = await trackableIssue(ctx, rc, doer, index);
  // why: the time shows in the issue's timeline, which a user its poster or owner blocked may not add to.
  await assertMayChangeIssue(ctx, rc, doer, issue);
  if (!o.time || !Number.isSafeInteger(o.time)) throw new Validation('[Time]: Required');
  const created = o.created ? parseApiTime(o.created, 'Created') : nowUnix();
  let user = doer;
  if (o.user_name && o.user_name !== doer.name && (doer.isAdmin || isRepoAdmin(rc))) {
    const other = await findUserByName(ctx, o.user_name);
    if (!other) throw new NotFound(`user does not exist [uid: 0, name: ${o.user_name}]`);
    user = other;
  }
  const row = await withTx(ctx, async (tx) => {
    const t = await insertTrackedTime(tx, { issueId: issue.id, userId: user.id, createdUnix: created, time: o.time! });
    await record(tx, { type: CommentType.AddTimeManual, issueId: issue.id, posterId: user.id, timeId: t.id, content: `|${o.time}` });
    return t;
  });
  return (await timeViews(ctx, [row]))[0];
}

/** Delete all of the caller's time on an issue; 404 when there is none. */
export async function resetTime(ctx: DbContext, doer: UserModel, rc: RepoContext, index: number): Promise<void> {
  const issue = await trackableIssue(ctx, rc, doer, index);
  await withTx(ctx, async (tx) => {
    const { rows } = await listTrackedTimes(tx, { issueId: issue.id, userId: doer.id });
    if (rows.length === 0) throw new NotFound('no tracked time of yours on this issue');
    await markTrackedTimesDeleted(tx, rows.map((r) => r.id));
    const sum = rows.reduce((n, r) => n + Number(r.time), 0);
    await record(tx, { type: CommentType.DeleteTimeManual, issueId: issue.id, posterId: doer.id, content: `|${sum}` });
  });
}

/** Delete one tracked time of the issue (the caller's own, or anyone's for site admins). */
export async function deleteTime(ctx: DbContext, doer: UserModel, rc: RepoContext, index: number, id: number): Promise<void> {
  const issue = await trackableIssue(ctx, rc, doer, index);
  await withTx(ctx, async (tx) => {
    const t = await findTrackedTime(tx, id);
    if (!t || t.issueId !== issue.id) throw new NotFound(`tracked time does not exist [id: ${id}]`);
    if (t.deleted) throw new NotFound('tracked time was already deleted');
    if (t.userId !== doer.id && !doer.isAdmin) throw new Forbidden('');
    await markTrackedTimesDeleted(tx, [t.id]);
    await record(tx, { type: CommentType.DeleteTimeManual, issueId: issue.id, posterId: t.userId, timeId: t.id, content: `|${t.time}` });
  });
}

/** A user's tracked times in a repository: for the user, repository admins and site admins. */
export async function userTimesInRepo(ctx: DbContext, doer: UserModel, rc: RepoContext, name: string): Promise<TrackedTimeView[]> {
  const user = await findUserByName(ctx, name);
  if (!user) throw new NotFound(`user does not exist [uid: 0, name: ${name}]`);
  if (user.id !== doer.id && !doer.isAdmin && !isRepoAdmin(rc)) throw new Forbidden('query by user not allowed; not enough rights');
  return (await listTimes(ctx, doer, rc, undefined, { user: name })).items;
}
