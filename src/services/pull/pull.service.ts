/**
 * Pull requests (`/repos/{owner}/{repo}/pulls`): create from a branch of this repository or of a
 * fork (or of the parent, for a fork), get by number or by base and head, list with Gitea's
 * filters. A pull request is an issue (labels, milestone, assignees, comments, timeline) with a
 * pull_request row; its head is kept in the base repository as `refs/pull/<n>/head`.
 */
import { settings } from '../../config';
import { withTx, type DbContext } from '../../db';
import { BadRequest, Conflict, Forbidden, HttpError, NotFound, Validation } from '../../errors';
import { mergeBase } from '../../git/history';
import { objectInfo } from '../../git/objects';
import { repoPath } from '../../git/paths';
import { refId } from '../../git/ref-info';
import { withRepoLock } from '../../lock';
import { notifyEnqueued } from '../../queue/outbox';
import { collaboratorMode } from '../../models/access';
import { CommentType } from '../../models/comment.model';
import { AccessMode, UnitType } from '../../models/perm';
import { findOpenPullFor, findPullByBaseHead, findPullByMergedCommit, insertPull, pullsOfIssues, PullFlow, PullStatus, type PullRequestModel } from '../../models/pull-request.model';
import { findForkOf, findRepoById, findRepoByOwnerAndName, type RepositoryModel } from '../../models/repository.model';
import { findUserById, findUserByName, type UserModel } from '../../models/user.model';
import type { CreatePullRequestOption } from '../../api/pull';
import { asUser, type Principal } from '../auth/principal';
import { repoPermission } from '../perm/permission';
import type { RepoContext } from '../repo/context';
import { assertNotArchived } from '../repo/access';
import { assertNotBlocked, canReadIssues, canWriteIssues } from '../issue/access';
import { parseApiTime, record } from '../issue/history';
import { resolveCrossRefs, writeCrossRefs } from '../issue/xref';
import { insertIssueWithLinks, issueTitle, newIssueLinks, newIssueParts, pageOfIssues, type NewIssueLinks, type RepoIssueQuery } from '../issue/issue.service';
import { issueViews, type IssueView } from '../issue/view';
import { listPinned } from '../issue/pin.service';
import { findIssueById, findIssueByIndex, type IssueModel, type NewIssue } from '../../models/issue.model';
import { isIssueSort } from '../../models/issue-search';
import { headRefOf, queueCheck, runPullCheck, syncHeadRef } from './check';
import { pullViews, type PullView } from './view';
import { addedCommitsEntry } from './branch-moves';
import { applyReviewRequests, planReviewRequests } from './review-request.service';
import { notify } from '../notify/notifier';

/**
 * Gitea's guards of every pull route: 404 for a mirror, an empty repository or pull requests the
 * caller cannot read; 403 without read on the code.
 */
export function assertPullsReadable(rc: RepoContext): void {
  if (rc.repo.isMirror || rc.repo.isEmpty || !canReadIssues(rc, true)) throw new NotFound();
  if (!rc.perm.can(UnitType.Code, AccessMode.Read)) throw new Forbidden('user should have specific read permission or be a repo admin or a site admin');
}

/** A repository with its owner and bare repository directory. */
interface Side { repo: RepositoryModel; owner: UserModel; dir: string }

/**
 * The repository `head` names (`branch`, `owner:branch`): this one, the owner's fork of it, or
 * this fork's parent when `owner` owns that (Gitea's parseCompareInfo).
 */
async function headSide(ctx: DbContext, rc: RepoContext, head: string): Promise<{ side: Side; branch: string }> {
  const parts = head.split(':');
  if (parts.length > 2) throw new NotFound();
  if (parts.length === 1) return { side: { repo: rc.repo, owner: rc.owner, dir: repoPath(rc.owner.name, rc.repo.name) }, branch: head };
  const [ownerName, branch] = parts;
  const owner = await findUserByName(ctx, ownerName);
  if (!owner) throw new NotFound('GetUserByName');
  if (owner.id === rc.owner.id) return { side: { repo: rc.repo, owner, dir: repoPath(owner.name, rc.repo.name) }, branch };
  let repo = await findForkOf(ctx, rc.repo.id, owner.id);
  if (!repo && rc.repo.isFork) {
    const parent = await findRepoById(ctx, rc.repo.forkId);
    if (parent?.ownerId === owner.id) repo = parent;
  }
  if (!repo) throw new NotFound('GetBaseRepo');
  return { side: { repo, owner, dir: repoPath(owner.name, repo.name) }, branch };
}

/** The commit a branch of `dir` is at; 422 when the name is a tag or commit instead, 404 when it is nothing. */
async function branchTip(dir: string, name: string): Promise<string> {
  const tip = /^[^-\0\r\n]/.test(name) ? await refId(dir, `refs/heads/${name}`) : null;
  if (tip) return tip;
  const other = /^[^-\0\r\n:]+$/.test(name) ? (await objectInfo(dir, [`${name}^{commit}`]))[0] : null;
  if (other) throw new Validation('Invalid PullRequest: base and head must be branches');
  throw new NotFound();
}

/** Gitea's rule for who may open a pull request: a writer of either side, or someone the base repository knows. */
async function assertMayPropose(ctx: DbContext, doer: UserModel, rc: RepoContext, head: Side): Promise<void> {
  if (doer.isAdmin || rc.perm.can(UnitType.Code, AccessMode.Write)) return;
  if (await collaboratorMode(ctx, rc.repo.id, doer.id)) return;
  const onHead = head.repo.id === rc.repo.id ? rc.perm : await repoPermission(ctx, asUser(doer), head.repo, head.owner);
  if (onHead.can(UnitType.Code, AccessMode.Write)) return;
  throw new Forbidden('user must be a collaborator');
}

/** 409 for a second open pull request between the same branches. */
export const pullExists = (pr: PullRequestModel) => new Conflict(
  `pull request already exists for these targets [id: ${pr.id}, issue_id: ${pr.index}, head_repo_id: ${pr.headRepoId}, base_repo_id: ${pr.baseRepoId}, head_branch: ${pr.headBranch}, base_branch: ${pr.baseBranch}]`,
);

/** Open a pull request (201 with Gitea's single-pull JSON). */
export async function createPull(ctx: DbContext, doer: UserModel, p: Principal, rc: RepoContext, o: CreatePullRequestOption): Promise<PullView> {
  assertPullsReadable(rc);
  assertNotArchived(rc);
  for (const [field, v] of [['Head', o.head], ['Base', o.base], ['Title', o.title]] as const) if (!v || !v.trim()) throw new Validation(`[${field}]: Required`);
  const title = issueTitle(o.title);
  if (o.head === o.base) throw new Validation('Invalid PullRequest: There are no changes between the head and the base');
  const { side: head, branch: headBranch } = await headSide(ctx, rc, o.head!);
  const headPerm = head.repo.id === rc.repo.id ? rc.perm : await repoPermission(ctx, p, head.repo, head.owner);
  if (!headPerm.can(UnitType.Code, AccessMode.Read)) throw new NotFound("Can't read headRepo UnitTypeCode");
  const baseDir = repoPath(rc.owner.name, rc.repo.name);
  const baseTip = await branchTip(baseDir, o.base!);
  const headTip = await branchTip(head.dir, headBranch);
  const target = { repoId: rc.repo.id, branch: o.base! };
  const dup = await findOpenPullFor(ctx, { repoId: head.repo.id, branch: headBranch }, target);
  if (dup) throw pullExists(dup);
  const writer = canWriteIssues(rc, true);
  const links = writer ? await newIssueLinks(ctx, rc, o) : { milestone: null, labels: [], assignees: [] };
  if (writer && o.milestone && !links.milestone) throw new NotFound();
  const deadline = writer && o.due_date ? parseApiTime(o.due_date, 'DueDate') : 0;
  await assertNotBlocked(ctx, rc, doer, links.assignees.map((u) => u.id));
  await assertMayPropose(ctx, doer, rc, head);
  const requests = await planReviewRequests(ctx, doer, rc, { issueId: 0, posterId: doer.id, closed: false, baseBranch: o.base! }, { reviewers: o.reviewers, team_reviewers: o.team_reviewers }, true);

  const fields = { repoId: rc.repo.id, posterId: doer.id, name: title, content: o.body ?? '', milestoneId: links.milestone?.id ?? 0, isPull: true, ref: '', deadlineUnix: deadline };
  const { issue: row } = await openPullRequest(ctx, rc, doer, {
    fields, links, pull: { flow: PullFlow.GitHub, headRepoId: head.repo.id, headBranch, baseBranch: o.base! },
    duplicate: async (tx) => {
      const again = await findOpenPullFor(tx, { repoId: head.repo.id, branch: headBranch }, target);
      return again ? pullExists(again) : null;
    },
    inTx: (tx, issue) => applyReviewRequests(tx, issue, requests),
    writeHead: async (pr) => { await syncHeadRef(ctx, pr, baseDir); },
    tips: { head: headTip, base: baseTip },
  });
  const milestone = links.milestone ? (await issueViews(ctx, [row]))[0].parts.milestone : null;
  const issue: IssueView = { row, repo: { rootUrl: settings().server.rootUrl, repoId: rc.repo.id, owner: rc.owner.name, repo: rc.repo.name }, parts: newIssueParts(rc, doer, { ...links, milestone }) };
  return (await pullViews(ctx, p, rc, [issue], false))[0];
}

/** A pull request to open: its issue's fields and links, its row, and what else its creation does. */
export interface PullRequestOpening {
  fields: Omit<NewIssue, 'index'>; links: NewIssueLinks;
  pull: { flow: PullFlow; headRepoId: number; headBranch: string; baseBranch: string };
  /** Under the lock, in the transaction: the error to throw when the same pull request was opened meanwhile. */
  duplicate: (tx: DbContext) => Promise<Error | null>;
  /** More to write in the creating transaction. */
  inTx?: (tx: DbContext, issue: IssueModel) => Promise<unknown>;
  /** Write `refs/pull/<n>/head` (under the base repository's lock). */
  writeHead: (pr: PullRequestModel) => Promise<void>;
  /** The tips to list the creation's commits with when a ref is gone by then. */
  tips?: { head: string; base: string };
}

/**
 * Open a pull request (the branch flow and AGit both): under the base repository's lock, its issue
 * and row (checking, a check queued) in one transaction, then its head ref; then a first check and
 * the timeline's push entry listing its commits.
 * why: the lock orders this with pushes' ref syncs, so refs/pull/<n>/head is written once the
 * number exists and no sync can miss the new pull request; the outbox carries the check, so a crash
 * before the inline one still leaves none stuck in "checking".
 */
export async function openPullRequest(ctx: DbContext, rc: RepoContext, doer: UserModel, o: PullRequestOpening): Promise<{ issue: IssueModel; pull: PullRequestModel }> {
  const dir = repoPath(rc.owner.name, rc.repo.name);
  const refs = await resolveCrossRefs(ctx, doer, { repoId: rc.repo.id, isPull: true, comment: false }, o.fields.name, o.fields.content);
  const made = await withRepoLock(rc.repo.id, async () => {
    const opened = await withTx(ctx, async (tx) => {
      const dup = await o.duplicate(tx);
      if (dup) throw dup;
      const { issue, mentioned, assigned } = await insertIssueWithLinks(tx, rc, doer, o.fields, o.links);
      await writeCrossRefs(tx, doer, { issueId: issue.id, repoId: rc.repo.id, isPull: true, commentId: 0 }, refs, false);
      const pull = await insertPull(tx, { ...o.pull, issueId: issue.id, index: issue.index, status: PullStatus.Checking, baseRepoId: rc.repo.id, mergeBase: '' });
      await queueCheck(tx, pull);
      await notify.pullRequestOpened(tx, { doer, issue, mentioned, assigned });
      await o.inTx?.(tx, issue);
      return { issue, pull };
    });
    await o.writeHead(opened.pull);
    return opened;
  });
  notifyEnqueued();
  // why: the check answers with the refs as they are now (a push may have moved them since they were read).
  await runPullCheck(ctx, made.pull.id);
  const head = (await refId(dir, headRefOf(made.pull))) ?? o.tips?.head;
  const base = (await refId(dir, `refs/heads/${made.pull.baseBranch}`)) ?? o.tips?.base;
  if (head) {
    const entry = await addedCommitsEntry(dir, head, base ? [base] : []);
    await withTx(ctx, (tx) => record(tx, { type: CommentType.PullPush, issueId: made.issue.id, posterId: doer.id, content: entry }));
  }
  return made;
}

/** The pull request numbered `index`, with its issue; 404 in Gitea's words otherwise. */
export async function pullByIndex(ctx: DbContext, rc: RepoContext, index: number): Promise<{ issue: IssueModel; pr: PullRequestModel }> {
  const issue = Number.isSafeInteger(index) && index > 0 ? await findIssueByIndex(ctx, rc.repo.id, index) : null;
  const pr = issue?.isPull ? (await pullsOfIssues(ctx, [issue.id])).get(issue.id) : undefined;
  if (!issue || !pr) {
    throw new HttpError(404, 'GetPullRequestByIndex', {}, {
      errors: [`pull request does not exist [id: 0, issue_id: 0, head_repo_id: 0, base_repo_id: ${rc.repo.id}, head_branch: , base_branch: ]`],
    });
  }
  return { issue, pr };
}

/** The view of one pull request's issue, as Gitea's single converter shows it. */
async function onePull(ctx: DbContext, p: Principal, rc: RepoContext, issue: IssueModel): Promise<PullView> {
  return (await pullViews(ctx, p, rc, await issueViews(ctx, [issue]), false))[0];
}

/** One pull request by number; 404 for an issue or a number without one. */
export async function getPull(ctx: DbContext, p: Principal, rc: RepoContext, index: number): Promise<PullView> {
  assertPullsReadable(rc);
  const row = Number.isSafeInteger(index) && index > 0 ? await findIssueByIndex(ctx, rc.repo.id, index) : null;
  if (!row || !row.isPull) throw new NotFound(`pull request does not exist [id: 0, issue_id: 0, head_repo_id: 0, base_repo_id: 0, head_branch: , base_branch: ] [repo_id: ${rc.repo.id}, index: ${index}]`);
  return onePull(ctx, p, rc, row);
}

/**
 * The pull request from `head` (`branch`, `owner:branch` or `owner/repo:branch`) into `base`, in
 * any state (Gitea's GetPullRequestByBaseHeadInfo).
 */
export async function getPullByBaseHead(ctx: DbContext, p: Principal, rc: RepoContext, base: string, head: string): Promise<PullView> {
  assertPullsReadable(rc);
  let headRepo: RepositoryModel | null = rc.repo;
  let branch = head;
  const colon = head.indexOf(':');
  if (colon >= 0) {
    const [who, name] = [head.slice(0, colon), head.slice(colon + 1)];
    const [ownerName, repoName = rc.repo.name] = who.split('/');
    const owner = await findUserByName(ctx, ownerName);
    headRepo = owner ? await findRepoByOwnerAndName(ctx, owner.id, repoName) : null;
    branch = name;
  }
  const pr = headRepo ? await findPullByBaseHead(ctx, rc.repo.id, base, headRepo.id, branch) : null;
  const issue = pr ? await findIssueById(ctx, pr.issueId) : null;
  if (!pr || !issue) throw new NotFound();
  return onePull(ctx, p, rc, issue);
}

/** Two branches compared, as `/compare/{base}...{head}` shows them. */
export interface BranchComparison {
  base: string; head: string;
  /** The repository holding the head branch (this one or a fork in its network). */
  headOwner: string; headRepo: string;
  baseTip: string; headTip: string;
  /** Where head left base; null when they share no history. */
  mergeBase: string | null;
  /** The open pull request from head into base, if there is one. */
  open: number | null;
  /** May the caller open a pull request here? */
  canPropose: boolean;
}

/**
 * Compare a base branch of this repository with a head branch (`branch`, `owner:branch` for the
 * owner's fork or this fork's parent), as Gitea's compare page: 404 for what the caller cannot read.
 */
export async function compareBranches(ctx: DbContext, p: Principal, rc: RepoContext, base: string, head: string): Promise<BranchComparison> {
  if (rc.repo.isEmpty || !rc.perm.can(UnitType.Code, AccessMode.Read)) throw new NotFound();
  const { side, branch } = await headSide(ctx, rc, head);
  const headPerm = side.repo.id === rc.repo.id ? rc.perm : await repoPermission(ctx, p, side.repo, side.owner);
  if (!headPerm.can(UnitType.Code, AccessMode.Read)) throw new NotFound();
  const baseDir = repoPath(rc.owner.name, rc.repo.name);
  const [baseTip, headTip] = await Promise.all([branchTip(baseDir, base), branchTip(side.dir, branch)]);
  const from = await mergeBase(side.dir, baseTip, headTip, side.dir === baseDir ? undefined : `${baseDir}/objects`);
  const open = await findOpenPullFor(ctx, { repoId: side.repo.id, branch }, { repoId: rc.repo.id, branch: base });
  const doer = p.user;
  let canPropose = !!doer && !rc.repo.isArchived && !rc.repo.isMirror && canReadIssues(rc, true);
  if (canPropose) canPropose = await assertMayPropose(ctx, doer!, rc, side).then(() => true, () => false);
  return {
    base, head: branch, headOwner: side.owner.name, headRepo: side.repo.name, baseTip, headTip, mergeBase: from,
    open: open ? (await findIssueById(ctx, open.issueId))?.index ?? null : null, canPropose,
  };
}

/** The filters of `GET /pulls` (`poster` by name). */
export type PullQuery = Omit<RepoIssueQuery, 'type' | 'posterId'> & { sort?: string; poster?: string };

/** A repository's pull requests with Gitea's filters (state all by default), newest first unless sorted. */
export async function listPulls(ctx: DbContext, p: Principal, rc: RepoContext, q: PullQuery, opts: { limit: number; offset: number }): Promise<{ items: PullView[]; total: number }> {
  assertPullsReadable(rc);
  const { sort, poster, ...filter } = q;
  const posterUser = poster ? await findUserByName(ctx, poster) : null;
  if (poster && !posterUser) throw new BadRequest(`user does not exist [uid: 0, name: ${poster}]`);
  // why: Gitea orders by anything else it does not know as newest first.
  const order = sort && sort !== 'nearduedate' && sort !== 'farduedate' && isIssueSort(sort) ? sort : 'newest';
  const page = await pageOfIssues(ctx, { ...filter, posterId: posterUser?.id, repoIds: [rc.repo.id], isPull: true }, order, opts, rc);
  return { items: await pullViews(ctx, p, rc, page.items, true), total: page.total };
}

/** The pinned pull requests of the repository, in pin order (Gitea's single converter). */
export async function listPinnedPulls(ctx: DbContext, p: Principal, rc: RepoContext): Promise<PullView[]> {
  assertPullsReadable(rc);
  return pullViews(ctx, p, rc, await listPinned(ctx, rc, true), false);
}

/** The pull request whose merge made commit `sha` (a full id); 404 in Gitea's words when there is none. */
export async function pullOfMergedCommit(ctx: DbContext, p: Principal, rc: RepoContext, sha: string): Promise<PullView> {
  if (!rc.perm.units.has(UnitType.Code) || !rc.perm.can(UnitType.Code, AccessMode.Read)) throw new NotFound();
  const pr = /^[0-9a-f]{40}$/.test(sha) ? await findPullByMergedCommit(ctx, rc.repo.id, sha) : null;
  const issue = pr && (await findIssueById(ctx, pr.issueId));
  if (!pr || !issue) {
    throw new NotFound(`pull request does not exist [id: 0, issue_id: 0, head_repo_id: 0, base_repo_id: ${rc.repo.id}, head_branch: , base_branch: ]`);
  }
  return onePull(ctx, p, rc, issue);
}

/**
 * Where a new pull request from `branch` of `rc` goes, as Gitea's `/pulls/new/{branch}` chooses:
 * a fork's branch proposes to the parent when the caller can read it and it takes pull requests
 * (the head written `owner:branch`); otherwise the repository's own default branch.
 */
export async function newPullTarget(ctx: DbContext, p: Principal, rc: RepoContext, branch: string): Promise<{ owner: string; repo: string; base: string; head: string }> {
  if (rc.repo.isFork) {
    const parent = await findRepoById(ctx, rc.repo.forkId);
    const parentOwner = parent && (await findUserById(ctx, parent.ownerId));
    const perm = parent && parentOwner ? await repoPermission(ctx, p, parent, parentOwner) : null;
    if (parent && parentOwner && perm?.can(UnitType.PullRequests, AccessMode.Read)) {
      return { owner: parentOwner.name, repo: parent.name, base: parent.defaultBranch, head: `${rc.owner.name}:${branch}` };
    }
  }
  return { owner: rc.owner.name, repo: rc.repo.name, base: rc.repo.defaultBranch, head: branch };
}
