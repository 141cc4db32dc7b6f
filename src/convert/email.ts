/** email_address row -> API Email. */
import type { Email } from '../api/email';
import type { EmailAddressModel } from '../models/email-address.model';

/** Convert an address; `owner` (id and name) is shown only by the admin endpoints, as in Gitea. */
export function toEmail(e: EmailAddressModel, owner?: { id: number; name: string }): Email {
  return { email: e.email, verified: e.isActivated, primary: e.isPrimary, user_id: owner?.id ?? 0, username: owner?.name ?? '' };
}
