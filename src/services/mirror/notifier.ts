/**
 * Mirrors as a subscriber of the notifier: refs that moved (a push, a merge, a web edit, a pull
 * mirror's sync) start the pushes of the repository's sync_on_commit push mirrors.
 */
import type { Subscriber } from '../notify/notifier';
import { queuePushMirrorsOnCommit } from './push-mirror.service';

export const mirrorSubscriber: Subscriber = {
  name: 'mirror',
  async refsChanged(tx, e) {
    if (e.changes.length > 0) await queuePushMirrorsOnCommit(tx, e.repoId);
  },
};
