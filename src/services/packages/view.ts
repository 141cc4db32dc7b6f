/**
 * Package versions with what the API and the pages show of them: their owner, their creator (the
 * Ghost when gone) and their linked repository when the viewer may see it, read for a whole page
 * at once.
 */
import type { DbContext } from '../../db';
import { findUsersByIds, standIn, type UserModel } from '../../models/user.model';
import { findRepoById } from '../../models/repository.model';
import type { PackageModel, PackageVersionModel, VersionRow } from '../../models/package.model';
import { AccessMode } from '../../models/perm';
import type { Principal } from '../auth/principal';
import { repoPermission } from '../perm/permission';
import { viewOf, type RepoView } from '../repo/repo.service';

/** A version as it is shown. */
export interface PackageView { pkg: PackageModel; version: PackageVersionModel; owner: UserModel; creator: UserModel; repo: RepoView | null }

/** The linked repository of a package as `p` may see it, or null. */
async function linkedRepo(ctx: DbContext, p: Principal, owner: UserModel, repoId: number): Promise<RepoView | null> {
  const repo = repoId ? await findRepoById(ctx, repoId) : null;
  if (!repo) return null;
  const perm = await repoPermission(ctx, p, repo, owner);
  return perm.mode >= AccessMode.Read ? viewOf(ctx, p, repo, owner, perm) : null;
}

/** Versions of `owner`'s packages as `p` sees them. */
export async function packageViews(ctx: DbContext, p: Principal, owner: UserModel, rows: VersionRow[]): Promise<PackageView[]> {
  const creators = new Map((await findUsersByIds(ctx, [...new Set(rows.map((r) => r.version.creatorId))])).map((u) => [u.id, u]));
  const repos = new Map<number, RepoView | null>();
  for (const id of new Set(rows.map((r) => r.pkg.repoId))) repos.set(id, await linkedRepo(ctx, p, owner, id));
  return rows.map((r) => ({ ...r, owner, creator: creators.get(r.version.creatorId) ?? standIn(-1), repo: repos.get(r.pkg.repoId) ?? null }));
}
