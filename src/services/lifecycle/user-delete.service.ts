/**
 * Deleting a user account: its rows in one transaction (with purge, its repositories too), then what
 * it kept on disk (repository directories, archives, attachments, its avatar).
 */
import { withTx, type DbContext } from '../../db';
import { NotFound, Validation } from '../../errors';
import { ownerPath } from '../../git/paths';
import { removeRepoDir } from '../../git/init';
import { UserType, type UserModel } from '../../models/user.model';
import {
  countAdminsLocked, countReposOwnedBy, deleteFollowsOf, deleteRepoRowsOwnedBy, deleteUserRows, findUserForUpdate, orgIdsOfMember, orgsWhereSoleOwner, tokenHashesOf,
} from '../../models/user-admin';
import { attachmentUuidsOfOwner } from '../../models/attachment.model';
import { revokeCachedToken } from '../auth/token-cache';
import { purgeOAuth2OfUser } from '../oauth2/grant.service';
import { checkPassword } from '../auth/credentials';
import { removeAttachmentFiles } from '../storage/attachment-store';
import { removeAvatar } from '../storage/avatar-store';
import { removeArchives } from '../archive/archive.service';
import { lastAdmin, notAnIndividual } from '../user/admin.service';

/**
 * Delete an individual user and what belongs to it (tokens, emails, keys, follows, blocks, badges,
 * memberships). Refused for organizations, the doer, the last administrator, and (without purge)
 * owners of repositories and members of organizations. `doer` is null for the command line.
 */
export async function deleteUser(ctx: DbContext, doer: UserModel | null, target: UserModel, purge: boolean): Promise<void> {
  if (target.type !== UserType.Individual) throw notAnIndividual(target);
  // why: null is the command line (`forge admin user delete`), which has no signed-in doer.
  if (doer && target.id === doer.id) throw new Validation('you cannot delete yourself');
  let purgedRepos: number[] = [];
  let attachments: string[] = [];
  const hashes = await withTx(ctx, async (tx) => {
    const fresh = await findUserForUpdate(tx, target.id);
    if (!fresh) throw new NotFound(`user redirect does not exist [name: ${target.name}]`);
    if (fresh.isAdmin && (await countAdminsLocked(tx)) <= 1) throw lastAdmin(fresh.id);
    if (!purge && (await countReposOwnedBy(tx, fresh.id)) > 0) throw new Validation(`user still has ownership of repositories [uid: ${fresh.id}]`);
    if (!purge && (await orgIdsOfMember(tx, fresh.id)).length > 0) throw new Validation(`user still has membership of organizations [uid: ${fresh.id}]`);
    if (purge) {
      // why: Gitea would delete such an organization; we refuse rather than leave one nobody can administer.
      if ((await orgsWhereSoleOwner(tx, fresh.id)).length > 0) throw new Validation(`user is the last member of owner team [uid: ${fresh.id}]`);
      attachments = await attachmentUuidsOfOwner(tx, fresh.id);
      purgedRepos = await deleteRepoRowsOwnedBy(tx, fresh.id);
    }
    const tokens = await tokenHashesOf(tx, fresh.id);
    // why: as Gitea's DeleteOAuth2RelictsByUserID: the user's applications and every grant by or to them (their tokens die with the commit).
    await purgeOAuth2OfUser(tx, fresh.id);
    await deleteFollowsOf(tx, fresh.id);
    await deleteUserRows(tx, fresh.id);
    return tokens;
  });
  for (const h of hashes) revokeCachedToken(h);
  // why: git data goes after the rows are committed; a crash in between leaves only an unregistered directory,
  // which repository creation already knows to reuse.
  if (purge) {
    await removeRepoDir(ownerPath(target.name));
    for (const id of purgedRepos) await removeArchives(id);
  }
  await removeAttachmentFiles(attachments);
  if (target.avatar) await removeAvatar(target.avatar);
}

/**
 * A user deleting their own account (the account settings page), confirmed with their password
 * (wrong guesses count as failed sign-ins from `ip`): refused for a site administrator (as Gitea:
 * another administrator must do it) and, as an administrator's delete without purge, while they
 * own repositories or belong to organizations.
 */
export async function deleteOwnAccount(ctx: DbContext, ip: string, user: UserModel, password: string): Promise<void> {
  if ((await checkPassword(ctx, ip, user.name, password))?.id !== user.id) throw new Validation('The password you entered is incorrect.');
  if (user.isAdmin) throw new Validation('A site administrator cannot delete their own account.');
  await deleteUser(ctx, null, user, false);
}
