/** The issue tracker as a subscriber of the notifier: a push's commits may reference and close issues. */
import type { Subscriber } from '../notify/notifier';
import { COMMIT_REFS_TOPIC, processCommitRefs, queueCommitRefs } from './commit-refs';

export const issueSubscriber: Subscriber = {
  name: 'issue',
  jobs: { [COMMIT_REFS_TOPIC]: processCommitRefs },
  refsChanged: (tx, e) => queueCommitRefs(tx, e.repoId, e.pusherId, e.fromPush),
};
