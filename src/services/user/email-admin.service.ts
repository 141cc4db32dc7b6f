/**
 * Every user's email addresses for the site administration (`/admin/emails`, the same search as
 * the API's `GET /admin/emails/search`), and an address activated or deactivated by an
 * administrator as Gitea allows: a primary address carries its account's active state with it.
 */
import { withTx, type DbContext } from '../../db';
import { NotFound, Validation } from '../../errors';
import { findEmailOf, setEmailActivation } from '../../models/email-address.model';
import { searchEmailsForAdmin, updateUserColumns, type EmailWithOwner } from '../../models/user-admin';
import type { UserModel } from '../../models/user.model';
import { dropCachedTokens } from './admin.service';

/** One page of addresses whose address, login name or full name contains `keyword`, by address. */
export function searchAllEmails(ctx: DbContext, keyword: string, limit: number, offset: number): Promise<{ rows: EmailWithOwner[]; count: number }> {
  return searchEmailsForAdmin(ctx, keyword, limit, offset);
}

/**
 * Activate or deactivate a user's address; whether anything changed. As Gitea, the account of a
 * primary address becomes active or inactive with it; an administrator cannot deactivate their own
 * primary address (they would shut themselves out).
 */
export async function setEmailActivationByAdmin(ctx: DbContext, doer: UserModel, uid: number, email: string, activate: boolean): Promise<boolean> {
  // why: one transaction, so the address and its account's state never disagree.
  const changed = await withTx(ctx, async (tx) => {
    const addr = await findEmailOf(tx, uid, email);
    if (!addr) throw new NotFound('The email address does not exist.');
    if (addr.isActivated === activate) return null;
    if (addr.isPrimary && !activate && uid === doer.id) throw new Validation('You cannot deactivate your own primary email address.');
    await setEmailActivation(tx, addr.id, activate);
    if (addr.isPrimary) await updateUserColumns(tx, uid, { isActive: activate });
    return addr;
  });
  // why: a deactivated account's tokens must stop working in every process at once, as after an admin edit.
  if (changed?.isPrimary && !activate) await dropCachedTokens(ctx, uid);
  return changed !== null;
}
