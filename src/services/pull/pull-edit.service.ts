/**
 * Editing a pull request (`PATCH /pulls/{index}`, answered with 201 as Gitea does): what an issue
 * edit changes, the labels (a full replacement; labels of other repositories dropped), the base
 * branch (the poster or a writer; a change-of-target entry and a new check) and
 * `allow_maintainer_edit` (the poster, with write on the head repository).
 */
import { withTx, type DbContext } from '../../db';
import { Forbidden, NotFound, Validation } from '../../errors';
import { repoPath } from '../../git/paths';
import { refId } from '../../git/ref-info';
import { CommentType } from '../../models/comment.model';
import { findLabelsByIds } from '../../models/label.model';
import { AccessMode, UnitType } from '../../models/perm';
import { findOpenPullFor, findPullById, pullsOfIssues, savePull, type PullRequestModel } from '../../models/pull-request.model';
import type { UserModel } from '../../models/user.model';
import type { EditPullRequestOption } from '../../api/pull';
import { asUser, type Principal } from '../auth/principal';
import { canEditIssue, canWriteIssues, readableIssue } from '../issue/access';
import { record } from '../issue/history';
import { assertMayEditIssue, editIssue } from '../issue/issue-edit.service';
import { replaceIssueLabels } from '../issue/label.service';
import { repoPermission } from '../perm/permission';
import type { RepoContext } from '../repo/context';
import { queueCheck, repoWithOwner, runPullCheck } from './check';
import { assertPullsReadable, getPull, pullExists } from './pull.service';
import type { PullView } from './view';
import { notify } from '../notify/notifier';

/** Point an open pull request at another base branch of its repository. */
async function changeBase(ctx: DbContext, doer: UserModel, rc: RepoContext, pr: PullRequestModel, closed: boolean, base: string): Promise<void> {
  if (!(await refId(repoPath(rc.owner.name, rc.repo.name), `refs/heads/${base}`)) || base.startsWith('-')) throw new NotFound(`new base '${base}' not exist`);
  if (closed) throw new Validation(`Pull Request [id: ${pr.issueId}, repo_id: ${pr.baseRepoId}, index: ${pr.index}] is already closed`);
  if (pr.headRepoId === pr.baseRepoId && pr.headBranch === base) throw new Validation('Invalid PullRequest: There are no changes between the head and the base');
  const other = await findOpenPullFor(ctx, { repoId: pr.headRepoId, branch: pr.headBranch }, { repoId: pr.baseRepoId, branch: base }, pr.flow);
  if (other) throw pullExists(other);
  await withTx(ctx, async (tx) => {
    const row = (await findPullById(tx, pr.id))!;
    const old = row.baseBranch;
    row.baseBranch = base;
    await savePull(tx, row);
    await record(tx, { type: CommentType.ChangeTargetBranch, issueId: row.issueId, posterId: doer.id, oldRef: old, newRef: base });
    await queueCheck(tx, row);
    // why: as Gitea, a new base is a pull request edit whose changes name the old branch.
    await notify.pullRequestBaseChanged(tx, { doer, issue: { id: row.issueId, isPull: true, repoId: row.baseRepoId }, oldBase: old });
  });
  await runPullCheck(ctx, pr.id);
}

/** May the poster let maintainers edit: only with write on the head repository. */
async function assertMayAllowEdits(ctx: DbContext, doer: UserModel, posterId: number, pr: PullRequestModel): Promise<void> {
  const head = await repoWithOwner(ctx, pr.headRepoId);
  const writes = head ? (await repoPermission(ctx, asUser(doer), head.repo, head.owner)).can(UnitType.Code, AccessMode.Write) : false;
  if (doer.id !== posterId || !writes) throw new Forbidden('SetAllowEdits: user not allowed to do this action');
}

/** Edit a pull request; returns it as it is afterwards. */
export async function editPull(ctx: DbContext, doer: UserModel, p: Principal, rc: RepoContext, index: number, o: EditPullRequestOption): Promise<PullView> {
  assertPullsReadable(rc);
  const issue = await readableIssue(ctx, rc, index);
  const pr = issue.isPull ? (await pullsOfIssues(ctx, [issue.id])).get(issue.id) : undefined;
  if (!pr) throw new NotFound();
  // why: Gitea answers someone who may not edit with an empty 403.
  if (!canEditIssue(rc, doer, issue)) throw new Forbidden('');
  // why: before any of the edit's steps, so a refused title, body or state leaves the rest unchanged too.
  await assertMayEditIssue(ctx, rc, doer, issue, o);
  const writer = canWriteIssues(rc, true);
  if (o.allow_maintainer_edit !== undefined) await assertMayAllowEdits(ctx, doer, issue.posterId, pr);
  // why: as Gitea, a pull request's milestone changes only to another one (0 does not clear it).
  const milestone = o.milestone && o.milestone !== issue.milestoneId ? o.milestone : undefined;
  await editIssue(ctx, doer, rc, index, { title: o.title, body: o.body, assignee: o.assignee, assignees: o.assignees, milestone, due_date: o.due_date, unset_due_date: o.unset_due_date });
  if (writer && o.labels !== undefined) {
    const ids = (await findLabelsByIds(ctx, o.labels)).filter((l) => l.repoId === rc.repo.id || (l.orgId > 0 && l.orgId === rc.repo.ownerId)).map((l) => l.id);
    await replaceIssueLabels(ctx, doer, rc, index, ids);
  }
  if (o.state !== undefined) await editIssue(ctx, doer, rc, index, { state: o.state });
  if (o.base && o.base !== pr.baseBranch && !pr.hasMerged) {
    const now = await readableIssue(ctx, rc, index);
    await changeBase(ctx, doer, rc, pr, now.isClosed, o.base);
  }
  if (o.allow_maintainer_edit !== undefined) {
    await withTx(ctx, async (tx) => {
      const row = (await findPullById(tx, pr.id))!;
      row.allowMaintainerEdit = o.allow_maintainer_edit!;
      await savePull(tx, row);
    });
  }
  return getPull(ctx, p, rc, index);
}

