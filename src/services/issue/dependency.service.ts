/**
 * Issue dependencies (`/issues/{index}/dependencies` and `/blocks`): an issue depends on (is
 * blocked by) others, in its repository or, with [service] ALLOW_CROSS_REPOSITORY_DEPENDENCIES,
 * in others. Self-dependencies and cycles of any length are refused; each change leaves a history
 * entry on both issues. Issues the caller cannot read are never shown.
 */
import { withTx, type DbContext } from '../../db';
import { BadRequest, NotFound, Validation } from '../../errors';
import { settings } from '../../config';
import { locker } from '../../lock';
import type { IssueMeta } from '../../api/issue';
import { CommentType } from '../../models/comment.model';
import { findIssueByIndex, issuesInOrder, lockIssue, type IssueModel } from '../../models/issue.model';
import { dependencyExists, dependencyIds, deleteDependency, insertDependency } from '../../models/issue-dependency';
import { AccessMode } from '../../models/perm';
import { findUserByName } from '../../models/user.model';
import { findRepoByOwnerAndName } from '../../models/repository.model';
import type { Principal } from '../auth/principal';
import { repoPermission } from '../perm/permission';
import type { RepoContext } from '../repo/context';
import { canWriteIssues, readableIssue, readableIssueIds } from './access';
import { record } from './history';
import { dependenciesEnabled } from '../repo/tracker-settings';
import { issueViews, issueViewsByIds, type IssueView } from './view';

/** At most this many issues are walked looking for a cycle. */
const MAX_WALK = 10_000;

/** One page of the issues blocking an issue (`blockers`) or blocked by it, readable ones only, same repository first. */
export async function listDependencies(
  ctx: DbContext, p: Principal, rc: RepoContext, index: number, side: 'blockers' | 'blocked', page: { limit: number; offset: number },
): Promise<IssueView[]> {
  const issue = await readableIssue(ctx, rc, index);
  if (side === 'blockers' && !(await dependenciesEnabled(ctx, rc.repo.id))) throw new NotFound();
  const others = await issuesInOrder(ctx, await dependencyIds(ctx, issue.id, side));
  const ids = await readableIssueIds(ctx, p, rc, others);
  const readable = others.filter((o) => ids.has(o.id));
  readable.sort((a, b) => Number(b.repoId === rc.repo.id) - Number(a.repoId === rc.repo.id) || a.repoId - b.repoId || b.createdUnix - a.createdUnix);
  return issueViews(ctx, readable.slice(page.offset, page.offset + page.limit));
}

/** The issue an IssueMeta names; another repository's only when cross-repository dependencies are on. */
async function resolveMeta(ctx: DbContext, p: Principal, rc: RepoContext, meta: IssueMeta): Promise<IssueModel> {
  const same = meta.owner === rc.owner.name && meta.repo === rc.repo.name;
  let repoId = rc.repo.id;
  if (!same) {
    if (!settings().service.allowCrossRepositoryDependencies) throw new BadRequest('CrossRepositoryDependencies not enabled');
    const owner = meta.owner ? await findUserByName(ctx, meta.owner) : null;
    const repo = owner && meta.repo ? await findRepoByOwnerAndName(ctx, owner.id, meta.repo) : null;
    if (!owner || !repo || (await repoPermission(ctx, p, repo, owner)).mode < AccessMode.Read) {
      throw new NotFound(`repository does not exist [owner: ${meta.owner ?? ''}, name: ${meta.repo ?? ''}]`);
    }
    repoId = repo.id;
  }
  const issue = await findIssueByIndex(ctx, repoId, Number(meta.index));
  if (!issue || !(await readableIssueIds(ctx, p, rc, [issue])).has(issue.id)) throw new NotFound(`issue does not exist [id: 0, repo_id: ${repoId}, index: ${meta.index}]`);
  return issue;
}

/** Would `issueId` depending on `dependencyId` close a cycle (does the dependency already depend on it)? */
async function makesCycle(ctx: DbContext, issueId: number, dependencyId: number): Promise<boolean> {
  const seen = new Set<number>([dependencyId]);
  let frontier = [dependencyId];
  while (frontier.length && seen.size < MAX_WALK) {
    const next: number[] = [];
    for (const id of frontier) {
      for (const d of await dependencyIds(ctx, id, 'blockers')) {
        if (d === issueId) return true;
        if (!seen.has(d)) { seen.add(d); next.push(d); }
      }
    }
    frontier = next;
  }
  return false;
}

/**
 * Add or remove "`blocked` depends on `blocker`". `pathIssue` is the issue of the route (the one
 * whose repository the caller must write). why: the dependency graph spans repositories, so
 * changes to it are serialized cluster-wide; otherwise two concurrent additions could each miss
 * the other and close a cycle.
 */
async function change(ctx: DbContext, p: Principal, rc: RepoContext, blocked: IssueModel, blocker: IssueModel, add: boolean): Promise<void> {
  const doer = p.user!;
  await locker().withLock('issue-dependencies', () => withTx(ctx, async (tx) => {
    for (const id of [blocked.id, blocker.id].sort((a, b) => a - b)) await lockIssue(tx, id);
    const exists = await dependencyExists(tx, blocked.id, blocker.id);
    if (add) {
      if (blocked.id === blocker.id) throw new Validation('an issue cannot depend on itself');
      if (exists) throw new Validation('issue dependency does already exist');
      if (await makesCycle(tx, blocked.id, blocker.id)) throw new Validation('circular dependencies exists (the issues would block each other)');
      await insertDependency(tx, doer.id, blocked.id, blocker.id);
    } else {
      if (!exists) throw new Validation('issue dependency does not exist');
      await deleteDependency(tx, blocked.id, blocker.id);
    }
    const type = add ? CommentType.AddDependency : CommentType.RemoveDependency;
    await record(tx, { type, issueId: blocked.id, posterId: doer.id, dependentIssueId: blocker.id });
    await record(tx, { type, issueId: blocker.id, posterId: doer.id, dependentIssueId: blocked.id });
  }));
}

/**
 * Make the path issue depend on the body issue (`side` blockers) or block it (`side` blocked),
 * or undo that; answers the path issue. The caller must write the path issue's unit; 404 when
 * dependencies are off, the repository is archived or the caller may not, as Gitea.
 */
export async function changeDependency(
  ctx: DbContext, p: Principal, rc: RepoContext, index: number, meta: IssueMeta, side: 'blockers' | 'blocked', add: boolean,
): Promise<IssueView> {
  const issue = await readableIssue(ctx, rc, index);
  if (rc.repo.isArchived || !(await dependenciesEnabled(ctx, rc.repo.id)) || !canWriteIssues(rc, issue.isPull)) throw new NotFound();
  const other = await resolveMeta(ctx, p, rc, meta);
  await (side === 'blockers' ? change(ctx, p, rc, issue, other, add) : change(ctx, p, rc, other, issue, add));
  return (await issueViewsByIds(ctx, [issue.id]))[0];
}
