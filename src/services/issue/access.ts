/**
 * Who may do what with issues, as Gitea's issue routes decide it: the issues unit for issues, the
 * pull-requests unit for pull requests, all through the one permission function (RepoContext.perm).
 */
import type { DbContext } from '../../db';
import { Forbidden, NotFound } from '../../errors';
import { AccessMode, UnitType } from '../../models/perm';
import { findIssueByIndex, type IssueModel } from '../../models/issue.model';
import { isBlocked } from '../../models/user-blocking.model';
import { findUsersByIds, type UserModel } from '../../models/user.model';
import { findReposByIds } from '../../models/repository.model';
import type { Principal } from '../auth/principal';
import { can } from '../perm/permission';
import type { RepoContext } from '../repo/context';

/** The unit that guards an issue: issues, or pull requests for a pull request. */
export const unitOf = (isPull: boolean): UnitType => (isPull ? UnitType.PullRequests : UnitType.Issues);

/** May the caller read issues (or pull requests)? */
export function canReadIssues(rc: RepoContext, isPull: boolean): boolean {
  return rc.perm.can(unitOf(isPull), AccessMode.Read);
}

/** May the caller write issues (or pull requests): labels, milestones, assignees, others' issues? */
export function canWriteIssues(rc: RepoContext, isPull: boolean): boolean {
  return rc.perm.can(unitOf(isPull), AccessMode.Write);
}

/**
 * 404 unless the caller can read issues or pull requests (Gitea's mustEnableIssuesOrPulls).
 * why: a repository whose tracker is external (or off) has no issues unit, so its issue API is a 404.
 */
export function assertTrackerReadable(rc: RepoContext): void {
  if (!canReadIssues(rc, false) && !canReadIssues(rc, true)) throw new NotFound();
}

/** The issue or pull request numbered `index` that the caller may read; 404 otherwise. */
export async function readableIssue(ctx: DbContext, rc: RepoContext, index: number): Promise<IssueModel> {
  assertTrackerReadable(rc);
  const issue = await findIssueByIndex(ctx, rc.repo.id, index);
  if (!issue || !canReadIssues(rc, issue.isPull)) throw new NotFound(`issue does not exist [id: 0, repo_id: ${rc.repo.id}, index: ${index}]`);
  return issue;
}

/** 403 unless the caller writes the issue's unit. */
export function assertIssueWriter(rc: RepoContext, issue: IssueModel, message = 'write permission is required'): void {
  if (!canWriteIssues(rc, issue.isPull)) throw new Forbidden(message);
}

/** May the caller change the title and body: the poster, or a writer. */
export function canEditIssue(rc: RepoContext, doer: UserModel, issue: IssueModel): boolean {
  return issue.posterId === doer.id || canWriteIssues(rc, issue.isPull);
}

/** 403 "user is blocked" when the repository's owner (or `alsoBy`) blocked the caller. */
export async function assertNotBlocked(ctx: DbContext, rc: RepoContext, doer: UserModel, alsoBy: number[] = []): Promise<void> {
  for (const blocker of new Set([rc.repo.ownerId, ...alsoBy])) {
    if (blocker !== doer.id && (await isBlocked(ctx, blocker, doer.id))) throw new Forbidden('user is blocked');
  }
}

/**
 * 403 "user is blocked" when the issue's poster or the repository's owner blocked the caller, who
 * is about to change the issue itself (title, body, state, tracked time); a repository admin (site
 * admins included) is exempt. why: Gitea's ChangeTitle and ChangeContent rule (IsUserBlockedBy the
 * poster or the owner, unless IsUserRepoAdmin), applied to the issue's other own changes as well.
 */
export async function assertMayChangeIssue(ctx: DbContext, rc: RepoContext, doer: UserModel, issue: IssueModel): Promise<void> {
  if (rc.perm.mode >= AccessMode.Admin) return;
  await assertNotBlocked(ctx, rc, doer, [issue.posterId]);
}

/** 403 unless the caller writes issues or pull requests (Gitea's reqRepoWriter for labels and milestones). */
export function assertTrackerWriter(rc: RepoContext): void {
  if (!canWriteIssues(rc, false) && !canWriteIssues(rc, true)) throw new Forbidden('user should have a permission to write to a repo');
}

/** The ids among `issues` that `p` may read, each in its own repository (`rc` answers for its own). */
export async function readableIssueIds(ctx: DbContext, p: Principal, rc: RepoContext, issues: { id: number; repoId: number; isPull: boolean }[]): Promise<Set<number>> {
  const out = new Set<number>();
  const repos = new Map((await findReposByIds(ctx, issues.map((i) => i.repoId).filter((id) => id !== rc.repo.id))).map((r) => [r.id, r]));
  const owners = new Map((await findUsersByIds(ctx, [...new Set([...repos.values()].map((r) => r.ownerId))])).map((u) => [u.id, u]));
  for (const i of issues) {
    if (i.repoId === rc.repo.id) {
      if (canReadIssues(rc, !!i.isPull)) out.add(i.id);
      continue;
    }
    const repo = repos.get(i.repoId);
    const owner = repo ? owners.get(repo.ownerId) : undefined;
    if (repo && owner && (await can(ctx, p, repo, owner, unitOf(!!i.isPull), AccessMode.Read))) out.add(i.id);
  }
  return out;
}
