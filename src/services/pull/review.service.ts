/**
 * Pull request reviews (`/pulls/{index}/reviews`): list, create (pending or submitted), get,
 * submit a pending review, delete, dismiss and undismiss, with Gitea's event rules and messages.
 * A review is official when its reviewer may approve under the base branch's protection rule
 * (the rule's approvals allow-list, else write on the code); a reviewer's new approval or change
 * request replaces their earlier ones.
 */
import { withTx, type DbContext } from '../../db';
import { Forbidden, HttpError, Validation } from '../../errors';
import { CommentType, reviewEntryIds } from '../../models/comment.model';
import { AccessMode, UnitType } from '../../models/perm';
import { idList } from '../../models/protected-tag.model';
import { isTeamMember } from '../../models/team-user.model';
import type { IssueModel } from '../../models/issue.model';
import type { PullRequestModel } from '../../models/pull-request.model';
import {
  dismissEarlierVerdicts, findPendingReview, findReview, insertReview, listReviews, saveReview, ReviewType, type ReviewModel,
} from '../../models/review.model';
import type { UserModel } from '../../models/user.model';
import { asUser } from '../auth/principal';
import { record } from '../issue/history';
import { usersById } from '../issue/view';
import { repoPermission } from '../perm/permission';
import type { RepoContext } from '../repo/context';
import { isRepoAdmin } from '../refs/access';
import { ruleForBranch } from '../refs/branch-protection.service';
import { headRefOf } from './check';
import { pullByIndex } from './merge.service';
import { assertPullsReadable } from './pull.service';
import { refId } from '../../git/ref-info';
import { repoPath } from '../../git/paths';

/** The body of `POST /pulls/{index}/reviews`. */
export interface ReviewRequest { body?: string; event?: string; commit_id?: string; comments?: unknown[] }

const EVENTS: Record<string, ReviewType> = { APPROVED: ReviewType.Approve, REQUEST_CHANGES: ReviewType.Reject, COMMENT: ReviewType.Comment };

/** Gitea's event checks (create and submit); returns the review type the event asks for. */
function reviewType(event: string | undefined, body: string, posterIsDoer: boolean, hasComments: boolean): ReviewType {
  const type = EVENTS[event ?? ''] ?? ReviewType.Pending;
  if (type === ReviewType.Approve && posterIsDoer) throw new Validation('approve your own pull is not allowed');
  if (type === ReviewType.Reject && posterIsDoer) throw new Validation('reject your own pull is not allowed');
  if (type === ReviewType.Reject && !body.trim()) throw new Validation('review event REQUEST_CHANGES requires a body');
  if (type === ReviewType.Comment && !body.trim() && !hasComments) throw new Validation('review event COMMENT requires a body or a comment');
  if (type === ReviewType.Pending && !body.trim()) throw new Validation(`review event ${event ?? ''} requires a body`);
  return type;
}

/** Is `user` an official reviewer of the pull request (Gitea's IsOfficialReviewer)? */
export async function isOfficialReviewer(ctx: DbContext, rc: RepoContext, pr: PullRequestModel, user: UserModel): Promise<boolean> {
  const rule = await ruleForBranch(ctx, rc.repo.id, pr.baseBranch);
  if (!rule || !rule.enableApprovalsAllowlist) {
    return (await repoPermission(ctx, asUser(user), rc.repo, rc.owner)).can(UnitType.Code, AccessMode.Write);
  }
  if (idList(rule.approvalsAllowlistUserIds).includes(user.id)) return true;
  for (const teamId of idList(rule.approvalsAllowlistTeamIds)) if (await isTeamMember(ctx, teamId, user.id)) return true;
  return false;
}

/** Reviews of a pull request the caller may see: every row but others' pending reviews. */
export async function listPullReviews(ctx: DbContext, doer: UserModel | null, rc: RepoContext, index: number): Promise<{ pr: PullRequestModel; issue: IssueModel; reviews: ReviewModel[]; total: number }> {
  assertPullsReadable(rc);
  const { pr, issue } = await pullByIndex(ctx, rc, index);
  const all = await listReviews(ctx, issue.id);
  const visible = all.filter((r) => r.type !== ReviewType.Pending || (doer && (doer.isAdmin || doer.id === r.reviewerId)));
  return { pr, issue, reviews: visible, total: all.length };
}

/** One review of the pull request; 404 in Gitea's words otherwise (others' pending reviews included). */
export async function getPullReview(ctx: DbContext, doer: UserModel | null, rc: RepoContext, index: number, id: number): Promise<{ pr: PullRequestModel; issue: IssueModel; review: ReviewModel }> {
  assertPullsReadable(rc);
  const { pr, issue } = await pullByIndex(ctx, rc, index);
  const review = await findReview(ctx, id);
  if (!review) throw new HttpError(404, 'GetReviewByID', {}, { errors: [`review does not exist [id: ${id}]`] });
  if (review.issueId !== issue.id) throw new HttpError(404, 'ReviewNotInPR');
  if (review.type === ReviewType.Pending && !(doer && (doer.isAdmin || doer.id === review.reviewerId))) throw new HttpError(404, 'GetReviewByID');
  return { pr, issue, review };
}

/** Turn a review into a submitted one of `type` (in the caller's transaction): flags, replaced verdicts, the timeline entry. */
async function submit(tx: DbContext, rc: RepoContext, doer: UserModel, pr: PullRequestModel, issue: IssueModel, review: ReviewModel, type: ReviewType, body: string, commit: string): Promise<void> {
  const verdict = type === ReviewType.Approve || type === ReviewType.Reject;
  if (verdict && (issue.isClosed || pr.hasMerged)) throw new Validation("can't submit review for a closed or merged PR");
  const head = await refId(repoPath(rc.owner.name, rc.repo.name), headRefOf(pr));
  Object.assign(review, {
    type, content: body, commitId: commit, official: verdict ? await isOfficialReviewer(tx, rc, pr, doer) : false,
    stale: verdict && !!head && commit !== head,
  });
  await saveReview(tx, review);
  if (verdict) await dismissEarlierVerdicts(tx, issue.id, doer.id, review.id);
  await record(tx, { type: CommentType.Review, issueId: issue.id, posterId: doer.id, content: body, reviewId: review.id });
}

/** Create a review (pending, or submitted at once); line comments are not taken yet (422). */
export async function createPullReview(ctx: DbContext, doer: UserModel, rc: RepoContext, index: number, o: ReviewRequest): Promise<ReviewModel> {
  assertPullsReadable(rc);
  const { pr, issue } = await pullByIndex(ctx, rc, index);
  if (o.comments?.length) throw new Validation('review comments on lines are not supported yet');
  const body = o.body ?? '';
  const type = reviewType(o.event, body, issue.posterId === doer.id, false);
  const commit = o.commit_id || (await refId(repoPath(rc.owner.name, rc.repo.name), headRefOf(pr))) || '';
  return withTx(ctx, async (tx) => {
    const review = (await findPendingReview(tx, issue.id, doer.id)) ?? (await insertReview(tx, { type: ReviewType.Pending, issueId: issue.id, reviewerId: doer.id, commitId: commit }));
    if (type === ReviewType.Pending) {
      review.content = body;
      await saveReview(tx, review);
      await record(tx, { type: CommentType.Review, issueId: issue.id, posterId: doer.id, content: body, reviewId: review.id });
      return review;
    }
    await submit(tx, rc, doer, pr, issue, review, type, body, commit);
    return review;
  });
}

/** Submit one's pending review with an event. */
export async function submitPullReview(ctx: DbContext, doer: UserModel, rc: RepoContext, index: number, id: number, o: ReviewRequest): Promise<ReviewModel> {
  const { pr, issue, review } = await getPullReview(ctx, doer, rc, index, id);
  if (review.type !== ReviewType.Pending) throw new Validation('only a pending review can be submitted');
  const body = o.body ?? '';
  const type = reviewType(o.event, body, issue.posterId === doer.id, false);
  if (type === ReviewType.Pending) throw new Validation('review stay pending');
  const head = (await refId(repoPath(rc.owner.name, rc.repo.name), headRefOf(pr))) ?? review.commitId;
  await withTx(ctx, (tx) => submit(tx, rc, doer, pr, issue, review, type, body, head));
  return review;
}

/** Dismiss (with a timeline entry) or undismiss an approval or change request (repository admins). */
export async function dismissPullReview(ctx: DbContext, doer: UserModel, rc: RepoContext, index: number, id: number, dismiss: boolean, message = ''): Promise<ReviewModel> {
  const { pr, issue, review } = await getPullReview(ctx, doer, rc, index, id);
  if (!isRepoAdmin(rc)) throw new Forbidden('Must be repo admin');
  if (review.type !== ReviewType.Approve && review.type !== ReviewType.Reject) throw new Forbidden("not need to dismiss this review because it's type is not Approve or change request");
  if (issue.isClosed || pr.hasMerged) throw new Forbidden("can't dismiss a review associated to a closed or merged PR");
  await withTx(ctx, async (tx) => {
    review.dismissed = dismiss;
    await saveReview(tx, review);
    if (dismiss) await record(tx, { type: CommentType.DismissReview, issueId: issue.id, posterId: doer.id, content: message, reviewId: review.id });
  });
  return review;
}

/** The verdicts that count for a merge: official, not dismissed, the latest of each reviewer. */
export async function officialVerdicts(ctx: DbContext, issueId: number, ignoreStale: boolean): Promise<{ approvals: number; rejections: number }> {
  const latest = new Map<number, ReviewModel>();
  for (const r of await listReviews(ctx, issueId)) {
    if ((r.type === ReviewType.Approve || r.type === ReviewType.Reject) && r.official && !r.dismissed && !(ignoreStale && r.stale)) latest.set(r.reviewerId, r);
  }
  const all = [...latest.values()];
  return { approvals: all.filter((r) => r.type === ReviewType.Approve).length, rejections: all.filter((r) => r.type === ReviewType.Reject).length };
}

/** A review with what its JSON shows. */
export interface ReviewView { row: ReviewModel; reviewer: UserModel | null; entryId: number | null }

/** Views of reviews: their reviewers (null for team requests) and timeline entries, in a few queries. */
export async function reviewViews(ctx: DbContext, rows: ReviewModel[]): Promise<ReviewView[]> {
  const user = await usersById(ctx, rows.map((r) => r.reviewerId));
  const entries = await reviewEntryIds(ctx, rows.map((r) => r.id));
  return rows.map((row) => ({ row, reviewer: row.reviewerId > 0 ? user(row.reviewerId) : null, entryId: entries.get(row.id) ?? null }));
}
