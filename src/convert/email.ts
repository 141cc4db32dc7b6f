/** email_address rows -> API Email. */
import type { Email } from '../api/email';
import type { EmailWithOwner } from '../models/user-admin';

/** Convert an address with its owner, as the admin email lists show it. */
export function toAdminEmail(e: EmailWithOwner): Email {
  return { email: e.email, verified: e.isActivated, primary: e.isPrimary, user_id: e.uid, username: e.userName };
}
