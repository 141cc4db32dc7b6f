/**
 * Blocking (Gitea 1.24): a user or an organization blocks a user. Blocking removes the follows
 * between the two (counters kept in step), the blockee's collaborations on the blocker's
 * repositories and back, and pending repository transfers between them; afterwards follows, team membership and the like are refused.
 */
import { withTx, isUniqueViolation, type DbContext } from '../../db';
import { BadRequest, Validation } from '../../errors';
import { UserType, type UserModel } from '../../models/user.model';
import { isBlocked, insertBlock, deleteBlock, listBlockees, unfollowBothWays, removeCollaborationsBetween } from '../../models/user-blocking.model';
import { findOrgUser } from '../../models/org-user.model';
import { deleteTransfersBetween } from '../../models/repo-transfer.model';

/** One page of the users `blocker` blocks. */
export function listBlocked(ctx: DbContext, blocker: UserModel, limit: number, offset: number): Promise<{ rows: UserModel[]; count: number }> {
  return listBlockees(ctx, blocker.id, limit, offset);
}

/** Does `blocker` block `blockee`? */
export function blocks(ctx: DbContext, blocker: UserModel, blockee: UserModel): Promise<boolean> {
  return isBlocked(ctx, blocker.id, blockee.id);
}

/**
 * `doer` makes `blocker` (itself, or an organization it owns; the route checked that) block
 * `blockee`. 400 for an organization, oneself, an existing block or a member of the blocking organization.
 */
export async function blockUser(ctx: DbContext, doer: UserModel, blocker: UserModel, blockee: UserModel, note: string): Promise<void> {
  if (blockee.type === UserType.Organization) throw new BadRequest('cannot block an organization');
  if (note.length > 255) throw new Validation('[Note]: MaxSize');
  const refuse = () => new BadRequest('cannot block the user');
  if (blocker.id === blockee.id || doer.id === blockee.id) throw refuse();
  try {
    await withTx(ctx, async (tx) => {
      if (await isBlocked(tx, blocker.id, blockee.id)) throw refuse();
      if (blocker.type === UserType.Organization && (await findOrgUser(tx, blocker.id, blockee.id))) throw refuse();
      await unfollowBothWays(tx, blocker.id, blockee.id);
      await removeCollaborationsBetween(tx, blocker.id, blockee.id);
      await deleteTransfersBetween(tx, blocker.id, blockee.id);
      await insertBlock(tx, blocker.id, blockee.id, note);
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw refuse();
    throw err;
  }
}

/** Lift a block; 400 when there is none. */
export async function unblockUser(ctx: DbContext, blocker: UserModel, blockee: UserModel): Promise<void> {
  if (blockee.type === UserType.Organization) throw new BadRequest('cannot block an organization');
  if (!(await deleteBlock(ctx, blocker.id, blockee.id))) throw new BadRequest('cannot unblock the user');
}
