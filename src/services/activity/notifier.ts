/**
 * Feeds as a subscriber of the notifier: the events a feed shows become action rows in the change's
 * transaction. A new issue's row is written by its creating statement and a push's by the
 * push-effects job (with its hook payloads, from one read of the commits), so neither comes here.
 */
import { ActionType } from '../../models/action.model';
import { ReviewType } from '../../models/review.model';
import type { Subscriber } from '../notify/notifier';
import { commentActivity, mergeActivity, recordActivity, releaseActivity, repoActivity, reviewActivity, stateActivity } from './record';

export const activitySubscriber: Subscriber = {
  name: 'activity',
  issueStateChanged: (tx, e) => recordActivity(tx, [e.merged ? mergeActivity(e.doer.id, e.issue, e.issue.name, false) : stateActivity(e.doer.id, e.issue, e.closed, e.entryId)]),
  commentCreated: (tx, e) => recordActivity(tx, [commentActivity(e.doer.id, e.issue, e.comment.id, e.comment.content)]),
  // why: as Gitea, the feed gets each line comment of a review and its verdict (a comment review only with a body).
  pullReviewed: (tx, e) => recordActivity(tx, [
    ...e.lineComments.map((c) => reviewActivity(e.doer.id, e.issue, 'comment', c.id, c.content)),
    ...(e.verdict || e.body.trim() ? [reviewActivity(e.doer.id, e.issue, verdictOf(e.type), e.entryId, e.body)] : []),
  ]),
  async releaseChanged(tx, e) {
    if (e.firstPublished) await recordActivity(tx, [releaseActivity(e.release.publisherId, e.at.repo.id, e.release.tagName, e.release.title)]);
  },
  repositoryCreated: (tx, e) => recordActivity(tx, [repoActivity(ActionType.CreateRepo, e.doer.id, e.repo.id)]),
  repositoryForked: (tx, e) => recordActivity(tx, [repoActivity(ActionType.CreateRepo, e.doer.id, e.fork.id)]),
  repositoryRenamed: (tx, e) => recordActivity(tx, [repoActivity(ActionType.RenameRepo, e.doer.id, e.repo.id, e.oldName)]),
  repositoryTransferred: (tx, e) => recordActivity(tx, [repoActivity(ActionType.TransferRepo, e.doer.id, e.repo.id, `${e.oldOwnerName}/${e.repo.name}`)]),
};

/** A review type as the feed names its verdict. */
function verdictOf(type: number): 'approve' | 'reject' | 'comment' {
  return type === ReviewType.Approve ? 'approve' : type === ReviewType.Reject ? 'reject' : 'comment';
}
