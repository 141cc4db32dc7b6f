/**
 * Reactions on issues and comments. The allowed contents are `[ui] REACTIONS`; anything else is
 * refused. Adding one the caller already has answers the existing reaction (Gitea's 200).
 */
import { withTx, isUniqueViolation, type DbContext } from '../../db';
import { Forbidden, NotFound, Validation } from '../../errors';
import { settings } from '../../config';
import { findCommentById } from '../../models/comment.model';
import { findIssueById, type IssueModel } from '../../models/issue.model';
import { deleteReaction, findReaction, insertReaction, listReactions, reactionsOnIssue, type ReactionModel, type ReactionTarget } from '../../models/reaction.model';
import { replaceUser, type UserModel } from '../../models/user.model';
import type { RepoContext } from '../repo/context';
import { assertNotBlocked, assertTrackerReadable, canReadIssues, canWriteIssues, readableIssue } from './access';
import { usersById } from './view';

/** A reaction with its user. */
export interface ReactionView { row: ReactionModel; user: UserModel }

/** Where a reaction route points: the issue, or a comment of the repository. */
export type ReactionPlace = { index: number } | { commentId: number };

async function resolve(ctx: DbContext, rc: RepoContext, place: ReactionPlace): Promise<{ issue: IssueModel; target: ReactionTarget; posterIds: number[] }> {
  if ('index' in place) {
    const issue = await readableIssue(ctx, rc, place.index);
    return { issue, target: { issueId: issue.id, commentId: 0 }, posterIds: [issue.posterId] };
  }
  assertTrackerReadable(rc);
  const c = await findCommentById(ctx, place.commentId);
  const issue = c ? await findIssueById(ctx, c.issueId) : null;
  if (!c || !issue || issue.repoId !== rc.repo.id || !canReadIssues(rc, issue.isPull)) throw new NotFound();
  return { issue, target: { issueId: issue.id, commentId: c.id }, posterIds: [issue.posterId, c.posterId] };
}

/** The reactions of an issue or comment (allowed contents only): all, or one page. */
export async function listReactionsOf(ctx: DbContext, rc: RepoContext, place: ReactionPlace, page?: { limit: number; offset: number }): Promise<{ items: ReactionView[]; total: number }> {
  const { target } = await resolve(ctx, rc, place);
  const { rows, count } = await listReactions(ctx, target, settings().ui.reactions, page?.limit, page?.offset);
  const user = await usersById(ctx, rows.map((r) => r.userId));
  // why: a migrated reaction is its source person's, shown by name and service as Gitea shows it, not as the user who migrated.
  const service = rc.repo.originalServiceType === 3 ? 'Gitea' : 'Git';
  return { items: rows.map((row) => ({ row, user: row.originalAuthor ? replaceUser(`${row.originalAuthor}(${service})`) : user(row.userId) })), total: count };
}

async function assertMayReact(ctx: DbContext, doer: UserModel, rc: RepoContext, issue: IssueModel, posterIds: number[], content: string | undefined): Promise<string> {
  if (issue.isLocked && !canWriteIssues(rc, issue.isPull) && !doer.isAdmin) throw new Forbidden('no permission to change reaction');
  const allowed = settings().ui.reactions;
  // why: the specification asks a 422 for a reaction outside the set (Gitea answers 403) with Gitea's words.
  if (!content || !allowed.includes(content)) throw new Validation(`'${content ?? ''}' is not an allowed reaction`);
  await assertNotBlocked(ctx, rc, doer, posterIds);
  return content;
}

/** Add a reaction; `created` is false when the caller already had it (the existing one is answered). */
export async function addReaction(ctx: DbContext, doer: UserModel, rc: RepoContext, place: ReactionPlace, content: string | undefined): Promise<{ view: ReactionView; created: boolean }> {
  const { issue, target, posterIds } = await resolve(ctx, rc, place);
  const type = await assertMayReact(ctx, doer, rc, issue, posterIds, content);
  const existing = await findReaction(ctx, target, doer.id, type);
  if (existing) return { view: { row: existing, user: doer }, created: false };
  try {
    const row = await withTx(ctx, (tx) => insertReaction(tx, target, doer.id, type));
    return { view: { row, user: doer }, created: true };
  } catch (err) {
    // why: two identical requests at once; the unique index lets one in and the other answers it.
    const row = isUniqueViolation(err) ? await findReaction(ctx, target, doer.id, type) : null;
    if (!row) throw err;
    return { view: { row, user: doer }, created: false };
  }
}

/** Remove the caller's reaction (nothing when absent). */
export async function removeReaction(ctx: DbContext, doer: UserModel, rc: RepoContext, place: ReactionPlace, content: string | undefined): Promise<void> {
  const { issue, target } = await resolve(ctx, rc, place);
  if (issue.isLocked && !canWriteIssues(rc, issue.isPull) && !doer.isAdmin) throw new Forbidden('no permission to change reaction');
  if (!content) return;
  await withTx(ctx, (tx) => deleteReaction(tx, target, doer.id, content));
}

/** One content's reactions on an issue or comment, as a page shows them. */
export interface ReactionGroup { content: string; count: number; users: string[]; mine: boolean }

/**
 * The reactions on an issue and all its comments in one query, grouped per comment (0 is the
 * issue itself) and per content in the order `[ui] REACTIONS` lists them.
 */
export async function reactionGroups(ctx: DbContext, rc: RepoContext, index: number, viewerId: number | null): Promise<Map<number, ReactionGroup[]>> {
  const issue = await readableIssue(ctx, rc, index);
  const allowed = settings().ui.reactions;
  const rows = await reactionsOnIssue(ctx, issue.id, allowed);
  const user = await usersById(ctx, rows.map((r) => r.userId));
  const byPlace = new Map<number, Map<string, ReactionGroup>>();
  for (const r of rows) {
    const groups = byPlace.get(r.commentId) ?? new Map<string, ReactionGroup>();
    byPlace.set(r.commentId, groups);
    const g = groups.get(r.type) ?? { content: r.type, count: 0, users: [], mine: false };
    groups.set(r.type, g);
    g.count += 1;
    g.users.push(r.originalAuthor || user(r.userId).name);
    if (r.userId === viewerId && !r.originalAuthor) g.mine = true;
  }
  const order = (a: ReactionGroup, b: ReactionGroup) => allowed.indexOf(a.content) - allowed.indexOf(b.content);
  return new Map([...byPlace].map(([place, groups]) => [place, [...groups.values()].sort(order)]));
}
