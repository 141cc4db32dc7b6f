/**
 * The user directory: who a caller may see in lists, `/users/search`, and the explore sign-in rule.
 */
import type { DbContext } from '../../db';
import { settings } from '../../config';
import { Unauthorized } from '../../errors';
import { pseudoUser, searchIndividuals, type UserModel, type UserVisibilityScope } from '../../models/user.model';
import type { Principal } from '../auth/principal';

/** The visibility filter of user lists for this caller (mirrors canSeeOwner for lists). */
export function visibilityScopeOf(p: Principal): UserVisibilityScope {
  const u = p.user;
  const publicOnly = !!p.scopes?.publicOnly;
  return { viewerId: u?.id ?? null, seeAll: !!u?.isAdmin && !publicOnly, seeLimited: !!u && !u.isRestricted, publicOnly };
}

/** Gitea's reqExploreSignIn: with REQUIRE_SIGNIN_VIEW, anonymous callers may not browse users. */
export function assertExploreAllowed(p: Principal): void {
  if (settings().service.requireSigninView && !p.user) throw new Unauthorized('you must be signed in to search for users');
}

/** A search request: keyword, optional user id, one page. */
export interface SearchQuery { keyword: string; uid?: number; limit: number; offset: number }

/**
 * Search individual users the caller may see, alphabetically. `uid=-1` answers the Ghost user and
 * `uid=-2` the Actions user, as Gitea does (clients use them to render deleted authors and bots).
 */
export async function searchUsers(ctx: DbContext, p: Principal, q: SearchQuery): Promise<{ rows: UserModel[]; count: number }> {
  assertExploreAllowed(p);
  if (q.uid === -1 || q.uid === -2) return { rows: [pseudoUser(q.uid)], count: 1 };
  return searchIndividuals(ctx, {
    keyword: q.keyword.trim(),
    uid: q.uid,
    emailsOfAll: !!p.user?.isAdmin,
    scope: visibilityScopeOf(p),
    limit: q.limit,
    offset: q.offset,
  });
}
