/**
 * Review requests (`/pulls/{index}/requested_reviewers`): asking users and teams to review a pull
 * request, and withdrawing the request, with Gitea's rules of who may ask whom; and the requested
 * reviewers a pull request's JSON lists. Every name is checked before anything is written, so a
 * refused request changes nothing.
 */
import { withTx, type DbContext } from '../../db';
import { Forbidden, HttpError, Validation } from '../../errors';
import { collaboratorMode, teamGrants } from '../../models/access';
import { CommentType } from '../../models/comment.model';
import { findUsersByEmails } from '../../models/email-address.model';
import { AccessMode, UnitType } from '../../models/perm';
import { idList } from '../../models/protected-tag.model';
import type { PullRequestModel } from '../../models/pull-request.model';
import {
  clearOfficial, deleteReviews, findTeamRequest, insertReview, latestVerdictOrRequest, verdictsAndRequestsOf, ReviewType, type ReviewModel,
} from '../../models/review.model';
import { findTeamByName, teamsByIds, type TeamModel } from '../../models/team.model';
import { hasTeamRepo } from '../../models/team-repo.model';
import { listTeamMembers } from '../../models/team-user.model';
import type { IssueModel } from '../../models/issue.model';
import { isBlocked } from '../../models/user-blocking.model';
import { findUserByName, UserType, visibleUsersSql, type UserModel } from '../../models/user.model';
import { listRepoReviewerCandidates } from '../../models/assignee';
import { asUser, type Principal } from '../auth/principal';
import { record } from '../issue/history';
import { usersById } from '../issue/view';
import { repoPermission } from '../perm/permission';
import type { RepoContext } from '../repo/context';
import { teamUnits } from '../org/team.service';
import { visibilityScopeOf } from '../user/directory.service';
import { ruleForBranch } from '../refs/branch-protection.service';
import { pullByIndex, assertPullsReadable } from './pull.service';
import { isOfficialReviewer, restoreOfficial } from './review.service';
import { notify } from '../notify/notifier';

/** The body of `POST`/`DELETE /pulls/{index}/requested_reviewers`. */
export interface ReviewRequestOptions { reviewers?: string[]; team_reviewers?: string[] }

/** Gitea's refusal of a review request: 422 naming the doer and the repository. */
function invalid(reason: string, doer: UserModel, rc: RepoContext): Validation {
  return new Validation(`${reason} [user_id: ${doer.id}, repo_id: ${rc.repo.id}]`);
}

/** May the caller change a pull request's review requests (Gitea's CanDoerChangeReviewRequests)? */
async function canChangeRequests(ctx: DbContext, doer: UserModel, rc: RepoContext, posterId: number): Promise<boolean> {
  if (rc.repo.isArchived) return false;
  if (doer.id === posterId || doer.id === rc.repo.ownerId) return true;
  if ((await collaboratorMode(ctx, rc.repo.id, doer.id)) !== null) return true;
  if (rc.owner.type !== UserType.Organization) return false;
  // why: members of the organization's teams that reach this repository's pull requests may ask for reviews.
  return (await teamGrants(ctx, rc.owner.id, doer.id, rc.repo.id)).some((t) => t.authorize >= AccessMode.Admin || (t.units.get(UnitType.PullRequests) ?? AccessMode.None) >= AccessMode.Read);
}

/**
 * Who may be asked to review the repository's pull requests (`GET /repos/{owner}/{repo}/reviewers`,
 * Gitea's GetReviewers for no pull request in particular): 403 unless the caller may choose
 * reviewers; users it may not see are left out.
 */
export async function reviewerCandidates(ctx: DbContext, p: Principal, doer: UserModel, rc: RepoContext): Promise<UserModel[]> {
  if (!(await canChangeRequests(ctx, doer, rc, 0))) throw new Forbidden('doer has no permission to get reviewers');
  const repo = { id: rc.repo.id, ownerId: rc.owner.id, ownerIsOrg: rc.owner.type === UserType.Organization };
  return listRepoReviewerCandidates(ctx, repo, 0, visibleUsersSql(visibilityScopeOf(p)));
}

/** Users named by login, or by e-mail when the value holds `@`; 404 in Gitea's words for an unknown one. */
async function usersNamed(ctx: DbContext, names: string[]): Promise<UserModel[]> {
  const byEmail = await findUsersByEmails(ctx, names.filter((n) => n.includes('@')));
  const out: UserModel[] = [];
  for (const n of names) {
    const u = n.includes('@') ? byEmail.get(n.toLowerCase()) : await findUserByName(ctx, n);
    if (!u) throw new HttpError(404, `User '${n}' not exist`);
    if (!out.some((x) => x.id === u.id)) out.push(u);
  }
  return out;
}

/** Is a team an official reviewer of the pull request; else the request is official when its requester is (Gitea's IsOfficialReviewerTeam). */
async function isOfficialTeamRequest(ctx: DbContext, rc: RepoContext, pr: Pick<PullRequestModel, 'baseBranch'>, team: TeamModel, doer: UserModel): Promise<boolean> {
  const rule = await ruleForBranch(ctx, rc.repo.id, pr.baseBranch);
  if (rule) {
    const official = rule.enableApprovalsAllowlist ? idList(rule.approvalsAllowlistTeamIds).includes(team.id) : await teamCanWriteCode(ctx, team, rc);
    if (official) return true;
  }
  return isOfficialReviewer(ctx, rc, pr, doer);
}

/** Does the team have write on the repository's code? */
async function teamCanWriteCode(ctx: DbContext, team: TeamModel, rc: RepoContext): Promise<boolean> {
  if (!team.includesAllRepositories && !(await hasTeamRepo(ctx, team.id, rc.repo.id))) return false;
  if (team.authorize >= AccessMode.Admin) return true;
  return ((await teamUnits(ctx, [team])).get(team.id)?.get(UnitType.Code) ?? AccessMode.None) >= AccessMode.Write;
}

/** The pull request a review request is about (a new one has no issue id yet). */
interface Target { issueId: number; posterId: number; closed: boolean; baseBranch: string }

/** Checked review requests, ready to write. */
export interface RequestPlan { add: boolean; doer: UserModel; users: { user: UserModel; last: ReviewModel | null; official: boolean }[]; teams: { team: TeamModel; official: boolean }[] }

/**
 * Check named users and teams as review requests (or withdrawals) on a pull request, with Gitea's
 * rules and answers, writing nothing: 404 for an unknown name, 422 for a request the rules refuse,
 * 403 for a blocked user or a re-review of a closed pull request.
 */
export async function planReviewRequests(ctx: DbContext, doer: UserModel, rc: RepoContext, t: Target, o: ReviewRequestOptions, add: boolean): Promise<RequestPlan> {
  const names = (Array.isArray(o.reviewers) ? o.reviewers : []).filter((n) => typeof n === 'string' && n !== '');
  const teamNames = rc.owner.type === UserType.Organization ? (Array.isArray(o.team_reviewers) ? o.team_reviewers : []).filter((n) => typeof n === 'string' && n !== '') : [];
  const mayChange = await canChangeRequests(ctx, doer, rc, t.posterId);
  const plan: RequestPlan = { add, doer, users: [], teams: [] };
  for (const user of await usersNamed(ctx, names)) {
    if (user.type === UserType.Organization) throw invalid("Organization can't be added as reviewer", doer, rc);
    const last = t.issueId ? await latestVerdictOrRequest(ctx, t.issueId, user.id) : null;
    if (add) {
      const perm = await repoPermission(ctx, asUser(user), rc.repo, rc.owner);
      if (!perm.can(UnitType.PullRequests, AccessMode.Read)) throw invalid("Reviewer can't read", doer, rc);
      if (user.id === t.posterId) throw invalid("poster of pr can't be reviewer", doer, rc);
      // why: as Gitea, the poster may ask someone who already reviewed to look again, even without the right to choose reviewers.
      if (!mayChange && !(doer.id === t.posterId && last && last.type !== ReviewType.Request)) throw invalid("Doer can't choose reviewer", doer, rc);
      if (await isBlocked(ctx, user.id, doer.id) || (rc.owner.id !== user.id && (await isBlocked(ctx, rc.owner.id, user.id)))) throw new Forbidden('user is blocked');
      if (last && last.type !== ReviewType.Request && t.closed) throw new Forbidden('cannot request a re-review on a closed or merged PR');
    } else if (!mayChange && !(last?.type === ReviewType.Request && user.id === doer.id)) {
      throw invalid("Doer can't remove reviewer", doer, rc);
    }
    plan.users.push({ user, last, official: await isOfficialReviewer(ctx, rc, t, user) });
  }
  for (const name of teamNames) {
    const team = await findTeamByName(ctx, rc.owner.id, name);
    if (!team) throw new HttpError(404, `Team '${name}' not exist`);
    if (add && rc.repo.isPrivate && !team.includesAllRepositories && !(await hasTeamRepo(ctx, team.id, rc.repo.id))) throw invalid("Reviewing team can't read repo", doer, rc);
    if (!mayChange) throw invalid(add ? "Doer can't choose reviewer" : "Doer can't remove reviewer", doer, rc);
    if (!plan.teams.some((x) => x.team.id === team.id)) plan.teams.push({ team, official: add && (await isOfficialTeamRequest(ctx, rc, t, team, doer)) });
  }
  return plan;
}

/** Write checked review requests (in the caller's transaction); returns the new request rows. */
export async function applyReviewRequests(tx: DbContext, issue: Pick<IssueModel, 'id' | 'repoId' | 'posterId'>, plan: RequestPlan): Promise<ReviewModel[]> {
  const made: ReviewModel[] = [];
  const issueId = issue.id;
  const posterId = plan.doer.id;
  const pull = { id: issueId, isPull: true, repoId: issue.repoId };
  // why: as Gitea, one event per reviewer; a team's request goes to each of its members but the pull request's poster.
  const announce = async (users: UserModel[]) => {
    for (const u of users) {
      if (u.id === issue.posterId) continue;
      await notify.pullReviewRequested(tx, { doer: plan.doer, issue: pull, reviewer: u, added: plan.add });
    }
  };
  const membersOf = async (teamId: number) => (await listTeamMembers(tx, teamId, 10_000, 0)).rows;
  for (const { user, last, official } of plan.users) {
    if (plan.add) {
      if (last?.type === ReviewType.Request) continue;
      if (official) await clearOfficial(tx, issueId, user.id);
      const review = await insertReview(tx, { type: ReviewType.Request, issueId, reviewerId: user.id, official });
      await record(tx, { type: CommentType.ReviewRequest, issueId, posterId, assigneeId: user.id, reviewId: review.id });
      await announce([user]);
      made.push(review);
    } else if (last?.type === ReviewType.Request) {
      await deleteReviews(tx, [last.id]);
      // why: the request had taken the official flag over; the reviewer's latest verdict gets it back.
      await restoreOfficial(tx, issueId, user.id, official);
      await record(tx, { type: CommentType.ReviewRequest, issueId, posterId, assigneeId: user.id, removedAssignee: true });
      await announce([user]);
    }
  }
  for (const { team, official } of plan.teams) {
    const open = await findTeamRequest(tx, issueId, team.id);
    if (plan.add) {
      if (open) continue;
      const review = await insertReview(tx, { type: ReviewType.Request, issueId, reviewerTeamId: team.id, official });
      await record(tx, { type: CommentType.ReviewRequest, issueId, posterId, assigneeTeamId: team.id, reviewId: review.id });
      await announce(await membersOf(team.id));
      made.push(review);
    } else if (open) {
      await deleteReviews(tx, [open.id]);
      await record(tx, { type: CommentType.ReviewRequest, issueId, posterId, assigneeTeamId: team.id, removedAssignee: true });
      await announce(await membersOf(team.id));
    }
  }
  return made;
}

/** Ask users and teams for a review, or withdraw the requests; returns the new requests (an add) in Gitea's order. */
export async function changeReviewRequests(ctx: DbContext, doer: UserModel, rc: RepoContext, index: number, o: ReviewRequestOptions, add: boolean): Promise<ReviewModel[]> {
  assertPullsReadable(rc);
  const { pr, issue } = await pullByIndex(ctx, rc, index);
  const plan = await planReviewRequests(ctx, doer, rc, { issueId: issue.id, posterId: issue.posterId, closed: issue.isClosed || pr.hasMerged, baseBranch: pr.baseBranch }, o, add);
  return withTx(ctx, (tx) => applyReviewRequests(tx, issue, plan));
}

/** The requested reviewers of pull requests, by issue id: users (their latest verdict or request, not dismissed) and teams with an open request. */
export async function requestedReviewers(ctx: DbContext, issueIds: number[]): Promise<Map<number, { users: UserModel[]; teams: TeamModel[] }>> {
  const rows = await verdictsAndRequestsOf(ctx, issueIds);
  const latest = new Map<string, ReviewModel>();
  for (const r of rows) if (r.reviewerTeamId === 0) latest.set(`${r.issueId}:${r.reviewerId}`, r);
  const user = await usersById(ctx, rows.map((r) => r.reviewerId));
  const out = new Map<number, { users: UserModel[]; teams: TeamModel[] }>(issueIds.map((id) => [id, { users: [], teams: [] }]));
  const shown = [...latest.values()].filter((r) => !r.dismissed).sort((a, b) => a.updatedUnix - b.updatedUnix || a.id - b.id);
  for (const r of shown) {
    const u = user(r.reviewerId);
    if (u) out.get(r.issueId)!.users.push(u);
  }
  const teams = new Map((await teamsByIds(ctx, rows.map((r) => r.reviewerTeamId).filter((id) => id > 0))).map((t) => [t.id, t]));
  for (const r of rows) if (teams.has(r.reviewerTeamId)) out.get(r.issueId)!.teams.push(teams.get(r.reviewerTeamId)!);
  return out;
}
