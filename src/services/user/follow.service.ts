/**
 * Following users and organizations. The follow row and both counters (num_following of the
 * follower, num_followers of the followee) change in one transaction.
 */
import { withTx, isUniqueViolation, type DbContext } from '../../db';
import { Forbidden, NotFound, Validation } from '../../errors';
import { findUserByName, listFollowersOf, listFollowingOf, adjustFollowCounters, type UserModel } from '../../models/user.model';
import { isFollowing, insertFollow, deleteFollow } from '../../models/follow.model';
import { isBlockedEitherWay } from '../../models/user-blocking.model';
import type { Principal } from '../auth/principal';
import { visibilityScopeOf } from './directory.service';

/** Page of a list. */
export interface Page { limit: number; offset: number }

/** `doer` follows `target`; repeating it changes nothing. */
export async function followUser(ctx: DbContext, doer: UserModel, target: UserModel): Promise<void> {
  // why: Gitea silently ignores following yourself; we answer 422 so a client learns nothing happened.
  if (doer.id === target.id) throw new Validation('you cannot follow yourself');
  try {
    await withTx(ctx, async (tx) => {
      if (await isBlockedEitherWay(tx, doer.id, target.id)) throw new Forbidden('user is blocked');
      if (await isFollowing(tx, doer.id, target.id)) return;
      await insertFollow(tx, doer.id, target.id);
      await adjustFollowCounters(tx, doer.id, target.id, 1);
    });
  } catch (err) {
    // why: two concurrent follows meet the unique index; the loser's transaction rolled back and the follow exists.
    if (isUniqueViolation(err)) return;
    throw err;
  }
}

/**
 * `doer` stops following the user or organization named `name`; a no-op when not following.
 * why: the target is found whatever its visibility, so a user who went private can still be unfollowed.
 */
export async function unfollowByName(ctx: DbContext, doer: UserModel, name: string): Promise<void> {
  const target = await findUserByName(ctx, name);
  if (!target) throw new NotFound(`user redirect does not exist [name: ${name}]`);
  await withTx(ctx, async (tx) => {
    if ((await deleteFollow(tx, doer.id, target.id)) > 0) await adjustFollowCounters(tx, doer.id, target.id, -1);
  });
}

/** Does `userId` follow `targetId`? */
export function follows(ctx: DbContext, userId: number, targetId: number): Promise<boolean> {
  return isFollowing(ctx, userId, targetId);
}

/** The followers of `user` the caller may see, one page and the total. */
export function followersOf(ctx: DbContext, p: Principal, user: UserModel, page: Page): Promise<{ rows: UserModel[]; count: number }> {
  return listFollowersOf(ctx, user.id, visibilityScopeOf(p), page.limit, page.offset);
}

/** The users and organizations `user` follows that the caller may see, one page and the total. */
export function followingOf(ctx: DbContext, p: Principal, user: UserModel, page: Page): Promise<{ rows: UserModel[]; count: number }> {
  return listFollowingOf(ctx, user.id, visibilityScopeOf(p), page.limit, page.offset);
}
