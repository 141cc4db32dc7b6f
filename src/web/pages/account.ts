/**
 * The user's own account: the profile (`/user/settings`: name, website, location, biography,
 * visibility, hiding the email, the avatar uploaded and cropped square), the account page (`/user/settings/account`: the password, the
 * email addresses with confirmation and the primary one, the notification mail, deleting the
 * account) and `/user/change_password`, where an account an administrator marked
 * must_change_password is held until it sets a new one. Every form calls the service the API calls.
 */
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { settings } from '../../config';
import { systemCtx } from '../../db';
import { NotFound, Validation } from '../../errors';
import { ctxOf, doerOf } from '../../middleware/context';
import { formBody } from '../../middleware/input-guard';
import { VISIBILITY_NAMES } from '../../models/user.model';
import { endOtherSessions, endSession } from '../../services/auth/session.service';
import { addEmails, deleteEmails, emailsOf, makeEmailPrimary } from '../../services/user/email.service';
import { assertSettings, changeSettings, setEmailPreference } from '../../services/user/settings.service';
import { parseVisibility } from '../../services/user/user.service';
import { changeOwnPassword, changeRequiredPassword } from '../../services/user/password.service';
import { editUser } from '../../services/user/admin.service';
import { deleteOwnAccount } from '../../services/lifecycle/user-delete.service';
import { resendEmailConfirmation } from '../../services/mail/recovery.service';
import { clearRememberCookie, clearSessionCookie, flashOutcome, formUpload, localRedirect, requireCsrf } from './context';
import { cropOf, deleteAvatar, readAvatarUpload, setAvatar } from '../../services/user/avatar.service';
import { avatarUrl } from '../../convert/user';
import { renderPage } from './render';
import { page, signedIn } from './route';

const CHANGE_PASSWORD = 'user/change_password';

/** May users delete their own account here (`[admin] USER_DISABLED_FEATURES` without `deletion`)? */
const deletionAllowed = () => !settings().admin.userDisabledFeatures.includes('deletion');

/**
 * Middleware: a signed-in user who must change their password sees only the page that changes it
 * (and may sign out); every other page sends them there, coming back afterwards.
 */
export function mustChangePasswordGate() {
  return (req: Request, res: Response, next: NextFunction) => {
    const user = req.web.principal.user;
    const root = new URL(settings().server.rootUrl).pathname;
    if (!user?.mustChangePassword || req.path === `/${CHANGE_PASSWORD}` || req.path === '/user/logout') return next();
    const back = req.method === 'GET' && req.path !== '/' ? `?redirect_to=${encodeURIComponent(req.originalUrl)}` : '';
    res.redirect(303, `${root}${CHANGE_PASSWORD}${back}`);
  };
}

/** Profile, account and required-password routes. */
export function accountPages(): Router {
  const r = express.Router();
  const csrf = requireCsrf();
  const to = (path: string) => `${settings().server.rootUrl}user/settings${path}`;

  r.get('/user/settings', page(async (req, res) => {
    const user = signedIn(req, res);
    if (!user) return;
    await renderPage(req, res, 'user/settings/profile', 'Profile', {
      profile: {
        fullName: user.fullName, website: user.website, description: user.description, location: user.location, hideEmail: user.keepEmailPrivate,
        visibility: VISIBILITY_NAMES[user.visibility], avatar: avatarUrl(user, settings().server.rootUrl), customAvatar: user.avatar !== '',
      },
      visibilities: VISIBILITY_NAMES, maxAvatarKiB: settings().picture.avatarMaxFileSize / 1024,
    });
  }));
  r.post('/user/settings', ...formBody(), csrf, page(async (req, res) => {
    const user = signedIn(req, res);
    if (!user) return;
    const b = req.body as Record<string, string>;
    await flashOutcome(req, async () => {
      const change = { full_name: b.full_name ?? '', website: b.website ?? '', description: b.description ?? '', location: b.location ?? '', hide_email: b.hide_email === 'on' };
      // why: every field is checked before anything is written, so a refused form changes nothing.
      assertSettings(change);
      const visibility = b.visibility !== undefined && parseVisibility(b.visibility, 'public') !== user.visibility ? b.visibility : undefined;
      await changeSettings(ctxOf(req), user, change);
      if (visibility) await editUser(ctxOf(req), user, { loginName: user.loginName || user.name, visibility });
    }, () => 'Your profile has been updated.');
    res.redirect(303, to(''));
  }));

  r.post('/user/settings/avatar', page(async (req, res) => {
    const user = signedIn(req, res);
    if (!user) return;
    // why: a forged form (no CSRF token before the file) is a 403 like every other form; a refused picture is a message.
    await formUpload(req, 'avatar', (_name, data, fields) => flashOutcome(req, async () => {
      const crop = cropOf(fields);
      await setAvatar(ctxOf(req), user, await readAvatarUpload(data), crop);
    }, () => 'Your avatar has been updated.'));
    res.redirect(303, to(''));
  }));
  r.post('/user/settings/avatar/delete', ...formBody(), csrf, page(async (req, res) => {
    const user = signedIn(req, res);
    if (!user) return;
    await flashOutcome(req, () => deleteAvatar(ctxOf(req), user), () => 'Your avatar has been removed.');
    res.redirect(303, to(''));
  }));

  r.get('/user/settings/account', page(async (req, res) => {
    const user = signedIn(req, res);
    if (!user) return;
    const emails = (await emailsOf(ctxOf(req), user)).map((e) => ({ email: e.email, primary: e.isPrimary, activated: e.isActivated }));
    const s = settings();
    await renderPage(req, res, 'user/settings/account', 'Account', {
      emails, hasPassword: user.passwdHash !== '', preference: user.emailNotificationsPreference, notifyMail: s.service.enableNotifyMail,
      mailOn: s.mailer.enabled, confirm: s.service.registerEmailConfirm, canDelete: deletionAllowed(), isAdmin: user.isAdmin,
    });
  }));
  r.post('/user/settings/account', ...formBody(), csrf, page(async (req, res) => {
    const user = signedIn(req, res);
    if (!user) return;
    const b = req.body as Record<string, string>;
    await flashOutcome(req, async () => {
      await changeOwnPassword(ctxOf(req), req.ip ?? '', user, b.old_password ?? '', b.password ?? '', b.retype ?? '');
      // why: whoever else was signed in with the old password is signed out (this browser stays).
      if (req.web.session) await endOtherSessions(systemCtx, req.web.session);
    }, () => 'Your password has been changed. Other browsers signed in to your account have been signed out.');
    res.redirect(303, to('/account'));
  }));

  // why: `/user/settings/emails` is where the addresses lived before the account page; its links and forms keep working.
  r.get('/user/settings/emails', (_req, res) => res.redirect(301, to('/account')));
  r.post(['/user/settings/account/email', '/user/settings/emails'], ...formBody(), csrf, page(async (req, res) => {
    const user = signedIn(req, res);
    if (!user) return;
    const b = req.body as Record<string, string>;
    const email = b.email ?? '';
    const confirm = settings().service.registerEmailConfirm;
    const actions: Record<string, [() => Promise<unknown>, () => string]> = {
      delete: [() => deleteEmails(ctxOf(req), user, [email]), () => `${email} has been removed.`],
      primary: [() => makeEmailPrimary(ctxOf(req), user, email), () => `${email} is now your primary email address.`],
      preference: [() => setEmailPreference(ctxOf(req), user, b.preference ?? ''), () => 'Your email notification preference has been saved.'],
      resend: [async () => {
        if (!(await resendEmailConfirmation(ctxOf(req), user, email))) throw new Validation('A mail was sent to your account a short while ago: wait three minutes before asking again.');
      }, () => `A confirmation mail has been sent to ${email} again.`],
      add: [() => addEmails(ctxOf(req), user, [email]),
        () => (confirm ? `A confirmation mail has been sent to ${email}. Follow its link to confirm the address.` : `${email} has been added.`)],
    };
    const [run, done] = actions[b.action ?? 'add'] ?? actions.add;
    await flashOutcome(req, run, done);
    res.redirect(303, to('/account'));
  }));

  r.post('/user/settings/account/delete', ...formBody(), csrf, page(async (req, res) => {
    const user = signedIn(req, res);
    if (!user) return;
    if (!deletionAllowed()) throw new NotFound();
    let deleted = false;
    await flashOutcome(req, async () => {
      await deleteOwnAccount(ctxOf(req), req.ip ?? '', user, String(req.body.password ?? ''));
      deleted = true;
    }, () => 'Your account has been deleted.');
    if (!deleted) return res.redirect(303, to('/account'));
    if (req.web.session) await endSession(systemCtx, req.web.session);
    clearSessionCookie(res);
    clearRememberCookie(res);
    res.redirect(303, settings().server.rootUrl);
  }));

  r.get(`/${CHANGE_PASSWORD}`, page(async (req, res) => {
    const user = signedIn(req, res);
    if (!user) return;
    if (!user.mustChangePassword) return res.redirect(303, to('/account'));
    await renderPage(req, res, 'user/change_password', 'Change your password', { redirectTo: localRedirect(req.query.redirect_to) });
  }));
  r.post(`/${CHANGE_PASSWORD}`, ...formBody(), csrf, page(async (req, res) => {
    const user = signedIn(req, res);
    if (!user) return;
    const b = req.body as Record<string, string>;
    const back = localRedirect(b.redirect_to);
    if (!user.mustChangePassword) return res.redirect(303, to('/account'));
    let changed = false;
    await flashOutcome(req, async () => {
      await changeRequiredPassword(ctxOf(req), doerOf(req), b.password ?? '', b.retype ?? '');
      if (req.web.session) await endOtherSessions(systemCtx, req.web.session);
      changed = true;
    }, () => 'Your password has been changed.');
    res.redirect(303, changed ? back ?? settings().server.rootUrl : `${settings().server.rootUrl}${CHANGE_PASSWORD}${back ? `?redirect_to=${encodeURIComponent(back)}` : ''}`);
  }));
  return r;
}
