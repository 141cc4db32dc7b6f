/**
 * Loading what the PullRequest JSON shows: the issue view, the pull request row, both sides
 * (branch, commit, repository as the caller sees it) and the merger. Commits are read from git in
 * one cat-file round trip per repository for a whole page.
 */
import type { DbContext } from '../../db';
import { objectInfo } from '../../git/objects';
import { repoPath } from '../../git/paths';
import { diffWithStats } from '../../git/history';
import { AccessMode } from '../../models/perm';
import { pullsOfIssues, PullFlow, type PullRequestModel } from '../../models/pull-request.model';
import type { Principal } from '../auth/principal';
import { canSeeOwner, repoPermission } from '../perm/permission';
import type { RepoContext } from '../repo/context';
import { viewOf, type RepoView } from '../repo/repo.service';
import type { IssueView } from '../issue/view';
import { usersById } from '../issue/view';
import { teamUnits } from '../org/team.service';
import { headRefOf, repoWithOwner } from './check';
import { requestedReviewers } from './review-request.service';
import type { BranchSide as BranchSideOf, PullView as PullViewOf } from '../../models/pull-view';

/** A pull request ready to convert, with repositories as the caller sees them. */
export type PullView = PullViewOf<RepoView>;
type BranchSide = BranchSideOf<RepoView>;

interface HeadRepo { view: RepoView | null; dir: string | null }

/** The head repository as `p` may see it (null view when hidden or gone). */
async function headRepoOf(ctx: DbContext, p: Principal, rc: RepoContext, baseView: RepoView, id: number): Promise<HeadRepo> {
  if (id === rc.repo.id) return { view: baseView, dir: repoPath(rc.owner.name, rc.repo.name) };
  const found = await repoWithOwner(ctx, id);
  if (!found) return { view: null, dir: null };
  const { repo, owner, dir } = found;
  if (!(await canSeeOwner(ctx, p, owner))) return { view: null, dir };
  const perm = await repoPermission(ctx, p, repo, owner);
  // why: Gitea shows a head repository to anyone with the base's permission; a fork the caller cannot read stays hidden here.
  return { view: perm.mode >= AccessMode.Read ? await viewOf(ctx, p, repo, owner, perm) : null, dir };
}

/** Lines and files changed between two commits, from the file list `/files` keeps (git/history.ts diffWithStats). */
async function shortStat(dir: string, from: string, to: string): Promise<{ additions: number; deletions: number; changedFiles: number }> {
  const files = await diffWithStats(dir, from, to);
  return { changedFiles: files.length, additions: files.reduce((n, f) => n + f.additions, 0), deletions: files.reduce((n, f) => n + f.deletions, 0) };
}

/** Views of pull requests (their issue views given, in order); `list` for Gitea's list converter. */
export async function pullViews(ctx: DbContext, p: Principal, rc: RepoContext, issues: IssueView[], list: boolean): Promise<PullView[]> {
  if (issues.length === 0) return [];
  const pulls = await pullsOfIssues(ctx, issues.map((i) => i.row.id));
  const baseView = await viewOf(ctx, p, rc.repo, rc.owner, rc.perm);
  const baseDir = repoPath(rc.owner.name, rc.repo.name);
  const rows = issues.flatMap((issue) => (pulls.has(issue.row.id) ? [{ issue, pull: pulls.get(issue.row.id)! }] : []));
  const heads = new Map<number, HeadRepo>();
  for (const { pull } of rows) if (!heads.has(pull.headRepoId)) heads.set(pull.headRepoId, await headRepoOf(ctx, p, rc, baseView, pull.headRepoId));
  const baseInfo = await objectInfo(baseDir, rows.flatMap(({ pull }) => [`refs/heads/${pull.baseBranch}^{commit}`, `${headRefOf(pull)}^{commit}`]));
  // why: one cat-file round trip per head repository for every head branch of the page.
  const headTips = new Map<PullRequestModel, string | null>();
  for (const [id, h] of heads) {
    const mine = rows.filter(({ pull }) => pull.headRepoId === id && pull.flow === PullFlow.GitHub);
    if (!h.dir || mine.length === 0) continue;
    const info = await objectInfo(h.dir, mine.map(({ pull }) => `refs/heads/${pull.headBranch}^{commit}`)).catch(() => mine.map(() => null));
    mine.forEach(({ pull }, k) => headTips.set(pull, info[k]?.oid ?? null));
  }
  const merger = await usersById(ctx, rows.map(({ pull }) => pull.mergerId));
  const requested = await requestedReviewers(ctx, rows.map(({ issue }) => issue.row.id));
  const units = await teamUnits(ctx, [...requested.values()].flatMap((r) => r.teams));
  const out: PullView[] = [];
  for (const [k, { issue, pull }] of rows.entries()) {
    const baseSha = baseInfo[2 * k]?.oid ?? '';
    const pullHead = baseInfo[2 * k + 1]?.oid ?? '';
    const agit = pull.flow === PullFlow.AGit;
    const h = heads.get(pull.headRepoId)!;
    const tip = headTips.get(pull) ?? null;
    const head: BranchSide = agit
      ? { label: '', ref: headRefOf(pull), sha: pullHead, repoId: rc.repo.id, repo: baseView }
      : {
        // why: the head branch's tip (read-your-writes: the pull ref follows a push in the outbox a moment later).
        label: pull.headBranch, ref: tip ? pull.headBranch : headRefOf(pull), sha: tip ?? pullHead,
        repoId: h.dir ? pull.headRepoId : -1, repo: h.view,
      };
    const asked = requested.get(issue.row.id)!;
    const view: PullView = {
      issue, pull, head, list, merger: pull.mergerId ? merger(pull.mergerId) : null,
      reviewers: asked.users, reviewerTeams: asked.teams.map((team) => ({ team, units: units.get(team.id)!, org: rc.owner })),
      base: { label: pull.baseBranch, ref: pull.baseBranch, sha: baseSha, repoId: rc.repo.id, repo: baseView },
    };
    if (!list && !agit && h.dir && pull.mergeBase && pullHead) view.stats = await shortStat(baseDir, pull.mergeBase, pullHead).catch(() => undefined);
    out.push(view);
  }
  return out;
}
