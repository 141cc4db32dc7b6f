/**
 * Pinned issues and pull requests (separate lists, at most [repository.issue] MAX_PINNED each),
 * and locking an issue's conversation. Both are repository-admin actions; each leaves a history
 * entry.
 */
import { withTx, type DbContext } from '../../db';
import { Forbidden, NotFound, Validation } from '../../errors';
import { settings } from '../../config';
import { withRepoLock } from '../../lock';
import { CommentType } from '../../models/comment.model';
import { lockIssue, saveIssue, type IssueModel } from '../../models/issue.model';
import { deletePin, insertPin, movePin, pinnedIssueIds, pinOrderOf } from '../../models/issue-pin';
import type { UserModel } from '../../models/user.model';
import type { RepoContext } from '../repo/context';
import { isRepoAdmin } from '../repo/access';
import { canReadIssues, canWriteIssues, readableIssue } from './access';
import { record } from './history';
import { issueViewsByIds, namesOf, type IssueView } from './view';

async function adminIssue(ctx: DbContext, rc: RepoContext, index: number): Promise<IssueModel> {
  const issue = await readableIssue(ctx, rc, index);
  if (!isRepoAdmin(rc)) throw new Forbidden('user should be an owner or a collaborator with admin write of a repository');
  return issue;
}

/** The pinned issues (or pull requests) of a repository, in pin order. */
export async function listPinned(ctx: DbContext, rc: RepoContext, isPull: boolean): Promise<IssueView[]> {
  if (!canReadIssues(rc, isPull)) throw new NotFound();
  return issueViewsByIds(ctx, await pinnedIssueIds(ctx, rc.repo.id, isPull), namesOf(rc));
}

/** May another issue, and another pull request, be pinned? */
export async function newPinAllowed(ctx: DbContext, rc: RepoContext): Promise<{ issues: boolean; pull_requests: boolean }> {
  const max = settings().repositoryIssue.maxPinned;
  const [issues, pulls] = await Promise.all([pinnedIssueIds(ctx, rc.repo.id, false), pinnedIssueIds(ctx, rc.repo.id, true)]);
  return { issues: issues.length < max, pull_requests: pulls.length < max };
}

/**
 * Pin an issue at the end of its list. why: the count check and the insert run under the
 * repository's lock, so two pins at once cannot both take the last free place.
 */
export async function pinIssue(ctx: DbContext, doer: UserModel, rc: RepoContext, index: number): Promise<void> {
  const issue = await adminIssue(ctx, rc, index);
  await withRepoLock(rc.repo.id, () => withTx(ctx, async (tx) => {
    if (await pinOrderOf(tx, issue.id)) throw new Validation('issue is already pinned');
    const max = settings().repositoryIssue.maxPinned;
    if ((await pinnedIssueIds(tx, rc.repo.id, issue.isPull)).length >= max) {
      throw new Validation(`the max number of pinned ${issue.isPull ? 'pull requests' : 'issues'} (${max}) has been reached`);
    }
    await insertPin(tx, rc.repo.id, issue.id, issue.isPull);
    await record(tx, { type: CommentType.Pin, issueId: issue.id, posterId: doer.id });
  }));
}

/** Unpin an issue (nothing when it is not pinned). */
export async function unpinIssue(ctx: DbContext, doer: UserModel, rc: RepoContext, index: number): Promise<void> {
  const issue = await adminIssue(ctx, rc, index);
  await withRepoLock(rc.repo.id, () => withTx(ctx, async (tx) => {
    if (!(await pinOrderOf(tx, issue.id))) return;
    await deletePin(tx, issue.id);
    await record(tx, { type: CommentType.Unpin, issueId: issue.id, posterId: doer.id });
  }));
}

/** Move a pinned issue to `position` (1 = first). */
export async function moveIssuePin(ctx: DbContext, rc: RepoContext, index: number, position: number): Promise<void> {
  const issue = await adminIssue(ctx, rc, index);
  if (!Number.isSafeInteger(position) || position < 1) throw new Validation('position must be 1 or more');
  await withRepoLock(rc.repo.id, () => withTx(ctx, async (tx) => {
    const from = await pinOrderOf(tx, issue.id);
    if (!from) throw new Validation('issue is not pinned');
    const last = (await pinnedIssueIds(tx, rc.repo.id, issue.isPull)).length;
    await movePin(tx, rc.repo.id, issue.id, issue.isPull, from, Math.min(position, last));
  }));
}

/** Lock (with a reason) or unlock an issue's conversation; repository admins who write the issue's unit. */
export async function setLocked(ctx: DbContext, doer: UserModel, rc: RepoContext, index: number, locked: boolean, reason = ''): Promise<void> {
  const issue = await adminIssue(ctx, rc, index);
  if (!canWriteIssues(rc, issue.isPull)) throw new Forbidden(`no permission to ${locked ? 'lock' : 'unlock'} this issue`);
  await withTx(ctx, async (tx) => {
    const row = await lockIssue(tx, issue.id);
    if (!row || row.isLocked === locked) return;
    row.isLocked = locked;
    await saveIssue(tx, row);
    await record(tx, { type: locked ? CommentType.Lock : CommentType.Unlock, issueId: row.id, posterId: doer.id, content: reason });
  });
}
