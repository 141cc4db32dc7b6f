/** email_address rows -> API Email. */
import type { Email } from '../api/email';

/** The fields of an address row the API shows. */
export interface EmailRow { email: string; isActivated: boolean; isPrimary: boolean }

/** Convert an address; `owner` (id and name) is shown only by the admin endpoints, as in Gitea. */
export function toEmail(e: EmailRow, owner?: { id: number; name: string }): Email {
  return { email: e.email, verified: e.isActivated, primary: e.isPrimary, user_id: owner?.id ?? 0, username: owner?.name ?? '' };
}
