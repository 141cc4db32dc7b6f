/**
 * Making notifications, as Gitea's notification service does, but durable: the change that causes
 * them queues one outbox job in its own transaction, and a worker of any node finds the receivers
 * and writes their threads. A job names its issue, the comment it brought, its doer, whether it
 * goes to everyone who follows the issue (a broadcast: explicit subscribers, participants, and the
 * repository's watchers unless a pull request's title marks it work in progress, less the doer and
 * users who unsubscribed) and the users it targets (mentioned, assigned, asked to review). Nobody
 * who cannot read the issue's unit gets one.
 */
import { systemCtx, withTx, type DbContext } from '../../db';
import { enqueue, notifyEnqueued } from '../../queue/outbox';
import { findIssueById } from '../../models/issue.model';
import { findRepoById } from '../../models/repository.model';
import { findUserById, findUsersByIds, UserType } from '../../models/user.model';
import { followerIds } from '../../models/issue-watch';
import { isDraftTitle } from '../../models/pull-request.model';
import { NotificationSource, upsertIssueNotifications } from '../../models/notification.model';
import { AccessMode } from '../../models/perm';
import { repoPermission } from '../perm/permission';
import { asUser } from '../auth/principal';
import { unitOf } from '../issue/access';

/** The outbox topic of issue notifications. */
export const NOTIFY_TOPIC = 'notification.issue';

/** One event to notify of. */
export interface IssueNotification {
  issueId: number;
  /** The comment the event brought (0: none). */
  commentId: number;
  doerId: number;
  /** To everyone who follows the issue. */
  broadcast: boolean;
  /** To these users too, whether they follow it or not. */
  targets: number[];
  /** A new pull request reaches the repository's watchers even when work in progress (Gitea's rule). */
  ignoreWip?: boolean;
}

/** Queue a notification in `tx` (nothing when it reaches nobody); the node's outbox runner is woken once it commits. */
export async function queueIssueNotification(tx: DbContext, n: IssueNotification): Promise<void> {
  // why: most events are followed by nobody but their doer (one's own issue in one's own repository);
  // a read here spares the job's three writes (queue, claim, done) on the single SQLite writer.
  const followed = n.broadcast && (await followerIds(tx, n.issueId, true)).some((id) => id !== n.doerId);
  if (!followed && n.targets.length === 0) return;
  if (!followed) n = { ...n, broadcast: false };
  await enqueue(tx, NOTIFY_TOPIC, n);
  if (tx.tx) tx.tx.afterCommit(() => notifyEnqueued());
  else notifyEnqueued();
}

/** The outbox handler: write the threads of a queued notification (idempotent: a thread is upserted). */
export async function deliverIssueNotification(payload: unknown): Promise<void> {
  const n = payload as IssueNotification;
  const ctx = systemCtx;
  const issue = await findIssueById(ctx, n.issueId);
  const repo = issue && (await findRepoById(ctx, issue.repoId));
  const owner = repo && (await findUserById(ctx, repo.ownerId));
  if (!issue || !repo || !owner) return;
  const withWatchers = n.ignoreWip || !issue.isPull || !isDraftTitle(issue.name);
  const followers = n.broadcast ? (await followerIds(ctx, issue.id, withWatchers)).filter((id) => id !== n.doerId) : [];
  const users = await findUsersByIds(ctx, [...new Set([...followers, ...n.targets])]);
  const receivers: number[] = [];
  for (const u of users) {
    if (u.type !== UserType.Individual) continue;
    const perm = await repoPermission(ctx, asUser(u), repo, owner);
    if (perm.can(unitOf(issue.isPull), AccessMode.Read)) receivers.push(u.id);
  }
  const source = issue.isPull ? NotificationSource.PullRequest : NotificationSource.Issue;
  await withTx(ctx, (tx) => upsertIssueNotifications(tx, receivers.map((userId) => ({
    userId, repoId: repo.id, issueId: issue.id, source, commentId: n.commentId, updatedBy: n.doerId,
  }))));
}
