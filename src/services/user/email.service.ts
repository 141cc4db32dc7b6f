/**
 * The signed-in user's email addresses (`/user/emails`): self-service additions obey the email
 * domain allow/block lists; additions and deletions are all-or-nothing.
 */
import { withTx, isUniqueViolation, type DbContext } from '../../db';
import { NotFound, Validation, HttpError } from '../../errors';
import type { UserModel } from '../../models/user.model';
import { findEmail, findEmailOf, insertEmail, deleteEmailById, listEmailsOf, type EmailAddressModel } from '../../models/email-address.model';
import { makePrimaryEmail } from '../../models/user-admin';
import { assertEmail, emailDomainAllowed } from './validate';
import { settings } from '../../config';
import { notify } from '../notify/notifier';

/** Every address of the user, primary first. */
export function emailsOf(ctx: DbContext, user: UserModel): Promise<EmailAddressModel[]> {
  return listEmailsOf(ctx, user.id);
}

function assertSelfServiceEmail(email: string): void {
  let ok = typeof email === 'string' && emailDomainAllowed(email);
  try {
    assertEmail(email);
  } catch (err) {
    if (!(err instanceof HttpError)) throw err;
    ok = false;
  }
  if (!ok) throw new Validation(`Email address "${email}" invalid`);
}

/**
 * Add addresses (not primary) and return the user's whole list. With [service]
 * REGISTER_EMAIL_CONFIRM each waits for the link mailed to it (queued with it); otherwise it is
 * confirmed at once. Any invalid or used address refuses the whole request (422).
 */
export async function addEmails(ctx: DbContext, user: UserModel, emails: string[] | undefined): Promise<EmailAddressModel[]> {
  if (!emails || emails.length === 0) throw new Validation('Email list empty');
  for (const e of emails) assertSelfServiceEmail(e);
  try {
    await withTx(ctx, async (tx) => {
      const seen = new Set<string>();
      for (const e of emails) {
        if (seen.has(e.toLowerCase()) || (await findEmail(tx, e))) throw new Validation(`Email address has been used: ${e}`);
        seen.add(e.toLowerCase());
        const confirm = settings().service.registerEmailConfirm;
        await insertEmail(tx, user.id, e, false, !confirm);
        if (confirm) await notify.emailAddressAdded(tx, { user, email: e });
      }
    });
  } catch (err) {
    // why: another account took the address between our check and the insert.
    if (isUniqueViolation(err)) throw new Validation('Email address has been used');
    throw err;
  }
  return listEmailsOf(ctx, user.id);
}

/**
 * Delete addresses of the user. An address that is not the user's is 404; the primary one cannot
 * be deleted (422; Gitea answers 500 there). All-or-nothing.
 */
export async function deleteEmails(ctx: DbContext, user: UserModel, emails: string[] | undefined): Promise<void> {
  if (!emails || emails.length === 0) return;
  await withTx(ctx, async (tx) => {
    for (const e of emails) {
      const row = typeof e === 'string' ? await findEmailOf(tx, user.id, e) : null;
      if (!row) throw new NotFound(`email address does not exist [email: ${e}]`);
      if (row.isPrimary) throw new Validation(`primary email address cannot be deleted [email: ${row.email}]`);
      await deleteEmailById(tx, row.id);
    }
  });
}

/** Make a confirmed address of the user their primary one (the account's email); 404 for another's, 422 before it is confirmed. */
export async function makeEmailPrimary(ctx: DbContext, user: UserModel, email: string): Promise<void> {
  await withTx(ctx, async (tx) => {
    const row = typeof email === 'string' ? await findEmailOf(tx, user.id, email) : null;
    if (!row) throw new NotFound(`email address does not exist [email: ${email}]`);
    if (!row.isActivated) throw new Validation(`${row.email} is not confirmed yet: follow the link mailed to it first.`);
    if (!row.isPrimary) await makePrimaryEmail(tx, user.id, row.email);
  });
}
