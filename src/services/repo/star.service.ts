/**
 * Stars: starring and unstarring repositories (users.num_stars and repository.num_stars change in
 * the same transaction as the star row), and the lists of starred repositories and stargazers.
 */
import { withTx, isUniqueViolation, type DbContext } from '../../db';
import { Forbidden } from '../../errors';
import { findUsersByIds, type UserModel } from '../../models/user.model';
import { isBlockedEitherWay } from '../../models/user-blocking.model';
import { isStarring, insertStar, deleteStar, starredRepoIds, listStargazers } from '../../models/star.model';
import type { Principal } from '../auth/principal';
import type { RepoContext } from './context';
import { readableRepoPage, usersInOrder, type OwnedRepo } from './visible';

/** Does `doer` star the repository? */
export function isStarred(ctx: DbContext, doer: UserModel, rc: RepoContext): Promise<boolean> {
  return isStarring(ctx, doer.id, rc.repo.id);
}

/** Star a repository (no-op when already starred); 403 when the doer and the owner block each other. */
export async function starRepo(ctx: DbContext, doer: UserModel, rc: RepoContext): Promise<void> {
  if (await isBlockedEitherWay(ctx, doer.id, rc.owner.id)) throw new Forbidden('user is blocked');
  try {
    // why: the row and both counters commit together, so the counters never drift from the rows.
    await withTx(ctx, async (tx) => {
      if (!(await isStarring(tx, doer.id, rc.repo.id))) await insertStar(tx, doer.id, rc.repo.id);
    });
  } catch (err) {
    // a concurrent identical star won the unique index: the repository is starred, as asked.
    if (!isUniqueViolation(err)) throw err;
  }
}

/** Unstar a repository (no-op when not starred). */
export async function unstarRepo(ctx: DbContext, doer: UserModel, rc: RepoContext): Promise<void> {
  await withTx(ctx, (tx) => deleteStar(tx, doer.id, rc.repo.id));
}

/** One page of the repositories `user` starred that `p` may read. */
export async function starredBy(ctx: DbContext, p: Principal, user: UserModel, limit: number, offset: number): Promise<{ rows: OwnedRepo[]; count: number }> {
  return readableRepoPage(ctx, p, await starredRepoIds(ctx, user.id), limit, offset);
}

/** One page of the users who starred the repository. */
export async function stargazersOf(ctx: DbContext, rc: RepoContext, limit: number, offset: number): Promise<{ rows: UserModel[]; count: number }> {
  const { ids, count } = await listStargazers(ctx, rc.repo.id, limit, offset);
  return { rows: await usersInOrder(ctx, ids, findUsersByIds), count };
}
