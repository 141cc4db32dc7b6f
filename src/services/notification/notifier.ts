/**
 * Notifications as a subscriber of the notifier: an event that concerns people queues one
 * `notification.issue` job in the change's transaction (notify.ts), and a worker of any node finds
 * the receivers and writes their threads.
 */
import { isDraftTitle } from '../../models/pull-request.model';
import type { Subscriber } from '../notify/notifier';
import { othersWatch } from '../../models/watch.model';
import { deliverIssueNotification, NOTIFY_TOPIC, queueIssueNotification } from './notify';

export const notificationSubscriber: Subscriber = {
  name: 'notification',
  jobs: { [NOTIFY_TOPIC]: deliverIssueNotification },
  prepare: (ctx, event, at) => (event === 'issueCreated' ? othersWatch(ctx, at.repo, at.doer.id) : Promise.resolve(false)),
  issueCreated: (tx, e) => queueIssueNotification(tx, { issueId: e.issue.id, commentId: 0, doerId: e.doer.id, broadcast: true, targets: [...e.mentioned, ...e.assigned] }),
  // why: as Gitea, a new pull request reaches the repository's watchers even when work in progress.
  pullRequestOpened: (tx, e) => queueIssueNotification(tx, { issueId: e.issue.id, commentId: 0, doerId: e.doer.id, broadcast: true, targets: [...e.mentioned, ...e.assigned], ignoreWip: true }),
  async issueTitleChanged(tx, e) {
    // why: as Gitea, a pull request that stops being work in progress is announced to its followers.
    if (e.issue.isPull && isDraftTitle(e.oldTitle) && !isDraftTitle(e.issue.name)) await queueIssueNotification(tx, { issueId: e.issue.id, commentId: 0, doerId: e.doer.id, broadcast: true, targets: [] });
  },
  async issueAssigneesChanged(tx, e) {
    // why: as Gitea, a new assignee hears of it (unless it assigned itself); one who is removed does not.
    for (const a of e.added) if (a.userId !== e.doer.id) await queueIssueNotification(tx, { issueId: e.issue.id, commentId: a.entryId, doerId: e.doer.id, broadcast: false, targets: [a.userId] });
  },
  // why: as Gitea, a merge's notification points at no comment; a close or reopen at its history entry.
  issueStateChanged: (tx, e) => queueIssueNotification(tx, { issueId: e.issue.id, commentId: e.merged ? 0 : e.entryId, doerId: e.doer.id, broadcast: true, targets: [] }),
  commentCreated: (tx, e) => queueIssueNotification(tx, { issueId: e.issue.id, commentId: e.comment.id, doerId: e.doer.id, broadcast: true, targets: e.mentioned }),
  pullRequestSynchronized: (tx, e) => queueIssueNotification(tx, { issueId: e.issue.id, commentId: e.entryId, doerId: e.pusher.id, broadcast: true, targets: [] }),
  async pullReviewRequested(tx, e) {
    if (e.added) await queueIssueNotification(tx, { issueId: e.issue.id, commentId: 0, doerId: e.doer.id, broadcast: false, targets: [e.reviewer.id] });
  },
  pullReviewed: (tx, e) => queueIssueNotification(tx, { issueId: e.issue.id, commentId: e.entryId, doerId: e.doer.id, broadcast: true, targets: e.mentioned }),
};
