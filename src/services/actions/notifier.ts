/**
 * Actions as a subscriber of the notifier: a ref change queues its `actions.push` job. Other events
 * reach Actions with their hook payloads (the webhook subscriber queues `actions.event` when a
 * workflow listens), so one payload serves both.
 */
import type { Subscriber } from '../notify/notifier';
import { ACTIONS_EVENT_TOPIC, actionsWanted } from './events';
import { ACTIONS_PUSH_TOPIC, processActionsEvent, processActionsPush, queueActionsPush } from './trigger';

export const actionsSubscriber: Subscriber = {
  name: 'actions',
  jobs: { [ACTIONS_PUSH_TOPIC]: processActionsPush, [ACTIONS_EVENT_TOPIC]: processActionsEvent },
  prepare: (ctx, event, at) => (event === 'issueCreated' ? actionsWanted(ctx, at.repo.id, 'issues') : Promise.resolve(false)),
  async refsChanged(tx, e) {
    await queueActionsPush(tx, e.repoId, e.pusherId, e.changes);
  },
};
