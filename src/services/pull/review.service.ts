/**
 * Pull request reviews (`/pulls/{index}/reviews`): list, create (pending or submitted, with
 * comments on lines of the diff), get, submit a pending review, delete, dismiss and undismiss,
 * with Gitea's event rules and messages. A review is official when its reviewer may approve under
 * the base branch's protection rule (the rule's approvals allow-list, else write on the code); a
 * reviewer's new approval or change request replaces their earlier ones and answers their review
 * request (and their teams').
 */
import { resolveCrossRefs, writeCrossRefs, type CrossRef } from '../issue/xref';
import { withTx, type DbContext } from '../../db';
import { Forbidden, HttpError, Validation } from '../../errors';
import { sameChanges, mergeBase } from '../../git/history';
import { cutDiffAroundLine, fileDiff, lineBlame } from '../../git/line-context';
import { objectInfo } from '../../git/objects';
import { repoPath } from '../../git/paths';
import { refId } from '../../git/ref-info';
import { codeCommentCounts, commentsOfReviews, CommentType, insertComment, reviewEntryIds, type CommentModel } from '../../models/comment.model';
import type { IssueModel } from '../../models/issue.model';
import { AccessMode, UnitType } from '../../models/perm';
import { idList } from '../../models/protected-tag.model';
import { teamsByIds, teamsOfUserInOrg, type TeamModel } from '../../models/team.model';
import { isTeamMember } from '../../models/team-user.model';
import type { PullRequestModel } from '../../models/pull-request.model';
import {
  clearOfficial, deleteAnsweredRequests, deleteReviews, dismissEarlierVerdicts, findPendingReview, findReview, insertReview, latestVerdictOrRequest,
  listReviews, saveReview, ReviewType, type ReviewModel,
} from '../../models/review.model';
import { UserType, type UserModel } from '../../models/user.model';
import { asUser } from '../auth/principal';
import { assertNotBlocked } from '../issue/access';
import { deleteCommentsWithLinks } from '../issue/comment.service';
import { record } from '../issue/history';
import { recordMentions } from '../issue/mention';
import { usersById } from '../issue/view';
import { repoPermission } from '../perm/permission';
import type { RepoContext } from '../repo/context';
import { assertNotArchived, isRepoAdmin } from '../repo/access';
import { ruleForBranch } from '../refs/branch-protection.service';
import { removeAttachmentFiles } from '../storage/attachment-store';
import { teamUnits } from '../org/team.service';
import { queueAutoMerges } from './auto-merge.service';
import { headRefOf } from './check';
import { assertPullsReadable, pullByIndex } from './pull.service';
import { notify } from '../notify/notifier';

/** A comment on a line of the diff, as `POST /pulls/{index}/reviews` takes it. */
export interface LineCommentRequest { path?: string; body?: string; old_position?: number; new_position?: number }

/** The body of `POST /pulls/{index}/reviews` (and of a submission). */
export interface ReviewRequest { body?: string; event?: string; commit_id?: string; comments?: LineCommentRequest[] }

/** How many diff lines a line comment keeps, ending at its line (Gitea's [ui] CODE_COMMENT_LINES). */
const CODE_COMMENT_LINES = 4;

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
export async function isOfficialReviewer(ctx: DbContext, rc: RepoContext, pr: Pick<PullRequestModel, 'baseBranch'>, user: UserModel): Promise<boolean> {
  const rule = await ruleForBranch(ctx, rc.repo.id, pr.baseBranch);
  if (!rule || !rule.enableApprovalsAllowlist) {
    return (await repoPermission(ctx, asUser(user), rc.repo, rc.owner)).can(UnitType.Code, AccessMode.Write);
  }
  if (idList(rule.approvalsAllowlistUserIds).includes(user.id)) return true;
  for (const teamId of idList(rule.approvalsAllowlistTeamIds)) if (await isTeamMember(ctx, teamId, user.id)) return true;
  return false;
}

/**
 * After a reviewer's review or request was removed: their latest remaining verdict or request takes
 * the official flag back when they are an official reviewer (Gitea's restoreLatestOfficialReview).
 */
export async function restoreOfficial(tx: DbContext, issueId: number, reviewerId: number, official: boolean): Promise<void> {
  if (!official) return;
  const latest = await latestVerdictOrRequest(tx, issueId, reviewerId);
  if (latest && !latest.official) {
    latest.official = true;
    await saveReview(tx, latest);
  }
}

/** May the caller see the review: any submitted one, a pending one only its reviewer or a site admin. */
function visible(doer: UserModel | null, r: ReviewModel): boolean {
  return r.type !== ReviewType.Pending || !!(doer && (doer.isAdmin || doer.id === r.reviewerId));
}

/** Reviews of a pull request the caller may see (and the count of all of them, as Gitea's total). */
export async function listPullReviews(ctx: DbContext, doer: UserModel | null, rc: RepoContext, index: number): Promise<{ reviews: ReviewModel[]; total: number }> {
  assertPullsReadable(rc);
  const { issue } = await pullByIndex(ctx, rc, index);
  const all = await listReviews(ctx, issue.id);
  return { reviews: all.filter((r) => visible(doer, r)), total: all.length };
}

/** One review of the pull request; 404 in Gitea's words otherwise (others' pending reviews included). */
export async function getPullReview(ctx: DbContext, doer: UserModel | null, rc: RepoContext, index: number, id: number): Promise<{ pr: PullRequestModel; issue: IssueModel; review: ReviewModel }> {
  assertPullsReadable(rc);
  const { pr, issue } = await pullByIndex(ctx, rc, index);
  const review = await findReview(ctx, id);
  if (!review) throw new HttpError(404, 'GetReviewByID', {}, { errors: [`review does not exist [id: ${id}]`] });
  if (review.issueId !== issue.id) throw new HttpError(404, 'ReviewNotInPR');
  if (!visible(doer, review)) throw new HttpError(404, 'GetReviewByID');
  return { pr, issue, review };
}

/** The pull request's head commit in the base repository. */
async function headOf(rc: RepoContext, pr: PullRequestModel): Promise<string> {
  return (await refId(repoPath(rc.owner.name, rc.repo.name), headRefOf(pr))) ?? '';
}

/** Is a verdict on `commit` stale: another commit than the head, bringing other changes onto the base? */
async function staleVerdict(rc: RepoContext, pr: PullRequestModel, commit: string, head: string): Promise<boolean> {
  if (!head || commit === head) return false;
  const dir = repoPath(rc.owner.name, rc.repo.name);
  const base = await refId(dir, `refs/heads/${pr.baseBranch}`);
  return !base || !(await sameChanges(dir, base, commit, head));
}

/**
 * Turn a review into a submitted one of `type` (in the caller's transaction): the official flag,
 * the verdicts and review requests it replaces, the timeline entry.
 */
async function submit(
  tx: DbContext, rc: RepoContext, doer: UserModel, pr: PullRequestModel, issue: IssueModel, review: ReviewModel, type: ReviewType, body: string, commit: string, stale: boolean, refs: CrossRef[],
): Promise<void> {
  const verdict = type === ReviewType.Approve || type === ReviewType.Reject;
  const official = verdict && (await isOfficialReviewer(tx, rc, pr, doer));
  if (official) await clearOfficial(tx, issue.id, doer.id);
  Object.assign(review, { type, content: body, commitId: commit, official, stale: verdict && stale });
  await saveReview(tx, review);
  if (verdict) {
    await dismissEarlierVerdicts(tx, issue.id, doer.id, review.id);
    const teams = rc.owner.type === UserType.Organization ? await teamsOfUserInOrg(tx, rc.owner.id, doer.id) : [];
    await deleteAnsweredRequests(tx, issue.id, doer.id, teams.map((t) => t.id));
    await queueAutoMerges(tx, [pr.id]);
  }
  const entry = await record(tx, { type: CommentType.Review, issueId: issue.id, posterId: doer.id, content: body, reviewId: review.id });
  await writeCrossRefs(tx, doer, { issueId: issue.id, repoId: issue.repoId, isPull: true, commentId: entry.id }, refs, false);
  const lines = await commentsOfReviews(tx, [review.id], [CommentType.Code]);
  const mentioned = await recordMentions(tx, rc, issue, doer, [body, ...lines.map((c) => c.content)].join('\n'));
  await notify.pullReviewed(tx, { doer, issue, type, body, verdict: !!verdict, entryId: entry.id, lineComments: lines, mentioned });
}

/** The issues a review's body references (read before its transaction). */
function reviewRefs(ctx: DbContext, doer: UserModel, rc: RepoContext, body: string): Promise<CrossRef[]> {
  return resolveCrossRefs(ctx, doer, { repoId: rc.repo.id, isPull: true, comment: true }, '', body);
}

/** The hook event of a submitted review of each type (pending reviews and requests send none). */

/** A line comment checked and placed: its signed line (negative: old side), blamed commit and kept diff lines. */
interface PlacedComment { path: string; body: string; line: number; commit: string; patch: string }

/** Check line comments and find what each keeps; 422 for one without a path, body or line, or on a file the pull request does not change. */
async function placeComments(rc: RepoContext, pr: PullRequestModel, commit: string, comments: LineCommentRequest[]): Promise<PlacedComment[]> {
  const dir = repoPath(rc.owner.name, rc.repo.name);
  const base = pr.mergeBase || (await mergeBase(dir, `refs/heads/${pr.baseBranch}`, commit)) || '';
  const out: PlacedComment[] = [];
  // why: one git diff per file, however many of its lines are commented.
  const diffs = new Map<string, string>();
  for (const [k, c] of comments.entries()) {
    const path = typeof c?.path === 'string' ? c.path.replace(/^\/+/, '') : '';
    const body = typeof c?.body === 'string' ? c.body : '';
    const oldLine = Number(c?.old_position ?? 0);
    const newLine = Number(c?.new_position ?? 0);
    if (!path || path.startsWith('-') || /[\0\r\n]/.test(path)) throw new Validation(`[Comments[${k}].Path]: Required`);
    if (!body.trim()) throw new Validation(`[Comments[${k}].Body]: Required`);
    const old = Number.isSafeInteger(oldLine) && oldLine > 0;
    if (!old && !(Number.isSafeInteger(newLine) && newLine > 0)) throw new Validation(`comment ${k} needs a line: new_position or old_position above 0`);
    if (!diffs.has(path)) diffs.set(path, base ? await fileDiff(dir, base, commit, path) : '');
    const diff = diffs.get(path)!;
    if (!diff) throw new Validation(`the pull request does not change ${path}`);
    const line = old ? oldLine : newLine;
    // why: as Gitea, a comment on the new side names the commit that last changed its line; the old side's line is the merge base's.
    const blamed = old ? null : await lineBlame(dir, commit, path, line);
    out.push({
      path, body, line: old ? -line : blamed?.line ?? line, commit: old ? base : blamed?.commit ?? commit,
      patch: cutDiffAroundLine(diff, line, old, CODE_COMMENT_LINES),
    });
  }
  return out;
}

/** The commit a review is made on: `commit_id` when given (a commit of the repository), else the head. */
async function reviewedCommit(rc: RepoContext, pr: PullRequestModel, given: string | undefined): Promise<string> {
  if (!given) return headOf(rc, pr);
  const [info] = /^[0-9a-f]{40}([0-9a-f]{24})?$/.test(given) ? await objectInfo(repoPath(rc.owner.name, rc.repo.name), [`${given}^{commit}`]) : [null];
  if (!info) throw new Validation(`commit_id ${JSON.stringify(given)} is not a commit of the repository`);
  return info.oid;
}

/** Create a review: pending, or submitted at once; its line comments join the reviewer's pending review first. */
export async function createPullReview(ctx: DbContext, doer: UserModel, rc: RepoContext, index: number, o: ReviewRequest): Promise<ReviewModel> {
  assertPullsReadable(rc);
  assertNotArchived(rc);
  const { pr, issue } = await pullByIndex(ctx, rc, index);
  const comments = Array.isArray(o.comments) ? o.comments : [];
  const body = o.body ?? '';
  const type = reviewType(o.event, body, issue.posterId === doer.id, comments.length > 0);
  if ((type === ReviewType.Approve || type === ReviewType.Reject) && (issue.isClosed || pr.hasMerged)) throw new Validation("can't submit review for a closed or merged PR");
  await assertNotBlocked(ctx, rc, doer, [issue.posterId]);
  const commit = await reviewedCommit(rc, pr, o.commit_id);
  const placed = await placeComments(rc, pr, commit, comments);
  const stale = type === ReviewType.Approve || type === ReviewType.Reject ? await staleVerdict(rc, pr, commit, await headOf(rc, pr)) : false;
  const refs = type === ReviewType.Pending ? [] : await reviewRefs(ctx, doer, rc, body);
  return withTx(ctx, async (tx) => {
    const review = (await findPendingReview(tx, issue.id, doer.id)) ?? (await insertReview(tx, { type: ReviewType.Pending, issueId: issue.id, reviewerId: doer.id, commitId: commit }));
    for (const c of placed) {
      await insertComment(tx, { type: CommentType.Code, issueId: issue.id, posterId: doer.id, content: c.body, treePath: c.path, line: c.line, commitSha: c.commit, patch: c.patch, reviewId: review.id });
    }
    if (type === ReviewType.Pending) {
      review.content = body;
      await saveReview(tx, review);
      await record(tx, { type: CommentType.Review, issueId: issue.id, posterId: doer.id, content: body, reviewId: review.id });
      return review;
    }
    await submit(tx, rc, doer, pr, issue, review, type, body, commit, stale, refs);
    return review;
  });
}

/**
 * Add a line comment to the caller's pending review (started when there is none), as the web's
 * "Start a review" does: nobody else sees it until the review is submitted.
 */
export async function addPendingLineComment(ctx: DbContext, doer: UserModel, rc: RepoContext, index: number, comment: LineCommentRequest): Promise<ReviewModel> {
  assertPullsReadable(rc);
  assertNotArchived(rc);
  const { pr, issue } = await pullByIndex(ctx, rc, index);
  await assertNotBlocked(ctx, rc, doer, [issue.posterId]);
  const commit = await headOf(rc, pr);
  const [c] = await placeComments(rc, pr, commit, [comment]);
  return withTx(ctx, async (tx) => {
    const review = (await findPendingReview(tx, issue.id, doer.id)) ?? (await insertReview(tx, { type: ReviewType.Pending, issueId: issue.id, reviewerId: doer.id, commitId: commit }));
    await insertComment(tx, { type: CommentType.Code, issueId: issue.id, posterId: doer.id, content: c.body, treePath: c.path, line: c.line, commitSha: c.commit, patch: c.patch, reviewId: review.id });
    return review;
  });
}

/**
 * Submit one's pending review with an event, on the current head. `countLineComments`: its line
 * comments make a comment review without words valid (the web's submit; the API's is stricter).
 */
export async function submitPullReview(ctx: DbContext, doer: UserModel, rc: RepoContext, index: number, id: number, o: ReviewRequest, countLineComments = false): Promise<ReviewModel> {
  assertNotArchived(rc);
  const { pr, issue, review } = await getPullReview(ctx, doer, rc, index, id);
  if (review.type !== ReviewType.Pending) throw new Validation('only a pending review can be submitted');
  const body = o.body ?? '';
  // why: Gitea's API does not count the pending review's line comments here, so COMMENT needs a body.
  const hasLines = countLineComments && (await commentsOfReviews(ctx, [review.id], [CommentType.Code])).length > 0;
  const type = reviewType(o.event, body, issue.posterId === doer.id, hasLines);
  if (type === ReviewType.Pending) throw new Validation('review stay pending');
  if ((type === ReviewType.Approve || type === ReviewType.Reject) && (issue.isClosed || pr.hasMerged)) throw new Validation("can't submit review for a closed or merged PR");
  const head = (await headOf(rc, pr)) || review.commitId;
  const refs = await reviewRefs(ctx, doer, rc, body);
  await withTx(ctx, (tx) => submit(tx, rc, doer, pr, issue, review, type, body, head, false, refs));
  return review;
}

/** Delete a review with its line comments and timeline entries (its reviewer or a site admin); the reviewer's latest remaining verdict becomes official again. */
export async function deletePullReview(ctx: DbContext, doer: UserModel, rc: RepoContext, index: number, id: number): Promise<void> {
  assertNotArchived(rc);
  const { pr, issue, review } = await getPullReview(ctx, doer, rc, index, id);
  if (!doer.isAdmin && doer.id !== review.reviewerId) throw new Forbidden('only the reviewer or a site administrator can delete a review');
  if (review.type === ReviewType.Request) throw new Validation('a review request is withdrawn through DELETE /pulls/{index}/requested_reviewers');
  const reviewer = (await usersById(ctx, [review.reviewerId]))(review.reviewerId);
  const official = !!reviewer && (await isOfficialReviewer(ctx, rc, pr, reviewer));
  const uuids = await withTx(ctx, async (tx) => {
    const uuidsOf = await deleteCommentsWithLinks(tx, await commentsOfReviews(tx, [review.id], [CommentType.Code, CommentType.Review, CommentType.DismissReview]));
    await deleteReviews(tx, [review.id]);
    await restoreOfficial(tx, issue.id, review.reviewerId, official);
    return uuidsOf;
  });
  await removeAttachmentFiles(uuids);
}

/** Dismiss (with a timeline entry; `priors` also the reviewer's earlier verdicts) or undismiss an approval or change request (repository admins). */
export async function dismissPullReview(ctx: DbContext, doer: UserModel, rc: RepoContext, index: number, id: number, dismiss: boolean, message = '', priors = false): Promise<ReviewModel> {
  const { pr, issue, review } = await getPullReview(ctx, doer, rc, index, id);
  if (!isRepoAdmin(rc)) throw new Forbidden('Must be repo admin');
  if (review.type !== ReviewType.Approve && review.type !== ReviewType.Reject) throw new Forbidden("not need to dismiss this review because it's type is not Approve or change request");
  if (issue.isClosed || pr.hasMerged) throw new Forbidden("can't dismiss a review associated to a closed or merged PR");
  await withTx(ctx, async (tx) => {
    review.dismissed = dismiss;
    await saveReview(tx, review);
    if (!dismiss) return;
    if (priors) await dismissEarlierVerdicts(tx, issue.id, review.reviewerId, review.id);
    await record(tx, { type: CommentType.DismissReview, issueId: issue.id, posterId: doer.id, content: message, reviewId: review.id });
  });
  return review;
}

/** The line comments of one review, by path and line. */
export async function listReviewComments(ctx: DbContext, doer: UserModel | null, rc: RepoContext, index: number, id: number): Promise<{ review: ReviewModel; comments: CommentModel[] }> {
  const { review } = await getPullReview(ctx, doer, rc, index, id);
  return { review, comments: await commentsOfReviews(ctx, [review.id], [CommentType.Code]) };
}

/**
 * What the base branch's rule counts for a merge: official approvals and change requests (the
 * latest of each reviewer, not dismissed; stale ones left out when `ignoreStale`) and official
 * review requests still open.
 */
export async function officialVerdicts(ctx: DbContext, issueId: number, ignoreStale: boolean): Promise<{ approvals: number; rejections: number; requests: number }> {
  const latest = new Map<number, ReviewModel>();
  let requests = 0;
  for (const r of await listReviews(ctx, issueId)) {
    if (r.type === ReviewType.Request && r.official) requests += 1;
    if ((r.type === ReviewType.Approve || r.type === ReviewType.Reject) && r.official && !r.dismissed && !(ignoreStale && r.stale)) latest.set(r.reviewerId, r);
  }
  const all = [...latest.values()];
  return { approvals: all.filter((r) => r.type === ReviewType.Approve).length, rejections: all.filter((r) => r.type === ReviewType.Reject).length, requests };
}

/** A review with what its JSON shows. */
export interface ReviewView {
  row: ReviewModel; reviewer: UserModel | null; team: TeamModel | null; teamUnits: Map<UnitType, AccessMode>; entryId: number | null; comments: number;
}

/** Views of reviews: reviewers (or requested teams), timeline entries and line comment counts, in a few queries. */
export async function reviewViews(ctx: DbContext, rows: ReviewModel[]): Promise<ReviewView[]> {
  const user = await usersById(ctx, rows.map((r) => r.reviewerId));
  const entries = await reviewEntryIds(ctx, rows.map((r) => r.id));
  const counts = await codeCommentCounts(ctx, rows.map((r) => r.id));
  const teams = new Map((await teamsByIds(ctx, rows.map((r) => r.reviewerTeamId).filter((id) => id > 0))).map((t) => [t.id, t]));
  const units = await teamUnits(ctx, [...teams.values()]);
  return rows.map((row) => ({
    row, reviewer: row.reviewerId > 0 ? user(row.reviewerId) : null, team: teams.get(row.reviewerTeamId) ?? null, teamUnits: units.get(row.reviewerTeamId) ?? new Map(),
    entryId: entries.get(row.id) ?? null, comments: counts.get(row.id) ?? 0,
  }));
}
