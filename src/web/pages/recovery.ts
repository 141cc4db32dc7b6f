/**
 * The account pages that mail links lead to (Gitea's routes): a forgotten password
 * (`/user/forgot_password`, then `/user/recover_account?code=` from the mail), the activation of a
 * new account (`/user/activate`, which also sends the mail again) and the confirmation of an added
 * address (`/user/activate_email`). Each link's code is checked by the services; a page never
 * tells whether an address has an account.
 */
import express, { type Request, type Response, type Router } from 'express';
import { settings } from '../../config';
import { systemCtx } from '../../db';
import { HttpError, NotFound } from '../../errors';
import { findUserById, type UserModel } from '../../models/user.model';
import { formBody } from '../../middleware/input-guard';
import { endOtherSessions } from '../../services/auth/session.service';
import { codeHours } from '../../services/mail/codes';
import {
  activateAccount, activateEmail, requestPasswordReset, resendActivation, resetNeedsPasscode, resetPassword, userOfActivationCode, userOfResetCode,
} from '../../services/mail/recovery.service';
import { completeSignIn } from './auth';
import { ensureSession, flash, requireCsrf, saveIfDirty, updateSession } from './context';
import { renderPage } from './render';
import { page } from './route';

const INVALID_RESET = 'The link is not valid or has expired. Ask for a new one below.';
const INVALID_ACTIVATION = 'The activation link is not valid or has expired. Sign in to have a new one sent.';

/**
 * Sign `user` in (a link's flow ended well), say so, and go where the sign-in was going; with
 * `endOthers`, every other session of the user ends (a password reset shuts out whoever had it).
 */
async function signInWith(req: Request, res: Response, user: UserModel, said: string, endOthers = false): Promise<void> {
  const to = await completeSignIn(req, res, user);
  if (endOthers && req.web.session) await endOtherSessions(systemCtx, req.web.session);
  flash(req, 'success', said);
  await saveIfDirty(req);
  res.redirect(303, to);
}

/** Forgot-password, recover-account, activation and address confirmation routes. */
export function recoveryPages(): Router {
  const r = express.Router();
  const csrf = requireCsrf();
  const mailOn = () => settings().mailer.enabled;
  const code = (req: Request) => String((req.method === 'GET' ? req.query.code : (req.body as Record<string, unknown>).code) ?? '');

  r.get('/user/forgot_password', page(async (req, res) => {
    if (mailOn()) await ensureSession(req, res);
    await renderPage(req, res, 'user/forgot_password', 'Forgot password', { mailOn: mailOn(), email: String(req.query.email ?? '') });
  }));

  r.post('/user/forgot_password', ...formBody(), (req, _res, next) => next(mailOn() ? undefined : new NotFound('mail is not enabled')), csrf, page(async (req, res) => {
    const email = String((req.body as Record<string, unknown>).email ?? '').trim();
    await requestPasswordReset(systemCtx, email);
    // why: the same answer whether or not the address has an account, so the form finds out nothing.
    await renderPage(req, res, 'user/forgot_password', 'Forgot password', { mailOn: true, sent: true, email, hours: codeHours('reset_password') });
  }));

  const recoverForm = async (req: Request, res: Response, status = 200) => {
    const user = await userOfResetCode(systemCtx, code(req));
    if (!user) return renderPage(req, res, 'user/recover_account', 'Recover your account', { invalid: INVALID_RESET }, status === 200 ? 200 : status);
    await ensureSession(req, res);
    await renderPage(req, res, 'user/recover_account', 'Recover your account', {
      code: code(req), email: user.email, passcode: await resetNeedsPasscode(systemCtx, user),
    }, status);
  };
  r.get('/user/recover_account', page((req, res) => recoverForm(req, res)));

  r.post('/user/recover_account', ...formBody(), csrf, page(async (req, res) => {
    const b = req.body as Record<string, string>;
    if ((b.password ?? '') !== (b.retype ?? b.password ?? '')) {
      flash(req, 'error', 'The passwords do not match.');
      return recoverForm(req, res, 422);
    }
    try {
      await signInWith(req, res, await resetPassword(systemCtx, code(req), b.password ?? '', b.passcode ?? '', req.ip ?? ''), 'Your password has been changed.', true);
    } catch (err) {
      if (!(err instanceof HttpError)) throw err;
      flash(req, 'error', err.message);
      await recoverForm(req, res, err.status);
    }
  }));

  r.get('/user/activate', page(async (req, res) => {
    if (code(req)) {
      const user = await userOfActivationCode(systemCtx, code(req));
      if (user) await ensureSession(req, res);
      return renderPage(req, res, 'user/activate', 'Activate your account', user ? { prompt: 'password', code: code(req), name: user.name } : { prompt: 'invalid', message: INVALID_ACTIVATION }, user ? 200 : 403);
    }
    // why: the account that signed in but waits for activation may have its mail sent again (at most once in three minutes).
    const uid = req.web.session?.data.inactiveUid;
    const user = uid ? await findUserById(systemCtx, uid) : null;
    if (!user || user.isActive) return res.redirect(303, `${settings().server.rootUrl}user/login`);
    const sent = await resendActivation(systemCtx, user);
    await renderPage(req, res, 'user/activate', 'Activate your account', { prompt: sent ? 'sent' : 'wait', email: user.email, hours: codeHours('activate_account') });
  }));

  r.post('/user/activate', ...formBody(), csrf, page(async (req, res) => {
    try {
      const user = await activateAccount(systemCtx, code(req), String((req.body as Record<string, unknown>).password ?? ''));
      updateSession(req, (d) => { d.inactiveUid = undefined; });
      await signInWith(req, res, user, 'Your account has been activated.');
    } catch (err) {
      if (!(err instanceof HttpError)) throw err;
      const still = await userOfActivationCode(systemCtx, code(req));
      await renderPage(req, res, 'user/activate', 'Activate your account',
        still ? { prompt: 'password', code: code(req), name: still.name, message: err.message } : { prompt: 'invalid', message: INVALID_ACTIVATION }, err.status);
    }
  }));

  r.get('/user/activate_email', page(async (req, res) => {
    const ok = await activateEmail(systemCtx, code(req), String(req.query.email ?? ''));
    if (req.web.session) {
      flash(req, ok ? 'success' : 'error', ok ? `${String(req.query.email)} has been confirmed.` : 'The confirmation link is not valid or has expired.');
      await saveIfDirty(req);
    }
    res.redirect(303, `${settings().server.rootUrl}${req.web.principal.user ? 'user/settings/account' : 'user/login'}`);
  }));
  return r;
}
