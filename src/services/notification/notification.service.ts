/**
 * A user's notification threads (`/notifications`, `/repos/{o}/{r}/notifications`): listed with
 * Gitea's filters, marked read, unread or pinned, counted. Threads of repositories the user can no
 * longer read are left out (Gitea keeps showing them).
 */
import { withTx, type DbContext } from '../../db';
import { Forbidden, HttpError, NotFound } from '../../errors';
import {
  countNotifications, findNotificationById, findNotifications, NotificationSource, NotificationStatus, setNotificationsStatus,
  type NotificationFilter, type NotificationModel,
} from '../../models/notification.model';
import { findIssuesByIds, type IssueModel } from '../../models/issue.model';
import { findReposByIds, visibleRepoIdsSql } from '../../models/repository.model';
import { findUsersByIds, type UserModel } from '../../models/user.model';
import { pullsOfIssues } from '../../models/pull-request.model';
import { lastPlainComments } from '../../models/comment.model';
import type { Principal } from '../auth/principal';
import { repoVisibility, viewOf, type RepoView } from '../repo/repo.service';

/** A thread with what its JSON shows. */
export interface ThreadEntry {
  row: NotificationModel; repo: RepoView | null; issue: IssueModel | null;
  merged: boolean;
  /** The issue's newest plain comment, or 0. */
  lastCommentId: number;
}

const STATUS_NAMES: Record<string, NotificationStatus> = { unread: NotificationStatus.Unread, read: NotificationStatus.Read, pinned: NotificationStatus.Pinned };
const SOURCE_NAMES: Record<string, NotificationSource> = {
  issue: NotificationSource.Issue, pull: NotificationSource.PullRequest, commit: NotificationSource.Commit, repository: NotificationSource.Repository,
};

/** Names to values (any case, trimmed); unknown names are dropped, so only unknown ones mean no filter (as Gitea). */
function namedValues<T>(names: string[] | undefined, table: Record<string, T>, fallback: T[]): T[] {
  if (!names?.length) return fallback;
  return [...new Set(names.flatMap((n) => n.split(',')).map((n) => table[n.trim().toLowerCase()]).filter((v) => v !== undefined))];
}

/** The status a change sets: `read` unless `unread` or `pinned` is named (anything else is read, as Gitea). */
export function toStatusOf(name: string | undefined): NotificationStatus {
  return STATUS_NAMES[(name ?? '').trim().toLowerCase()] ?? NotificationStatus.Read;
}

/** An RFC 3339 time as Unix seconds; `status` with Go's parse message when it is not one. */
function parseTime(v: string | undefined, status: number): number | undefined {
  if (v === undefined || v === '') return undefined;
  const ms = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i.test(v) ? Date.parse(v) : NaN;
  if (Number.isNaN(ms)) throw new HttpError(status, `parsing time ${JSON.stringify(v)} as "2006-01-02T15:04:05Z07:00": cannot parse ${JSON.stringify(v)} as "2006"`);
  return Math.floor(ms / 1000);
}

/** The repositories whose threads `p` still sees (null: all). */
async function readable(ctx: DbContext, p: Principal): Promise<string | null> {
  const v = await repoVisibility(ctx, p);
  return v === 'all' ? null : visibleRepoIdsSql(v);
}

/** The list filters of `GET /notifications`. */
export interface ThreadQuery { all?: boolean; statusTypes?: string[]; subjectTypes?: string[]; since?: string; before?: string }

/** One page of the caller's threads (of one repository with `repoId`), the most recently updated first. */
export async function listThreads(
  ctx: DbContext, p: Principal, user: UserModel, repoId: number | undefined, q: ThreadQuery, page: { limit: number; offset: number },
): Promise<{ entries: ThreadEntry[]; count: number }> {
  const f: NotificationFilter = {
    userId: user.id, repoId, readableRepos: await readable(ctx, p),
    statuses: q.all ? [] : namedValues(q.statusTypes, STATUS_NAMES, [NotificationStatus.Unread, NotificationStatus.Pinned]),
    sources: namedValues(q.subjectTypes, SOURCE_NAMES, []), since: parseTime(q.since, 422), before: parseTime(q.before, 422),
  };
  const { rows, count } = await findNotifications(ctx, f, page);
  return { entries: await entriesOf(ctx, p, rows), count };
}

/** What `PUT /notifications` changes: threads updated up to `lastReadAt`, of `statusTypes` (unread by default) or `all`. */
export interface ReadQuery { lastReadAt?: string; all?: boolean; statusTypes?: string[]; toStatus?: string }

/** Set the status of the caller's matching threads (all of them, no page); the changed threads. */
export async function readThreads(ctx: DbContext, p: Principal, user: UserModel, repoId: number | undefined, q: ReadQuery): Promise<ThreadEntry[]> {
  const f: NotificationFilter = {
    userId: user.id, repoId, readableRepos: await readable(ctx, p), before: parseTime(q.lastReadAt, 400),
    statuses: q.all ? [] : namedValues(q.statusTypes, STATUS_NAMES, [NotificationStatus.Unread]),
  };
  const rows = await withTx(ctx, (tx) => setNotificationsStatus(tx, f, toStatusOf(q.toStatus)));
  return entriesOf(ctx, p, rows);
}

/** A thread of the caller (a site admin reads anyone's); 404 for none or one of a repository the caller cannot read, 403 for another's. */
export async function getThread(ctx: DbContext, p: Principal, user: UserModel, rawId: string): Promise<ThreadEntry> {
  const id = /^\d{1,15}$/.test(rawId) ? Number(rawId) : 0;
  const row = await findNotificationById(ctx, id);
  if (!row) throw new NotFound(id ? `notification does not exist [id: ${id}]` : 'notification does not exist');
  if (row.userId !== user.id && !user.isAdmin) throw new Forbidden(`only user itself and admin are allowed to read/change this thread ${id}`);
  const [entry] = await entriesOf(ctx, p, [row]);
  if (!entry.repo) throw new NotFound(`notification does not exist [id: ${id}]`);
  return entry;
}

/** Mark one of the caller's own threads; nobody changes another's (Gitea fails an admin's attempt). */
export async function readThread(ctx: DbContext, p: Principal, user: UserModel, rawId: string, toStatus: string | undefined): Promise<ThreadEntry> {
  const { row } = await getThread(ctx, p, user, rawId);
  if (row.userId !== user.id) throw new Forbidden(`Can't change notification of another user: ${row.userId}, ${user.id}`);
  const [changed] = await withTx(ctx, (tx) => setNotificationsStatus(tx, { userId: user.id, readableRepos: null, ids: [Number(row.id)] }, toStatusOf(toStatus)));
  return (await entriesOf(ctx, p, [changed]))[0];
}

/** How many unread threads the caller has (pinned ones are not counted). */
export async function countUnread(ctx: DbContext, p: Principal, user: UserModel): Promise<number> {
  const f: NotificationFilter = { userId: user.id, readableRepos: await readable(ctx, p), statuses: [NotificationStatus.Unread] };
  return countNotifications(ctx, f);
}

/** The repositories (as `p` sees them, none when it cannot read one), issues and latest comments of threads, read once each. */
async function entriesOf(ctx: DbContext, p: Principal, rows: NotificationModel[]): Promise<ThreadEntry[]> {
  const repos = await findReposByIds(ctx, rows.map((r) => r.repoId));
  const owners = new Map((await findUsersByIds(ctx, repos.map((r) => r.ownerId))).map((u) => [u.id, u]));
  const views = new Map<number, RepoView>();
  for (const r of repos) {
    const owner = owners.get(r.ownerId);
    const view = owner ? await viewOf(ctx, p, r, owner, undefined, false) : null;
    if (view && view.permissions.pull) views.set(r.id, view);
  }
  const issueIds = rows.map((r) => r.issueId).filter((id) => id > 0);
  const issues = new Map((await findIssuesByIds(ctx, issueIds)).map((i) => [i.id, i]));
  const pulls = await pullsOfIssues(ctx, issueIds);
  const last = await lastPlainComments(ctx, issueIds);
  return rows.map((row) => ({
    row, repo: views.get(row.repoId) ?? null, issue: issues.get(row.issueId) ?? null,
    merged: !!pulls.get(row.issueId)?.hasMerged, lastCommentId: last.get(row.issueId) ?? 0,
  }));
}
