/**
 * Webhooks as a subscriber of the notifier: each event becomes Gitea's hook event, its tasks
 * written in the change's transaction (payload.ts), and Actions hears the same payloads when a
 * workflow listens (one payload built for both). A push's events wait for the push-effects job,
 * which reads the commits once for its hook payloads and feed entries.
 */
import type { Subscriber } from '../notify/notifier';
import { ReviewType } from '../../models/review.model';
import { emitCommentEvent, emitForkEvent, emitIssueEvent, emitReleaseEvent, emitRepositoryEvent, emitStatusEvent, emitWikiEvent, emitWorkflowEvents, hookContext, type HookContext, type IssueEventKind } from './payload';
import type { IssueView } from '../issue/view';
import { PUSH_EFFECTS_TOPIC, processPushEffects, queuePushEffects } from './push-effects';
import { emitPackageEvent } from './package-event';
import { UserType } from '../../models/user.model';

const REVIEW_EVENT: Partial<Record<ReviewType, IssueEventKind>> = {
  [ReviewType.Approve]: 'review_approved', [ReviewType.Reject]: 'review_rejected', [ReviewType.Comment]: 'review_comment',
};

export const webhookSubscriber: Subscriber = {
  name: 'webhook',
  jobs: { [PUSH_EFFECTS_TOPIC]: processPushEffects },
  // why: a new issue with no hook, watcher or workflow to hear it is created without a transaction; the context is read ahead through the caches.
  prepare: (ctx, event, at) => (event === 'issueCreated' ? hookContext(ctx, at.repo.id, at.doer) : Promise.resolve(null)),
  issueCreated: (tx, e) => emitIssueEvent(tx, e.doer, e.issue, '', 'opened', { view: e.view as IssueView | undefined, context: e.prepared?.of<HookContext>('webhook') ?? null }),
  issueTitleChanged: (tx, e) => emitIssueEvent(tx, e.doer, e.issue, '', 'edited', { changes: { title: { from: e.oldTitle } } }),
  issueBodyChanged: (tx, e) => emitIssueEvent(tx, e.doer, e.issue, '', 'edited', { changes: { body: { from: e.oldBody } } }),
  async issueAssigneesChanged(tx, e) {
    // why: as Gitea, one event per assignee that came or went.
    for (const _ of e.removed) await emitIssueEvent(tx, e.doer, e.issue, 'assign', 'unassigned');
    for (const _ of e.added) await emitIssueEvent(tx, e.doer, e.issue, 'assign', 'assigned');
  },
  issueLabelsChanged: (tx, e) => emitIssueEvent(tx, e.doer, e.issue, 'label', e.cleared ? 'label_cleared' : 'label_updated'),
  issueMilestoneChanged: (tx, e) => emitIssueEvent(tx, e.doer, e.issue, 'milestone', e.milestoneId ? 'milestoned' : 'demilestoned'),
  issueStateChanged: (tx, e) => emitIssueEvent(tx, e.doer, e.issue, '', e.closed ? 'closed' : 'reopened'),
  commentCreated: (tx, e) => emitCommentEvent(tx, e.doer, e.issue, e.comment, 'created'),
  commentEdited: (tx, e) => emitCommentEvent(tx, e.doer, e.issue, e.comment, 'edited', { body: { from: e.oldBody } }),
  commentDeleted: (tx, e) => emitCommentEvent(tx, e.doer, e.issue, e.comment, 'deleted'),
  pullRequestOpened: (tx, e) => emitIssueEvent(tx, e.doer, e.issue, '', 'opened'),
  pullRequestBaseChanged: (tx, e) => emitIssueEvent(tx, e.doer, e.issue, '', 'edited', { changes: { ref: { from: e.oldBase } } }),
  pullRequestSynchronized: (tx, e) => emitIssueEvent(tx, e.pusher, e.issue, 'sync', 'synchronized'),
  pullReviewRequested: (tx, e) => emitIssueEvent(tx, e.doer, e.issue, 'review_request', e.added ? 'review_requested' : 'review_request_removed', { requestedReviewer: e.reviewer }),
  async pullReviewed(tx, e) {
    const kind = REVIEW_EVENT[e.type];
    if (kind) await emitIssueEvent(tx, e.doer, e.issue, kind, 'reviewed', { requestedReviewer: e.doer, review: { type: `pull_request_${kind}`, content: e.body } });
  },
  refsChanged: (tx, e) => queuePushEffects(tx, {
    repoId: e.repoId, pusherId: e.pusherId, fromPush: e.fromPush, found: e.found, commitGraph: e.transport === 'http' || e.transport === 'ssh',
  }),
  commitStatusCreated: (tx, e) => emitStatusEvent(tx, e.at, e.doer, e.status),
  releaseChanged: (tx, e) => emitReleaseEvent(tx, e.at, e.doer, e.release, e.action),
  wikiChanged: (tx, e) => emitWikiEvent(tx, e.at, e.doer, e.action, e.page, e.comment),
  repositoryCreated: (tx, e) => emitRepositoryEvent(tx, e.repo, e.owner, e.doer, 'created'),
  async repositoryForked(tx, e) {
    await emitForkEvent(tx, e.original, e.fork, e.forkOwner, e.doer);
    // why: as Gitea, only a fork into an organization is announced as a new repository.
    if (e.forkOwner.type === UserType.Organization) await emitRepositoryEvent(tx, e.fork, e.forkOwner, e.doer, 'created');
  },
  repositoryDeleted: (tx, e) => emitRepositoryEvent(tx, e.repo, e.owner, e.doer, 'deleted'),
  workflowRunsChanged: (tx, e) => emitWorkflowEvents(tx, e.changes),
  packageChanged: (tx, e) => emitPackageEvent(tx, e.doer, e.action, e.pkg),
};
