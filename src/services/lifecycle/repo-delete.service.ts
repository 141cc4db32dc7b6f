/**
 * Deleting a repository: its rows and counters in one transaction, then what it kept on disk (the
 * git directories, archives, attachments, Actions logs and its avatar).
 */
import { withTx, type DbContext } from '../../db';
import { repoPath } from '../../git/paths';
import { removeRepoDir } from '../../git/init';
import { withRepoLock } from '../../lock';
import type { UserModel } from '../../models/user.model';
import { adjustNumRepos, deleteRepoRows } from '../../models/repository.model';
import { attachmentUuidsOfRepos } from '../../models/attachment.model';
import { logFilesOfRepo } from '../../models/action-run.model';
import { removeAttachmentFiles } from '../storage/attachment-store';
import { removeLog } from '../storage/log-store';
import { removeAvatar } from '../storage/avatar-store';
import { removeArchives } from '../archive/archive.service';
import { assertRepoAdmin } from '../repo/repo.service';
import type { RepoContext } from '../repo/context';
import { notify } from '../notify/notifier';

/** Delete a repository (admins of it): rows, stars, watches and topic links with their counters, and the directory. */
export async function deleteRepo(ctx: DbContext, doer: UserModel, rc: RepoContext): Promise<void> {
  assertRepoAdmin(rc);
  await withRepoLock(rc.repo.id, async () => {
    const attachments = await attachmentUuidsOfRepos(ctx, [rc.repo.id]);
    const logs = await logFilesOfRepo(ctx, rc.repo.id);
    await withTx(ctx, async (tx) => {
      // why: stated before the rows go, it reaches the owner's and the system's hooks (the repository's own go with it).
      await notify.repositoryDeleted(tx, { doer, repo: rc.repo, owner: rc.owner });
      await deleteRepoRows(tx, rc.repo.id);
      await adjustNumRepos(tx, rc.owner.id, -1);
    });
    await removeRepoDir(repoPath(rc.owner.name, rc.repo.name));
    await removeRepoDir(repoPath(rc.owner.name, rc.repo.name, true));
    await removeArchives(rc.repo.id);
    await removeAttachmentFiles(attachments);
    for (const log of logs) await removeLog(log);
    if (rc.repo.avatar) await removeAvatar(rc.repo.avatar, 'repo');
  });
}
