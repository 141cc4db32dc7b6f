/**
 * Every user's email addresses for the site administration (`/admin/emails`, the same search as
 * the API's `GET /admin/emails/search`).
 */
import type { DbContext } from '../../db';
import { searchEmailsForAdmin, type EmailWithOwner } from '../../models/user-admin';

/** One page of addresses whose address, login name or full name contains `keyword`, by address. */
export function searchAllEmails(ctx: DbContext, keyword: string, limit: number, offset: number): Promise<{ rows: EmailWithOwner[]; count: number }> {
  return searchEmailsForAdmin(ctx, keyword, limit, offset);
}
