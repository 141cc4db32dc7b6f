/**
 * Mail as a subscriber of the notifier, like webhooks: with [service] ENABLE_NOTIFY_MAIL an event
 * that concerns people queues one `mail.event` job in the change's transaction (event-mail.ts finds
 * the recipients later, on any node). Security notices of an account are queued whenever the
 * mailer is on: they are not notifications a user opted into, but a guard of the account.
 */
import { settings } from '../../config';
import type { DbContext } from '../../db';
import { enqueue, notifyEnqueued } from '../../queue/outbox';
import { othersWatch } from '../../models/watch.model';
import { isDraftTitle } from '../../models/pull-request.model';
import { ActionStatus } from '../../models/action-run.model';
import { ReviewType } from '../../models/review.model';
import type { Subscriber } from '../notify/notifier';
import { queueEmailConfirmation, queueSecurityNotice } from './account-mail';
import { EVENT_TOPIC, expandMailEvent, type IssueAction, type MailEvent } from './event-mail';

const on = () => settings().service.enableNotifyMail;

async function queue(tx: DbContext, e: MailEvent): Promise<void> {
  if (!on()) return;
  await enqueue(tx, EVENT_TOPIC, e);
  if (tx.tx) tx.tx.afterCommit(() => notifyEnqueued());
  else notifyEnqueued();
}

const issueEvent = (issueId: number, doerId: number, action: IssueAction, extra: Partial<Extract<MailEvent, { kind: 'issue' }>> = {}): MailEvent =>
  ({ kind: 'issue', issueId, commentId: 0, doerId, action, mentioned: [], at: Date.now(), ...extra });

const REVIEW_ACTION: Partial<Record<ReviewType, IssueAction>> = { [ReviewType.Approve]: 'approve', [ReviewType.Reject]: 'reject', [ReviewType.Comment]: 'review' };

/** What a security change is called in its notice. */
const SECURITY_CHANGE = {
  password: 'your password was changed',
  'totp-removed': 'two-factor authentication was turned off',
  'security-key-removed': 'a security key was removed',
} as const;

export const mailSubscriber: Subscriber = {
  name: 'mail',
  jobs: { [EVENT_TOPIC]: expandMailEvent },
  // why: a new issue in a repository nobody else watches mails nobody (mentions are seen by the issue service itself).
  async prepare(ctx, event, at) {
    if (event !== 'issueCreated' || !on()) return false;
    return at.doer.emailNotificationsPreference === 'andyourown' || othersWatch(ctx, at.repo, at.doer.id);
  },
  issueCreated: (tx, e) => queue(tx, issueEvent(e.issue.id, e.doer.id, 'new', { mentioned: e.mentioned })),
  // why: as Gitea, a new pull request reaches the repository's watchers even when work in progress.
  pullRequestOpened: (tx, e) => queue(tx, issueEvent(e.issue.id, e.doer.id, 'new', { mentioned: e.mentioned, ignoreWip: true })),
  commentCreated: (tx, e) => queue(tx, issueEvent(e.issue.id, e.doer.id, 'comment', { commentId: e.comment.id, mentioned: e.mentioned })),
  issueStateChanged: (tx, e) => queue(tx, issueEvent(e.issue.id, e.doer.id, e.merged ? 'merge' : e.closed ? 'close' : 'reopen')),
  async issueTitleChanged(tx, e) {
    if (e.issue.isPull && isDraftTitle(e.oldTitle) && !isDraftTitle(e.issue.name)) await queue(tx, issueEvent(e.issue.id, e.doer.id, 'ready_for_review'));
  },
  async issueAssigneesChanged(tx, e) {
    // why: as Gitea, a new assignee hears of it unless they assigned themselves; one removed does not.
    const others = e.added.filter((a) => a.userId !== e.doer.id);
    if (others.length) await queue(tx, issueEvent(e.issue.id, e.doer.id, 'assigned', { only: others.map((a) => a.userId), commentId: others[0].entryId }));
  },
  async pullReviewRequested(tx, e) {
    if (e.added && e.reviewer.id !== e.doer.id) await queue(tx, issueEvent(e.issue.id, e.doer.id, 'review_request', { only: [e.reviewer.id] }));
  },
  async pullReviewed(tx, e) {
    const action = REVIEW_ACTION[e.type];
    if (action) await queue(tx, issueEvent(e.issue.id, e.doer.id, action, { commentId: e.entryId, mentioned: e.mentioned }));
  },
  pullRequestSynchronized: (tx, e) => queue(tx, issueEvent(e.issue.id, e.pusher.id, 'push', { commentId: e.entryId })),
  async releaseChanged(tx, e) {
    // why: as Gitea, only a release published for the first time is announced; drafts and pre-releases are not.
    if (e.action === 'published' && e.firstPublished && !e.release.isDraft && !e.release.isPrerelease) {
      await queue(tx, { kind: 'release', repoId: e.at.repo.id, releaseId: e.release.id, doerId: e.doer.id });
    }
  },
  async workflowRunsChanged(tx, e) {
    for (const c of e.changes) {
      if (c.runAction === 'completed' && c.run.status === ActionStatus.Failure) await queue(tx, { kind: 'run', runId: c.run.id, at: Date.now() });
    }
  },
  async accountSecurityChanged(tx, e) {
    if (settings().mailer.enabled) await queueSecurityNotice(tx, e.user, SECURITY_CHANGE[e.change]);
  },
  emailAddressAdded: (tx, e) => queueEmailConfirmation(tx, e.user, e.email),
};
