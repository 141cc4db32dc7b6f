/**
 * License detection as a subscriber of the notifier: whatever may change the license files of a
 * repository's default branch queues one `repo.licenses` job in the change's transaction: a push or
 * server-side commit to the default branch (or the first one of an empty repository), a new default
 * branch, a new, generated or adopted repository. A fork starts with its parent's rows (as Gitea's
 * CopyLicense) and is checked again.
 */
import { nowUnix } from '../../models/issue.model';
import { copyRepoLicenses } from '../../models/repo-license.model';
import { findRepoById } from '../../models/repository.model';
import type { Subscriber } from '../notify/notifier';
import { LICENSES_TOPIC, processLicenseJob, queueLicenseUpdate } from './license.service';

const HEADS = 'refs/heads/';

export const licenseSubscriber: Subscriber = {
  name: 'license',
  jobs: { [LICENSES_TOPIC]: processLicenseJob },
  async refsChanged(tx, e) {
    const branches = e.changes.filter((c) => c.refName.startsWith(HEADS));
    if (branches.length === 0) return;
    // why: the row as the sync found it; its state (emptiness, default branch) is written after this event.
    const repo = await findRepoById(tx, e.repoId);
    if (!repo) return;
    if (repo.isEmpty || branches.some((c) => c.refName === HEADS + repo.defaultBranch)) await queueLicenseUpdate(tx, repo.id);
  },
  repositoryCreated: (tx, e) => queueLicenseUpdate(tx, e.repo.id),
  repositoryDefaultBranchChanged: (tx, e) => queueLicenseUpdate(tx, e.repo.id),
  async repositoryForked(tx, e) {
    await copyRepoLicenses(tx, e.original.id, e.fork.id, nowUnix());
    await queueLicenseUpdate(tx, e.fork.id);
  },
};
