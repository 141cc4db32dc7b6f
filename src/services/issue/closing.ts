/**
 * Closing and reopening issues through keywords: by a merged pull request whose text said
 * `Closes #2` (Gitea's handleCloseCrossReferences) and by pushed commits (./commit-refs.ts). Both
 * go through the issue service's one close path (`changeState`), so the counts, the timeline entry
 * (naming the commit), the feed, the notifications and the `issues` webhook are a manual close's.
 */
import { withTx, type DbContext } from '../../db';
import { HttpError } from '../../errors';
import { closingRefsOf, CommentType } from '../../models/comment.model';
import { lockIssues, type IssueModel } from '../../models/issue.model';
import type { UserModel } from '../../models/user.model';
import { RefAction } from './references';
import { changeState, type StateSource } from './state';

/** One close or reopen asked of an issue. */
export interface StateWish { issueId: number; close: boolean; source: StateSource }

/**
 * Apply close/reopen wishes in order, in the caller's transaction, on issues it locked (`locked`,
 * by id); a wish the issue already fulfils is skipped. An issue that still has open dependencies
 * stays open, as Gitea allows (ErrDependenciesLeft), and the others go on.
 */
export async function applyStateWishes(tx: DbContext, doer: UserModel, locked: Map<number, IssueModel>, wishes: StateWish[]): Promise<number> {
  let changed = 0;
  for (const w of wishes) {
    const issue = locked.get(w.issueId);
    if (!issue || issue.isClosed === w.close) continue;
    try {
      await changeState(tx, issue, doer, w.close, w.close ? CommentType.Close : CommentType.Reopen, w.source);
      changed++;
    } catch (err) {
      // why: changeState refuses (412) before it writes anything, so the transaction goes on.
      if (!(err instanceof HttpError && err.status === 412)) throw err;
    }
  }
  return changed;
}

/**
 * After a merge: close (or reopen) the issues the pull request's title, body and comments named
 * with a keyword, as the merger, the close entry naming the merge's commit. As Gitea 1.24, this
 * happens whatever branch the pull request merged into; the reference itself was only kept with
 * its action when its author could close the issue.
 */
export async function resolvePullReferences(ctx: DbContext, doer: UserModel, pull: { issueId: number; baseRepoId: number }, mergedCommitId: string): Promise<void> {
  const refs = await closingRefsOf(ctx, pull.baseRepoId, pull.issueId);
  if (refs.length === 0) return;
  await withTx(ctx, async (tx) => {
    const locked = new Map((await lockIssues(tx, refs.map((r) => r.issueId))).map((i) => [i.id, i]));
    await applyStateWishes(tx, doer, locked, refs.map((r) => ({
      issueId: r.issueId, close: r.refAction === RefAction.Closes, source: { commitSha: mergedCommitId, repoId: pull.baseRepoId },
    })));
  });
}
