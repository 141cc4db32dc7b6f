/**
 * Merging a pull request (`POST /pulls/{index}/merge`), in Gitea's order of checks: merged (405),
 * closed (404), who may merge (the protection rule's merge allow-list, else code writers), then
 * for merges made by the server the draft title, the last check, the rule's requirements (status
 * checks, approvals, an outdated head, protected files; repository admins may override with
 * `force_merge` unless the rule forbids it) and the style the repository allows. The new commit
 * is built in the object database and the base branch moved with its expected old value under
 * the repository's lock; then the pull request is marked merged, and optionally its head branch
 * deleted and the pull requests based on it retargeted.
 */
import { settings } from '../../config';
import { withTx, type DbContext } from '../../db';
import { HttpError, NotFound, Validation } from '../../errors';
import { markIssueNotificationRead } from '../../models/notification.model';
import { readCommits } from '../../git/history';
import { isAncestor } from '../../git/merge';
import { repoPath } from '../../git/paths';
import { refId } from '../../git/ref-info';
import { changedPaths } from '../../git/push-range';
import { withRepoLock } from '../../lock';
import { notifyEnqueued } from '../../queue/outbox';
import { CommentType } from '../../models/comment.model';
import { listEmailsOf } from '../../models/email-address.model';
import { latestCommitStatuses, type CommitStatusState } from '../../models/commit-status.model';
import { openBlockerCount } from '../../models/issue-dependency';
import { lockIssue, nowUnix, type IssueModel } from '../../models/issue.model';
import { AccessMode, UnitType } from '../../models/perm';
import type { ProtectedBranchModel } from '../../models/protected-branch.model';
import { findPullById, isDraftTitle, openPullsOn, savePull, PullFlow, PullStatus, type PullRequestModel } from '../../models/pull-request.model';
import { parsePullsConfig, unitConfigOf, NEW_REPO_PULLS_CONFIG, type PullRequestsConfig } from '../../models/repo-unit.model';
import { findUserById, type UserModel } from '../../models/user.model';
import type { MergePullRequestOption } from '../../api/pull';
import type { Principal } from '../auth/principal';
import { commitPeople } from '../content/identity';
import { combinedState, worstState } from '../history/status.service';
import { record } from '../issue/history';
import { changeState } from '../issue/state';
import { resolvePullReferences } from '../issue/closing';
import { dependenciesEnabled } from '../repo/tracker-settings';
import { repoPermission } from '../perm/permission';
import type { RepoContext } from '../repo/context';
import { assertNotArchived, isRepoAdmin } from '../repo/access';
import { assertBranchRemovable, deleteBranch } from '../refs/branch.service';
import { filePatterns, isMergeAllowlisted, matchesAny } from '../refs/branch-guard';
import { ruleForBranch } from '../refs/branch-protection.service';
import { compileGlob, globMatches } from '../refs/pattern';
import { moveRefsAndSync } from '../refs/ref-ops';
import { signsCommits } from '../../git/tree-edit';
import { headRefOf, queueCheck, repoWithOwner, syncHeadRef } from './check';
import { mergedTip, squashAuthorOf, type GitMergeStyle } from './merge-styles';
import { assertPullsReadable, pullByIndex } from './pull.service';
import { officialVerdicts } from './review.service';
import { scheduleMerge } from './auto-merge.service';
import { deleteAutoMerge } from '../../models/auto-merge.model';

/** The repository setting that allows each style. */
const STYLE_SETTING: Record<MergePullRequestOption['Do'], keyof PullRequestsConfig> = {
  merge: 'AllowMerge', rebase: 'AllowRebase', 'rebase-merge': 'AllowRebaseMerge', squash: 'AllowSquash',
  'fast-forward-only': 'AllowFastForwardOnly', 'manually-merged': 'AllowManualMerge',
};

const notAllowed = (message: string) => new HttpError(405, message);

/** `GET /pulls/{index}/merge`: has it been merged? */
export async function isPullMerged(ctx: DbContext, rc: RepoContext, index: number): Promise<boolean> {
  assertPullsReadable(rc);
  return (await pullByIndex(ctx, rc, index)).pr.hasMerged;
}

/**
 * The state the status checks of `sha` add up to (Gitea's MergeRequiredContextsCommitStatus): the
 * worst state of the statuses matching the contexts (JSON list of globs; a glob nothing matches is
 * pending), or of all statuses when there are no contexts; "" when there are no statuses at all.
 */
export async function statusChecksState(ctx: DbContext, repoId: number, sha: string, contextsJson: string): Promise<string> {
  const latest = await latestCommitStatuses(ctx, repoId, sha);
  const contexts = JSON.parse(contextsJson) as string[];
  if (contexts.length === 0) return latest.length ? combinedState(latest) : '';
  const matched: CommitStatusState[] = [];
  for (const pattern of contexts) {
    let glob;
    try { glob = compileGlob(pattern); } catch { continue; }
    const states = latest.filter((s) => globMatches(glob, s.context)).map((s) => s.state);
    if (states.length === 0) return 'pending';
    matched.push(...states);
  }
  return matched.length ? worstState(matched, 'success') : combinedState(latest);
}

/** Why the rule says the pull request is not ready (Gitea's CheckPullBranchProtections), or null. */
async function notReady(ctx: DbContext, rc: RepoContext, pr: PullRequestModel, head: string, rule: ProtectedBranchModel): Promise<string | null> {
  if (rule.enableStatusCheck && (await statusChecksState(ctx, rc.repo.id, head, rule.statusCheckContexts)) !== 'success') return 'Not all required status checks successful';
  const verdicts = await officialVerdicts(ctx, pr.issueId, rule.ignoreStaleApprovals);
  if (verdicts.approvals < rule.requiredApprovals) return 'Does not have enough approvals';
  if (rule.blockOnRejectedReviews && verdicts.rejections > 0) return 'There are requested changes';
  if (rule.blockOnOfficialReviewRequests && verdicts.requests > 0) return 'There are official review requests';
  if (rule.blockOnOutdatedBranch && pr.commitsBehind > 0) return 'The head branch is behind the base branch';
  const guarded = filePatterns(rule.protectedFilePatterns);
  if (guarded.length && pr.mergeBase) {
    const paths = await changedPaths(repoPath(rc.owner.name, rc.repo.name), pr.mergeBase, head, {});
    if (paths.some((p) => matchesAny(guarded, p))) return 'Changed protected files';
  }
  return null;
}

/**
 * Why `doer` may not merge the pull request now (the error the merge answers), or null: the rule's
 * merge allowlist (or code write), a draft title, a check still running or failed, the rule's
 * requirements (unless an admin forces it or the merge is scheduled for when they are met), signing.
 */
async function mergeRefusal(
  ctx: DbContext, doer: UserModel, rc: RepoContext, issue: IssueModel, pr: PullRequestModel, rule: ProtectedBranchModel | null,
  o: { manual: boolean; scheduling: boolean; force: boolean },
): Promise<HttpError | null> {
  const writesCode = rc.perm.can(UnitType.Code, AccessMode.Write);
  if (!(rule ? await isMergeAllowlisted(ctx, rule, { user: doer, writesCode }) : writesCode)) return notAllowed('User not allowed to merge PR');
  if (o.manual) return null;
  if (isDraftTitle(issue.name)) return notAllowed('Work in progress PRs cannot be merged');
  if (pr.status !== PullStatus.Mergeable && pr.status !== PullStatus.Empty) return notAllowed('Please try again later');
  const head = await refId(repoPath(rc.owner.name, rc.repo.name), headRefOf(pr));
  const reason = rule && head ? await notReady(ctx, rc, pr, head, rule) : null;
  if (reason && !o.scheduling && !(o.force && isRepoAdmin(rc) && !rule!.blockAdminMergeOverride)) {
    // why: Gitea's message, with the rule that said it beside it.
    return new HttpError(405, reason, {}, { errors: [`blocked by the branch protection rule "${rule!.ruleName}"`] });
  }
  if (rule?.requireSignedCommits && !signsCommits()) return notAllowed('wont sign: nokey');
  return null;
}

/** What a pull request page's merge box offers: the styles the repository allows, and why a merge is blocked (or null). */
export async function mergeBox(ctx: DbContext, doer: UserModel, rc: RepoContext, index: number): Promise<{ styles: string[]; preferred: string; blocked: string | null }> {
  const { issue, pr } = await pullByIndex(ctx, rc, index);
  const cfgText = await unitConfigOf(ctx, rc.repo.id, UnitType.PullRequests);
  const cfg = cfgText === null ? NEW_REPO_PULLS_CONFIG : parsePullsConfig(cfgText);
  const styles: string[] = (Object.keys(STYLE_SETTING) as MergePullRequestOption['Do'][]).filter((s) => s !== 'manually-merged' && cfg[STYLE_SETTING[s]]);
  let blocked: string | null = null;
  if (pr.hasMerged || issue.isClosed) blocked = pr.hasMerged ? 'This pull request has been merged.' : 'This pull request is closed.';
  else if (rc.repo.isArchived) blocked = 'This repository is archived.';
  else {
    const refusal = await mergeRefusal(ctx, doer, rc, issue, pr, await ruleForBranch(ctx, rc.repo.id, pr.baseBranch), { manual: false, scheduling: false, force: false });
    if (refusal) blocked = refusal.message === 'Please try again later' ? 'The pull request is being checked, or it has conflicts: try again later.' : refusal.message;
    else if ((await dependenciesEnabled(ctx, rc.repo.id)) && (await openBlockerCount(ctx, issue.id)) > 0) blocked = 'This pull request still has open dependencies.';
  }
  return { styles, preferred: styles.includes(cfg.DefaultMergeStyle) ? cfg.DefaultMergeStyle : styles[0] ?? 'merge', blocked };
}

/** The title Gitea gives a merge of this style when none is given. */
async function defaultTitle(ctx: DbContext, rc: RepoContext, style: GitMergeStyle, issue: IssueModel, pr: PullRequestModel): Promise<string> {
  if (style === 'squash') return `${issue.name} (#${pr.index})`;
  if (style !== 'merge' && style !== 'rebase-merge') return '';
  let from = pr.headBranch;
  if (pr.headRepoId !== pr.baseRepoId) {
    const head = await repoWithOwner(ctx, pr.headRepoId);
    from = `${head ? `${head.owner.name}/${head.repo.name}` : '<deleted>'}:${pr.headBranch}`;
  }
  return `Merge pull request '${issue.name}' (#${pr.index}) from ${from} into ${pr.baseBranch}`;
}

/** Mark a pull request merged and close its issue with a merge entry (in one transaction). */
async function markMerged(ctx: DbContext, doer: UserModel, pr: PullRequestModel, commit: string, at: number, status?: PullStatus): Promise<void> {
  await withTx(ctx, async (tx) => {
    const row = (await findPullById(tx, pr.id))!;
    Object.assign(row, { hasMerged: true, mergedCommitId: commit, mergerId: doer.id, mergedUnix: at, ...(status !== undefined ? { status } : {}) });
    await savePull(tx, row);
    await deleteAutoMerge(tx, row.id);
    const issue = (await lockIssue(tx, row.issueId))!;
    await changeState(tx, issue, doer, true, CommentType.MergePull);
    // why: as Gitea, whoever merges has read the pull request.
    await markIssueNotificationRead(tx, doer.id, issue.id);
  });
}

/**
 * Merge a pull request ('merged', 200), mark it merged by hand (`manually-merged`), or schedule
 * the merge for when its checks succeed ('scheduled', 201; the rule's other requirements are
 * waited for then, as Gitea).
 */
export async function mergePull(ctx: DbContext, doer: UserModel, p: Principal, rc: RepoContext, index: number, o: MergePullRequestOption): Promise<'merged' | 'scheduled'> {
  assertPullsReadable(rc);
  assertNotArchived(rc);
  if (!o || !Object.hasOwn(STYLE_SETTING, o.Do)) throw new Validation(`[Do]: must be one of ${Object.keys(STYLE_SETTING).join(', ')}`);
  const { issue, pr } = await pullByIndex(ctx, rc, index);
  if (pr.hasMerged) throw notAllowed('');
  if (issue.isClosed) throw new NotFound();
  const rule = await ruleForBranch(ctx, rc.repo.id, pr.baseBranch);
  const manual = o.Do === 'manually-merged';
  const scheduling = !!o.merge_when_checks_succeed && !manual;
  const baseDir = repoPath(rc.owner.name, rc.repo.name);
  const refusal = await mergeRefusal(ctx, doer, rc, issue, pr, rule, { manual, scheduling, force: !!o.force_merge });
  if (refusal) throw refusal;
  if (scheduling) {
    await scheduleMerge(ctx, doer, issue, pr, o);
    return 'scheduled';
  }
  if ((await dependenciesEnabled(ctx, rc.repo.id)) && (await openBlockerCount(ctx, issue.id)) > 0) {
    throw new HttpError(412, 'cannot close this issue or pull request because it still has open dependencies');
  }
  const cfgText = await unitConfigOf(ctx, rc.repo.id, UnitType.PullRequests);
  const cfg = cfgText === null ? NEW_REPO_PULLS_CONFIG : parsePullsConfig(cfgText);
  if (!cfg[STYLE_SETTING[o.Do]]) throw notAllowed(`${o.Do} is not allowed an allowed merge style for this repository`);
  if (manual) {
    await markedByHand(ctx, doer, rc, pr, o.MergeCommitID ?? '');
    return 'merged';
  }

  const style = o.Do as GitMergeStyle;
  const title = (o.MergeTitleField ?? '').trim() || (await defaultTitle(ctx, rc, style, issue, pr));
  const body = (o.MergeMessageField ?? '').trim();
  const people = commitPeople(doer, undefined, undefined, undefined);
  const poster = await findUserById(ctx, issue.posterId);
  const merged = await withRepoLock(rc.repo.id, async () => {
    const head = pr.flow === PullFlow.AGit ? await refId(baseDir, headRefOf(pr)) : (await syncHeadRef(ctx, pr, baseDir)).after;
    if (!head) throw new NotFound('the head branch of the pull request does not exist');
    if (o.head_commit_id && o.head_commit_id !== head) throw new HttpError(409, 'head out of date');
    const base = await refId(baseDir, `refs/heads/${pr.baseBranch}`);
    if (!base) throw new NotFound(`the base branch ${pr.baseBranch} does not exist`);
    const posterIdentity = poster ? commitPeople(poster, undefined, undefined, undefined).author : people.author;
    const squashAuthor = style === 'squash'
      ? await squashAuthorOf(baseDir, base, head, poster ? (await listEmailsOf(ctx, poster.id)).map((e) => e.email) : [], posterIdentity)
      : people.author;
    let message = body ? `${title}\n\n${body}` : title;
    const author = `${squashAuthor.name} <${squashAuthor.email}>`;
    if (style === 'squash' && author !== `${people.committer.name} <${people.committer.email}>`) {
      // why: as Gitea ([repository.pull-request] ADD_CO_COMMITTER_TRAILERS, on by default), a squash by someone else names its author twice.
      if (!message.includes(`Co-authored-by: ${author}`)) message += `\nCo-authored-by: ${author}`;
      message += `\nCo-committed-by: ${author}\n`;
    }
    const tip = await mergedTip(style, { dir: baseDir, base, head, message: `${message.trimEnd()}\n`, doer: people.committer, squashAuthor });
    // why: marked merged before the ref sync records the base's move, so the sync queues no check of a pull request that is done.
    await moveRefsAndSync(ctx, rc.repo.id, baseDir, doer.id, [{ ref: `refs/heads/${pr.baseBranch}`, old: base, new: tip }], 'merge push out of date',
      () => markMerged(ctx, doer, pr, tip, nowUnix()));
    return { head, tip };
  });
  await resolvePullReferences(ctx, doer, pr, merged.tip);
  if (o.delete_branch_after_merge && pr.flow === PullFlow.GitHub) await deleteHeadAfterMerge(ctx, doer, p, rc, pr, merged.head);
  return 'merged';
}

/** `manually-merged`: the pull request was merged outside the server, by `commit` on the base branch. */
async function markedByHand(ctx: DbContext, doer: UserModel, rc: RepoContext, pr: PullRequestModel, commit: string): Promise<void> {
  const dir = repoPath(rc.owner.name, rc.repo.name);
  const base = await refId(dir, `refs/heads/${pr.baseBranch}`);
  const [found] = /^[0-9a-f]{40}$/.test(commit) ? await readCommits(dir, [commit]) : [];
  if (!found || !base || !(await isAncestor(dir, commit, base))) throw new HttpError(409, `MergeCommitID must be the full id of a commit on ${pr.baseBranch}`);
  await markMerged(ctx, doer, pr, commit, Math.floor(Date.parse(found.author.date) / 1000), PullStatus.ManuallyMerged);
  await resolvePullReferences(ctx, doer, pr, commit);
}

/**
 * `delete_branch_after_merge`: delete the head branch unless the merger may not (the default
 * branch, no write, a protected branch) or another open pull request uses it (silently, as
 * Gitea), after retargeting the pull requests based on it ([repository.pull-request] RETARGET_CHILDREN_ON_MERGE).
 */
async function deleteHeadAfterMerge(ctx: DbContext, doer: UserModel, p: Principal, rc: RepoContext, pr: PullRequestModel, mergedHead: string): Promise<void> {
  const head = pr.headRepoId === rc.repo.id ? { ...rc, dir: repoPath(rc.owner.name, rc.repo.name) } : await repoWithOwner(ctx, pr.headRepoId);
  if (!head) return;
  const { repo, owner } = head;
  const others = (await openPullsOn(ctx, 'head', repo.id, [pr.headBranch])).filter((x) => x.id !== pr.id);
  if (others.length) return;
  if ((await refId(head.dir, `refs/heads/${pr.headBranch}`)) !== mergedHead) return;
  const headRc: RepoContext = { repo, owner, perm: repo.id === rc.repo.id ? rc.perm : await repoPermission(ctx, p, repo, owner) };
  try {
    await assertBranchRemovable(ctx, headRc, pr.headBranch);
    // why: before the deletion, whose ref sync closes the pull requests still based on the branch.
    if (settings().repositoryPullRequest.retargetChildrenOnMerge && repo.id === rc.repo.id) await retargetChildren(ctx, doer, pr);
    await deleteBranch(ctx, doer, headRc, pr.headBranch);
  } catch (err) {
    if (err instanceof HttpError && (err.status === 403 || err.status === 404 || err.status === 423)) return;
    throw err;
  }
  await withTx(ctx, (tx) => record(tx, { type: CommentType.DeleteBranch, issueId: pr.issueId, posterId: doer.id, oldRef: pr.headBranch }));
}

/** Give the open pull requests whose base was the merged head branch the merged pull request's base. */
async function retargetChildren(ctx: DbContext, doer: UserModel, merged: PullRequestModel): Promise<void> {
  for (const child of await openPullsOn(ctx, 'base', merged.baseRepoId, [merged.headBranch])) {
    await withTx(ctx, async (tx) => {
      const row = await findPullById(tx, child.id);
      if (!row || row.hasMerged || row.baseBranch !== merged.headBranch) return;
      row.baseBranch = merged.baseBranch;
      await savePull(tx, row);
      await record(tx, { type: CommentType.ChangeTargetBranch, issueId: row.issueId, posterId: doer.id, oldRef: merged.headBranch, newRef: merged.baseBranch });
      await queueCheck(tx, row);
    });
    notifyEnqueued();
  }
}

