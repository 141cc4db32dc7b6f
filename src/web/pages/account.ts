/**
 * The user's profile (`/user/settings`: full name, website, description, location, hiding the
 * email), email addresses (`/user/settings/emails`: add, delete) and blocked users
 * (`/user/settings/blocked_users`: block, unblock), through the services the API calls.
 */
import express, { type Router } from 'express';
import { settings } from '../../config';
import { ctxOf, doerOf } from '../../middleware/context';
import { formBody } from '../../middleware/input-guard';
import { blockUser, listBlocked, unblockUser } from '../../services/user/block.service';
import { addEmails, deleteEmails, emailsOf } from '../../services/user/email.service';
import { lookupUser } from '../../services/user/lookup';
import { changeSettings, setEmailPreference } from '../../services/user/settings.service';
import { flashOutcome, requireCsrf } from './context';
import { renderPage } from './render';
import { page, signedIn } from './route';

/** Profile, email and blocked-user settings routes. */
export function accountPages(): Router {
  const r = express.Router();
  const csrf = requireCsrf();
  const to = (path: string) => `${settings().server.rootUrl}user/settings${path}`;

  r.get('/user/settings', page(async (req, res) => {
    const user = signedIn(req, res);
    if (!user) return;
    await renderPage(req, res, 'user/settings/profile', 'Profile', {
      profile: { fullName: user.fullName, website: user.website, description: user.description, location: user.location, hideEmail: user.keepEmailPrivate },
    });
  }));
  r.post('/user/settings', ...formBody(), csrf, page(async (req, res) => {
    if (!signedIn(req, res)) return;
    const b = req.body as Record<string, string>;
    await flashOutcome(req, () => changeSettings(ctxOf(req), doerOf(req), {
      full_name: b.full_name ?? '', website: b.website ?? '', description: b.description ?? '', location: b.location ?? '', hide_email: b.hide_email === 'on',
    }), () => 'Your profile has been updated.');
    res.redirect(303, to(''));
  }));

  r.get('/user/settings/emails', page(async (req, res) => {
    if (!signedIn(req, res)) return;
    const emails = (await emailsOf(ctxOf(req), doerOf(req))).map((e) => ({ email: e.email, primary: e.isPrimary, activated: e.isActivated }));
    const s = settings();
    await renderPage(req, res, 'user/settings/emails', 'Emails', {
      emails, preference: doerOf(req).emailNotificationsPreference, notifyMail: s.service.enableNotifyMail, mailOn: s.mailer.enabled,
    });
  }));
  r.post('/user/settings/emails', ...formBody(), csrf, page(async (req, res) => {
    if (!signedIn(req, res)) return;
    const b = req.body as Record<string, string>;
    const confirm = settings().service.registerEmailConfirm;
    await flashOutcome(req, async () => {
      if (b.action === 'delete') await deleteEmails(ctxOf(req), doerOf(req), [b.email ?? '']);
      else if (b.action === 'preference') await setEmailPreference(ctxOf(req), doerOf(req), b.preference ?? '');
      else await addEmails(ctxOf(req), doerOf(req), [b.email ?? '']);
    }, () => (b.action === 'delete' ? `${b.email} has been removed.`
      : b.action === 'preference' ? 'Your email notification preference has been saved.'
        : confirm ? `A confirmation mail has been sent to ${b.email}. Follow its link to confirm the address.` : `${b.email} has been added.`));
    res.redirect(303, to('/emails'));
  }));

  r.get('/user/settings/blocked_users', page(async (req, res) => {
    if (!signedIn(req, res)) return;
    const { rows } = await listBlocked(ctxOf(req), doerOf(req), 1000, 0);
    await renderPage(req, res, 'user/settings/blocked', 'Blocked users', { blocked: rows.map((u) => u.name) });
  }));
  r.post('/user/settings/blocked_users', ...formBody(), csrf, page(async (req, res) => {
    if (!signedIn(req, res)) return;
    const b = req.body as Record<string, string>;
    await flashOutcome(req, async () => {
      const other = await lookupUser(ctxOf(req), req.principal, b.name ?? '');
      if (b.action === 'unblock') await unblockUser(ctxOf(req), doerOf(req), other);
      else await blockUser(ctxOf(req), doerOf(req), doerOf(req), other, b.note ?? '');
    }, () => (b.action === 'unblock' ? `${b.name} is no longer blocked.` : `${b.name} is blocked.`));
    res.redirect(303, to('/blocked_users'));
  }));
  return r;
}
