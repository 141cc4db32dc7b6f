/**
 * Maintainer edits (`allow_maintainer_edit`): a writer of a pull request's base repository may push
 * to its head branch in the head repository (a fork) without write on that repository, as Gitea's
 * CanMaintainerWriteToBranch allows; nothing else of the fork.
 */
import type { DbContext } from '../../db';
import { AccessMode, UnitType } from '../../models/perm';
import { maintainerEditHeads } from '../../models/pull-request.model';
import { findRepoById } from '../../models/repository.model';
import { findUserById, type UserModel } from '../../models/user.model';
import { asUser } from '../auth/principal';
import { repoPermission } from '../perm/permission';

/** The branches of repository `headRepoId` that `user` may push to as a maintainer of an open pull request's base (among `branches`, or all). */
export async function maintainerBranches(ctx: DbContext, user: UserModel, headRepoId: number, branches: string[] | 'any' = 'any'): Promise<Set<string>> {
  const wanted = branches === 'any' ? null : new Set(branches);
  const pulls = (await maintainerEditHeads(ctx, headRepoId)).filter((pr) => !wanted || wanted.has(pr.headBranch));
  const out = new Set<string>();
  const writes = new Map<number, boolean>();
  for (const pr of pulls) {
    if (!writes.has(pr.baseRepoId)) {
      const repo = await findRepoById(ctx, pr.baseRepoId);
      const owner = repo && (await findUserById(ctx, repo.ownerId));
      writes.set(pr.baseRepoId, !!repo && !!owner && (await repoPermission(ctx, asUser(user), repo, owner)).can(UnitType.Code, AccessMode.Write));
    }
    if (writes.get(pr.baseRepoId)) out.add(pr.headBranch);
  }
  return out;
}

/** May `user` push to `branch` of repository `headRepoId` (any branch: `'any'`) as a maintainer? */
export async function maintainerMayPush(ctx: DbContext, user: UserModel, headRepoId: number, branch: string | 'any'): Promise<boolean> {
  return (await maintainerBranches(ctx, user, headRepoId, branch === 'any' ? 'any' : [branch])).size > 0;
}
