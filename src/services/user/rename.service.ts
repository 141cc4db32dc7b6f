/**
 * Renaming a user or an organization, as Gitea's RenameUser: the name rules of a new account, the
 * name free (a change of capitalization only is always free), repositories (rows and directories)
 * following the new owner name, and the old name kept as a redirect (Gitea's `user_redirect`), so
 * old URLs of the account, its repositories and their clones lead to the new ones.
 */
import { withTx, isUniqueViolation, type DbContext } from '../../db';
import { Validation } from '../../errors';
import { ownerPath } from '../../git/paths';
import { dirExists, moveRepoDir } from '../../git/init';
import { findUserByName, type UserModel } from '../../models/user.model';
import { renameOwner } from '../../models/user-admin';
import { addUserRedirect } from '../../models/user-redirect.model';
import { assertUsername } from './validate';

/**
 * Rename `target` to `newName` (422 for a missing, invalid, reserved or taken name; nothing changes
 * then). The same name again changes nothing.
 */
export async function renameAccount(ctx: DbContext, target: UserModel, newName: string): Promise<void> {
  if (typeof newName !== 'string' || newName === '') throw new Validation('[NewName]: Required');
  if (newName === target.name) return;
  assertUsername(newName, 'NewName');
  const taken = new Validation(`user already exists [name: ${newName}]`);
  const caseOnly = newName.toLowerCase() === target.lowerName;
  try {
    await withTx(ctx, async (tx) => {
      // why: a change of capitalization only keeps the same lower_name, which is "taken" by the account itself.
      const other = await findUserByName(tx, newName);
      if (other && other.id !== target.id) throw taken;
      await renameOwner(tx, target.id, newName);
      // why: as Gitea, the old name leads to the account until someone takes it; a new capitalization needs no redirect.
      if (!caseOnly) await addUserRedirect(tx, target.id, target.name, newName);
      // why: repositories live under the owner's name; move them with the row so git URLs follow the rename.
      const from = ownerPath(target.name);
      const to = ownerPath(newName);
      if (from !== to && (await dirExists(from))) await moveRepoDir(from, to);
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw taken;
    throw err;
  }
}
