/**
 * Pull requests as a subscriber of the notifier: they follow the branches a ref change moved, and a
 * commit status on a scheduled head may let its merge go ahead.
 */
import { systemCtx } from '../../db';
import type { Subscriber } from '../notify/notifier';
import { AUTO_MERGE_TOPIC, processAutoMerge, queueAutoMergesOfHead } from './auto-merge.service';
import { notePullBranchesMoved, PULL_BRANCHES_TOPIC, processBranchesMoved } from './branch-moves';
import { PULL_CHECK_TOPIC, runPullCheck } from './check';

export const pullSubscriber: Subscriber = {
  name: 'pull',
  jobs: {
    [PULL_BRANCHES_TOPIC]: processBranchesMoved, [PULL_CHECK_TOPIC]: (p: unknown) => runPullCheck(systemCtx, (p as { pullId: number }).pullId), [AUTO_MERGE_TOPIC]: processAutoMerge,
  },
  async refsChanged(tx, e) {
    await notePullBranchesMoved(tx, e.repoId, e.pusherId, e.changes);
  },
  commitStatusCreated: (tx, e) => queueAutoMergesOfHead(tx, e.at.repo.id, e.status.sha),
};
