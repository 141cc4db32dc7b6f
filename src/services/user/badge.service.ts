/**
 * Badges: definitions (created with the CLI; Gitea has no API for them) and giving them to users
 * by slug. Unknown slugs are refused with 422 before anything changes; giving a badge twice is a no-op.
 */
import { withTx, isUniqueViolation, type DbContext } from '../../db';
import { Validation } from '../../errors';
import { badgeIdsOfUser, deleteUserBadges, findBadgesBySlugs, insertBadge, insertUserBadge, type BadgeModel } from '../../models/badge.model';
import type { UserModel } from '../../models/user.model';

/** A badge definition to create. */
export interface NewBadge { slug: string; description: string; imageUrl: string }

/** Create a badge definition; the slug must be new and the image an http(s) URL (or empty). */
export async function createBadge(ctx: DbContext, b: NewBadge): Promise<BadgeModel> {
  if (!b.slug || b.slug.length > 255 || /\s/.test(b.slug)) throw new Validation('[Slug]: must be 1 to 255 characters without spaces');
  if (b.imageUrl && !/^https?:\/\/\S+$/.test(b.imageUrl)) throw new Validation('[ImageURL]: Url');
  try {
    return await withTx(ctx, async (tx) => {
      if ((await findBadgesBySlugs(tx, [b.slug])).length) throw new Validation(`badge already exists [slug: ${b.slug}]`);
      return insertBadge(tx, b);
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw new Validation(`badge already exists [slug: ${b.slug}]`);
    throw err;
  }
}

async function resolve(ctx: DbContext, slugs: string[]): Promise<BadgeModel[]> {
  const wanted = [...new Set(slugs)];
  const found = await findBadgesBySlugs(ctx, wanted);
  const known = new Set(found.map((b) => b.slug));
  const missing = wanted.find((s) => !known.has(s));
  // why: Gitea answers an unknown slug with a 500; it is the caller's mistake, so 422.
  if (missing !== undefined) throw new Validation(`badge with slug ${missing} doesn't exist`);
  return found;
}

/** Give these badges to a user; all slugs must exist, badges the user has are skipped. */
export async function addUserBadges(ctx: DbContext, user: UserModel, slugs: string[]): Promise<void> {
  const badges = await resolve(ctx, slugs);
  const attempt = () => withTx(ctx, async (tx) => {
    const has = await badgeIdsOfUser(tx, user.id, badges.map((b) => b.id));
    for (const b of badges) if (!has.has(b.id)) await insertUserBadge(tx, user.id, b.id);
  });
  try {
    await attempt();
  } catch (err) {
    // why: a concurrent add of the same badge meets the unique index; once more sees it and skips it.
    if (!isUniqueViolation(err)) throw err;
    await attempt();
  }
}

/** Take these badges away from a user; unknown slugs and badges the user lacks are ignored (as in Gitea). */
export async function removeUserBadges(ctx: DbContext, user: UserModel, slugs: string[]): Promise<void> {
  const found = await findBadgesBySlugs(ctx, [...new Set(slugs)]);
  await deleteUserBadges(ctx, user.id, found.map((b) => b.id));
}
