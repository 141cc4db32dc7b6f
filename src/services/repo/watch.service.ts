/**
 * Watching: subscribing to and unsubscribing from repositories (repository.num_watches changes in
 * the same transaction as the watch row), and the lists of watched repositories and watchers.
 */
import { withTx, isUniqueViolation, type DbContext } from '../../db';
import { Forbidden } from '../../errors';
import { findUsersByIds, type UserModel } from '../../models/user.model';
import { isBlockedEitherWay } from '../../models/user-blocking.model';
import { findWatch, insertWatch, deleteWatch, watchedRepoIds, listWatcherIds } from '../../models/watch.model';
import type { Principal } from '../auth/principal';
import type { RepoContext } from './context';
import { readableRepoPage, usersInOrder, type OwnedRepo } from './visible';

/** Does `doer` watch the repository? */
export async function isWatching(ctx: DbContext, doer: UserModel, rc: RepoContext): Promise<boolean> {
  return (await findWatch(ctx, doer.id, rc.repo.id)) !== null;
}

/** Watch a repository (no-op when already watching); 403 when the doer and the owner block each other. */
export async function watchRepo(ctx: DbContext, doer: UserModel, rc: RepoContext): Promise<void> {
  if (await isBlockedEitherWay(ctx, doer.id, rc.owner.id)) throw new Forbidden('user is blocked');
  try {
    // why: the row and the counter commit together.
    await withTx(ctx, async (tx) => {
      if (!(await findWatch(tx, doer.id, rc.repo.id))) await insertWatch(tx, doer.id, rc.repo.id);
    });
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
  }
}

/** Stop watching a repository (no-op when not watching). */
export async function unwatchRepo(ctx: DbContext, doer: UserModel, rc: RepoContext): Promise<void> {
  await withTx(ctx, (tx) => deleteWatch(tx, doer.id, rc.repo.id));
}

/** One page of the repositories `user` watches that `p` may read. */
export async function watchedBy(ctx: DbContext, p: Principal, user: UserModel, limit: number, offset: number): Promise<{ rows: OwnedRepo[]; count: number }> {
  return readableRepoPage(ctx, p, await watchedRepoIds(ctx, user.id), limit, offset);
}

/** One page of the users watching the repository. */
export async function watchersOf(ctx: DbContext, rc: RepoContext, limit: number, offset: number): Promise<{ rows: UserModel[]; count: number }> {
  const { ids, count } = await listWatcherIds(ctx, rc.repo.id, limit, offset);
  return { rows: await usersInOrder(ctx, ids, findUsersByIds), count };
}
