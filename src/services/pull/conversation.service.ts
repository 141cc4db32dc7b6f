/**
 * The conversations on a pull request's code: its line comments grouped by file and line into
 * threads (as Gitea's FetchCodeConversations), a reply that joins a thread at once, and marking a
 * thread resolved or not. The pages show threads on the lines of Files changed and in the
 * conversation; the API shows the same comments per review.
 */
import { withTx, type DbContext } from '../../db';
import { BadRequest, Forbidden, NotFound, Validation } from '../../errors';
import { commentsOfReviews, CommentType, findCommentById, insertComment, saveComment, type CommentModel } from '../../models/comment.model';
import { ReviewType, type ReviewModel } from '../../models/review.model';
import type { UserModel } from '../../models/user.model';
import { assertNotBlocked, canWriteIssues } from '../issue/access';
import { recordMentions } from '../issue/mention';
import { usersById } from '../issue/view';
import { assertNotArchived } from '../repo/access';
import type { RepoContext } from '../repo/context';
import { pullByIndex } from './pull.service';
import { listPullReviews } from './review.service';
import { notify } from '../notify/notifier';

/** The comments on one line of one file, oldest first. */
export interface CodeThread {
  path: string;
  /** The line: of the new file when positive, of the old file when negative. */
  line: number;
  comments: CommentModel[];
  /** Who resolved the thread (its first comment carries the mark, as in Gitea), or null. */
  resolver: UserModel | null;
  /** The line changed since: the thread no longer sits on the current diff. */
  outdated: boolean;
  /** Only comments of the viewer's pending review: not yet shown to anyone else. */
  pending: boolean;
}

/** Threads of a pull request the caller may see, with its reviews and the users they name. */
export interface Conversations { threads: CodeThread[]; reviews: ReviewModel[]; user: (id: number) => UserModel | null }

/** Every code thread of a pull request the caller may see (others' pending comments left out). */
export async function codeConversations(ctx: DbContext, doer: UserModel | null, rc: RepoContext, index: number): Promise<Conversations> {
  const { reviews } = await listPullReviews(ctx, doer, rc, index);
  const rows = await commentsOfReviews(ctx, reviews.map((r) => r.id), [CommentType.Code]);
  const pendingIds = new Set(reviews.filter((r) => r.type === ReviewType.Pending).map((r) => r.id));
  const user = await usersById(ctx, [...rows.flatMap((c) => [c.posterId, c.resolveDoerId]), ...reviews.map((r) => r.reviewerId)]);
  const threads = new Map<string, CodeThread>();
  for (const c of [...rows].sort((a, b) => a.id - b.id)) {
    const key = `${c.treePath}\0${c.line}`;
    let t = threads.get(key);
    if (!t) {
      t = { path: c.treePath, line: c.line, comments: [], resolver: c.resolveDoerId ? user(c.resolveDoerId) : null, outdated: c.invalidated, pending: true };
      threads.set(key, t);
    }
    t.comments.push(c);
    if (!pendingIds.has(c.reviewId)) t.pending = false;
  }
  const sorted = [...threads.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : Math.abs(a.line) - Math.abs(b.line)));
  return { threads: sorted, reviews, user };
}

/** A code comment of the pull request the caller may see; 404 otherwise. */
async function threadStart(ctx: DbContext, doer: UserModel, rc: RepoContext, index: number, commentId: number): Promise<{ first: CommentModel; comment: CommentModel }> {
  const comment = Number.isSafeInteger(commentId) && commentId > 0 ? await findCommentById(ctx, commentId) : null;
  const { issue } = await pullByIndex(ctx, rc, index);
  if (!comment || comment.issueId !== issue.id) throw new NotFound('comment does not exist');
  if (comment.type !== CommentType.Code) throw new BadRequest('only a comment on code starts a conversation');
  const { threads } = await codeConversations(ctx, doer, rc, index);
  const thread = threads.find((t) => t.comments.some((c) => c.id === comment.id));
  if (!thread) throw new NotFound('comment does not exist');
  return { first: thread.comments[0], comment };
}

/**
 * Reply to a thread: a comment on the same file and line, in the review of the comment replied
 * to, shown at once (Gitea's reply outside a pending review).
 */
export async function replyToThread(ctx: DbContext, doer: UserModel, rc: RepoContext, index: number, commentId: number, body: string | undefined): Promise<CommentModel> {
  assertNotArchived(rc);
  if (!body?.trim()) throw new Validation('[Body]: Required');
  const { first } = await threadStart(ctx, doer, rc, index, commentId);
  const { issue } = await pullByIndex(ctx, rc, index);
  if (issue.isLocked && !canWriteIssues(rc, true) && !doer.isAdmin) throw new Forbidden('You cannot comment on a locked pull request.');
  await assertNotBlocked(ctx, rc, doer, [issue.posterId, first.posterId]);
  return withTx(ctx, async (tx) => {
    const c = await insertComment(tx, {
      type: CommentType.Code, issueId: issue.id, posterId: doer.id, content: body, treePath: first.treePath, line: first.line,
      commitSha: first.commitSha, patch: first.patch, invalidated: first.invalidated, reviewId: first.reviewId,
    });
    const mentioned = await recordMentions(tx, rc, issue, doer, body);
    await notify.commentCreated(tx, { doer, issue, comment: c, mentioned });
    return c;
  });
}

/**
 * Mark a thread resolved or open again: the pull request's poster or a writer of pull requests
 * may (Gitea's CanMarkConversation); the mark sits on the thread's first comment.
 */
export async function markThread(ctx: DbContext, doer: UserModel, rc: RepoContext, index: number, commentId: number, resolve: boolean): Promise<void> {
  assertNotArchived(rc);
  const { first } = await threadStart(ctx, doer, rc, index, commentId);
  const { issue } = await pullByIndex(ctx, rc, index);
  if (doer.id !== issue.posterId && !canWriteIssues(rc, true)) throw new Forbidden('only the poster of the pull request or a writer may resolve a conversation');
  await assertNotBlocked(ctx, rc, doer, [issue.posterId]);
  if ((first.resolveDoerId !== 0) === resolve) return;
  first.resolveDoerId = resolve ? doer.id : 0;
  await saveComment(ctx, first);
}
