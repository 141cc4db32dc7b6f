/**
 * Subscriptions to an issue: an explicit choice (issue_watch) wins; without one, a user follows
 * an issue they posted, commented on or were mentioned in, or whose repository they watch.
 */
import { withTx, type DbContext } from '../../db';
import { Forbidden, NotFound } from '../../errors';
import { explicitWatch, isParticipant, setWatch, watcherIds } from '../../models/issue-watch';
import { findWatch } from '../../models/watch.model';
import { findUserByName, findUsersByIds, type UserModel } from '../../models/user.model';
import type { IssueModel } from '../../models/issue.model';
import type { RepoContext } from '../repo/context';
import { readableIssue } from './access';

/** Does `user` follow the issue (explicitly, or by taking part or watching its repository)? */
export async function isSubscribed(ctx: DbContext, user: UserModel, issue: IssueModel): Promise<boolean> {
  const explicit = await explicitWatch(ctx, user.id, issue.id);
  if (explicit !== null) return explicit;
  return (await findWatch(ctx, user.id, issue.repoId)) !== null || (await isParticipant(ctx, user.id, issue.id));
}

/** The users explicitly subscribed to an issue: all, or one page. */
export async function listSubscribers(ctx: DbContext, rc: RepoContext, index: number, page?: { limit: number; offset: number }): Promise<{ users: UserModel[]; total: number }> {
  const issue = await readableIssue(ctx, rc, index);
  const { ids, count } = await watcherIds(ctx, issue.id, page?.limit, page?.offset);
  const byId = new Map((await findUsersByIds(ctx, ids)).map((u) => [u.id, u]));
  return { users: ids.map((id) => byId.get(id)).filter((u): u is UserModel => !!u), total: count };
}

/** Whether the caller follows an issue, with the issue for the answer's URLs. */
export async function checkSubscription(ctx: DbContext, doer: UserModel, rc: RepoContext, index: number): Promise<{ issue: IssueModel; subscribed: boolean }> {
  const issue = await readableIssue(ctx, rc, index);
  return { issue, subscribed: await isSubscribed(ctx, doer, issue) };
}

/**
 * Subscribe or unsubscribe a user (themselves, or anyone for site admins); returns whether
 * anything changed (Gitea: 201 when it did, 200 when the user already was in that state).
 */
export async function setSubscription(ctx: DbContext, doer: UserModel, rc: RepoContext, index: number, name: string, watching: boolean): Promise<boolean> {
  const issue = await readableIssue(ctx, rc, index);
  const user = await findUserByName(ctx, name);
  if (!user) throw new NotFound(`user does not exist [uid: 0, name: ${name}]`);
  if (user.id !== doer.id && !doer.isAdmin) throw new Forbidden(`${doer.name} is not permitted to change subscriptions for ${user.name}`);
  if ((await isSubscribed(ctx, user, issue)) === watching) return false;
  await withTx(ctx, (tx) => setWatch(tx, user.id, issue.id, watching));
  return true;
}
