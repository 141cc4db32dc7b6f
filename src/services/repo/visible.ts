/**
 * Turning lists of repository ids (stars, watches) into the page of repositories a caller may
 * read, with their owners for conversion.
 */
import type { DbContext } from '../../db';
import { findUserById, type UserModel } from '../../models/user.model';
import { findReposByIds } from '../../models/star.model';
import type { RepositoryModel } from '../../models/repository.model';
import { AccessMode } from '../../models/perm';
import { repoPermission } from '../perm/permission';
import type { Principal } from '../auth/principal';

/** A repository with its owner. */
export interface OwnedRepo { repo: RepositoryModel; owner: UserModel }

/**
 * The page of `ids` (kept in order) that `p` can read, and how many are readable in total.
 * why: permission combines owner visibility, collaborations and teams, so it is decided by the one
 * permission function per repository rather than re-expressed in SQL; star and watch lists are short.
 */
export async function readableRepoPage(ctx: DbContext, p: Principal, ids: number[], limit: number, offset: number): Promise<{ rows: OwnedRepo[]; count: number }> {
  const byId = new Map((await findReposByIds(ctx, ids)).map((r) => [r.id, r]));
  const readable: OwnedRepo[] = [];
  for (const id of ids) {
    const repo = byId.get(id);
    if (!repo) continue;
    const owner = await findUserById(ctx, repo.ownerId);
    if (!owner) continue;
    if ((await repoPermission(ctx, p, repo, owner)).mode >= AccessMode.Read) readable.push({ repo, owner });
  }
  return { rows: readable.slice(offset, offset + limit), count: readable.length };
}

/** Users by id, kept in the order of `ids`. */
export async function usersInOrder(ctx: DbContext, ids: number[], find: (ctx: DbContext, ids: number[]) => Promise<UserModel[]>): Promise<UserModel[]> {
  const byId = new Map((await find(ctx, ids)).map((u) => [u.id, u]));
  return ids.map((id) => byId.get(id)).filter((u): u is UserModel => !!u);
}
