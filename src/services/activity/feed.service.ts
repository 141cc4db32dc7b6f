/**
 * The activity feeds of a user (its own acts and the repositories it watches; an organization's
 * repositories), an organization, a team (the organization's repositories the team has) and a
 * repository, newest first, as a caller may see them: never an event of a repository the caller
 * cannot read; other people's feeds without private repositories' events, and without the acts of
 * users who hide their activity or whom the caller may not see (site admins see everything).
 */
import type { DbContext } from '../../db';
import { findFeed, heatmapBuckets, type ActionModel, type FeedScope, type HeatmapBucket } from '../../models/action.model';
import { findCommentsByIds, type CommentModel } from '../../models/comment.model';
import { findIssuesByIds, type IssueModel } from '../../models/issue.model';
import { findReposByIds, visibleRepoIdsSql } from '../../models/repository.model';
import { findUsersByIds, UserType, visibleUsersSql, type UserModel } from '../../models/user.model';
import type { TeamModel } from '../../models/team.model';
import type { Principal } from '../auth/principal';
import { repoVisibility, viewOf, type RepoView } from '../repo/repo.service';
import type { RepoContext } from '../repo/context';
import { visibilityScopeOf } from '../user/directory.service';
import { membershipOf } from '../org/guard';

/** One event as a feed shows it. */
export interface FeedEntry {
  row: ActionModel;
  /** The feed's owner (Gitea's receiving user_id). */
  userId: number;
  actUser: UserModel | null;
  repo: RepoView | null;
  comment: { row: CommentModel; issue: IssueModel } | null;
}

/** Paging and the `date` filter (YYYY-MM-DD, the server's day; anything else is ignored, as Gitea). */
export interface FeedQuery { date?: string; limit: number; offset: number }

/** The server-local day `date` names, in Unix seconds, or null. */
function dayOf(date: string | undefined): { from: number; to: number } | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date ?? '');
  if (!m) return null;
  const start = new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  if (Number.isNaN(start.getTime()) || start.getDate() !== Number(m[3])) return null;
  const from = Math.floor(start.getTime() / 1000);
  return { from, to: from + 86_399 };
}

/** How much of a feed `p` sees. */
interface Sight { includePrivate: boolean; allActors: boolean }

async function feed(ctx: DbContext, p: Principal, scope: FeedScope, sight: Sight, q: FeedQuery, userIdOf: (a: ActionModel) => number): Promise<{ entries: FeedEntry[]; count: number }> {
  const admin = !!p.user?.isAdmin && !p.scopes?.publicOnly;
  const day = dayOf(q.date);
  const me = p.user?.id ?? 0;
  const visibleActors = admin || sight.allActors ? null : `((hide_activity = false AND ${visibleUsersSql(visibilityScopeOf(p))}) OR id = ${Number(me)})`;
  const { rows, count } = await findFeed(ctx, {
    scope, includePrivate: sight.includePrivate, visibleActors,
    readableRepos: admin ? null : visibleRepoIdsSql(await repoVisibility(ctx, p)),
    ...(day ?? {}), limit: q.limit, offset: q.offset,
  });
  return { entries: await entriesOf(ctx, p, rows, userIdOf), count };
}

/** The users, repositories (as `p` sees them) and comments of a page of events, read once each. */
async function entriesOf(ctx: DbContext, p: Principal, rows: ActionModel[], userIdOf: (a: ActionModel) => number): Promise<FeedEntry[]> {
  const users = new Map((await findUsersByIds(ctx, rows.map((r) => r.actUserId))).map((u) => [u.id, u]));
  const repos = await findReposByIds(ctx, rows.map((r) => r.repoId));
  const owners = new Map((await findUsersByIds(ctx, repos.map((r) => r.ownerId))).map((u) => [u.id, u]));
  const views = new Map<number, RepoView>();
  for (const r of repos) {
    const owner = owners.get(r.ownerId);
    if (owner) views.set(r.id, await viewOf(ctx, p, r, owner));
  }
  const comments = await findCommentsByIds(ctx, rows.map((r) => r.commentId).filter((id) => id > 0));
  const issues = new Map((await findIssuesByIds(ctx, comments.map((c) => c.issueId))).map((i) => [i.id, i]));
  const byComment = new Map(comments.flatMap((c) => (issues.has(c.issueId) ? [[c.id, { row: c, issue: issues.get(c.issueId)! }] as const] : [])));
  return rows.map((row) => ({
    row, userId: userIdOf(row), actUser: users.get(row.actUserId) ?? null, repo: views.get(row.repoId) ?? null, comment: byComment.get(row.commentId) ?? null,
  }));
}

/**
 * A user's feed (an organization's too, as Gitea accepts it): its own acts and its watched
 * repositories' events (an organization: its repositories'), or with `onlyPerformedBy` its own acts
 * only. The user itself and site admins see private repositories' events it can read.
 */
export function userFeed(ctx: DbContext, p: Principal, user: UserModel, onlyPerformedBy: boolean, q: FeedQuery): Promise<{ entries: FeedEntry[]; count: number }> {
  const self = !!p.user && (p.user.isAdmin || p.user.id === user.id) && !p.scopes?.publicOnly;
  const scope: FeedScope = { kind: 'user', userId: user.id, isOrg: user.type === UserType.Organization, onlyPerformedBy };
  return feed(ctx, p, scope, { includePrivate: self, allActors: self }, q, () => user.id);
}

/** An organization's feed: its repositories' events; private ones for its members and site admins. */
export async function orgFeed(ctx: DbContext, p: Principal, org: UserModel, q: FeedQuery): Promise<{ entries: FeedEntry[]; count: number }> {
  const member = !!p.user && !p.scopes?.publicOnly && (p.user.isAdmin || (await membershipOf(ctx, org.id, p.user.id)) !== 'none');
  return feed(ctx, p, { kind: 'org', orgId: org.id }, { includePrivate: member, allActors: false }, q, () => org.id);
}

/** A team's feed (its members, the organization's owners and site admins: resolveTeam checked): the events of the team's repositories. */
export function teamFeed(ctx: DbContext, p: Principal, team: TeamModel, q: FeedQuery): Promise<{ entries: FeedEntry[]; count: number }> {
  const scope: FeedScope = { kind: 'team', orgId: team.orgId, teamId: team.id, allRepos: team.includesAllRepositories };
  return feed(ctx, p, scope, { includePrivate: true, allActors: false }, q, () => team.orgId);
}

/** A repository's feed (its readers: repoAssignment checked). */
export function repoFeed(ctx: DbContext, p: Principal, rc: RepoContext, q: FeedQuery): Promise<{ entries: FeedEntry[]; count: number }> {
  return feed(ctx, p, { kind: 'repo', repoId: rc.repo.id }, { includePrivate: true, allActors: false }, q, (a) => a.actUserId);
}

/**
 * A user's heatmap (Gitea's GetUserHeatmapDataByUser): its acts per 15-minute bucket over the
 * last year and a week (an organization's: every event of its repositories), only in repositories
 * `p` reads (site admins: all). Empty when the user keeps its activity private, except for itself
 * and site admins.
 */
export async function userHeatmap(ctx: DbContext, p: Principal, user: UserModel): Promise<HeatmapBucket[]> {
  const admin = !!p.user?.isAdmin && !p.scopes?.publicOnly;
  if (user.hideActivity && !admin && p.user?.id !== user.id) return [];
  const since = Math.floor(Date.now() / 1000) - (366 + 7) * 86_400;
  const readableRepos = admin ? null : visibleRepoIdsSql(await repoVisibility(ctx, p));
  const isOrg = user.type === UserType.Organization;
  return heatmapBuckets(ctx, { ...(isOrg ? { orgId: user.id } : { actorId: user.id }), readableRepos, since });
}
