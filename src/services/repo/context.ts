/**
 * Resolving `{owner}/{repo}` for every repository route (API, git HTTP, SSH, LFS): the repository,
 * its owner and the caller's permission. A repository the caller cannot read answers exactly like
 * a missing one (404).
 */
import type { DbContext } from '../../db';
import { NotFound } from '../../errors';
import { findUserByName, type UserModel } from '../../models/user.model';
import { findRepoByOwnerAndName, type RepositoryModel } from '../../models/repository.model';
import { AccessMode } from '../../models/perm';
import { canSeeOwner, repoPermission, type RepoPermission } from '../perm/permission';
import type { Principal } from '../auth/principal';
import { assertTwoFactorSatisfied } from '../auth/two-factor.service';
import { missingOwner } from '../user/lookup';

/** A resolved repository with the caller's permission on it. */
export interface RepoContext { owner: UserModel; repo: RepositoryModel; perm: RepoPermission }

/** Resolve owner/repo for `p`; 404 when missing or not readable by the caller (OwnerRenamed for an old owner name). */
export async function repoAssignment(ctx: DbContext, p: Principal, ownerName: string, repoName: string): Promise<RepoContext> {
  const notFound = () => new NotFound(`repository does not exist [owner: ${ownerName}, name: ${repoName}]`);
  const owner = await findUserByName(ctx, ownerName);
  if (!owner) throw await missingOwner(ctx, p, ownerName, notFound());
  const repo = await findRepoByOwnerAndName(ctx, owner.id, repoName.replace(/\.git$/i, ''));
  if (!repo) throw notFound();
  // why: a deploy key or a job's token opens its own repository whatever the owner's visibility.
  const ownKey = (p.deployKey ?? p.actionsTask)?.repoId === repo.id;
  if (!ownKey && !(await canSeeOwner(ctx, p, owner))) throw notFound();
  const perm = await repoPermission(ctx, p, repo, owner);
  if (perm.mode < AccessMode.Read) throw notFound();
  // why: after the 404s, so an unenrolled user learns nothing of repositories it could not read anyway.
  await assertTwoFactorSatisfied(ctx, p);
  return { owner, repo, perm };
}
