/**
 * Signing in and out in the browser: the password, then the second factor when the account has
 * one (a TOTP passcode, the scratch code, or a security key); sign-up as the API's rules have it.
 * A sign-in starts a new session; `redirect_to` is followed only when it stays on the forge.
 */
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { settings } from '../../config';
import { systemCtx } from '../../db';
import { Forbidden, HttpError, Unauthorized, Validation } from '../../errors';
import { findUserById, type UserModel } from '../../models/user.model';
import { formBody } from '../../middleware/input-guard';
import { checkPassword } from '../../services/auth/credentials';
import { assertLoginAllowed, recordLoginFailure } from '../../services/auth/limiter';
import { endSession, signInSession } from '../../services/auth/session.service';
import { forgetRememberToken, issueRememberToken } from '../../services/auth/remember.service';
import { checkTotp, secondFactorsOf, securityKeySignInOptions, useScratchCode, verifySecurityKeySignIn } from '../../services/auth/two-factor.service';
import { confirmationRequired, signUp } from '../../services/mail/recovery.service';
import { codeHours } from '../../services/mail/codes';
import { cookieValue } from '../../middleware/cookies';
import { clearRememberCookie, clearSessionCookie, ensureSession, flash, localRedirect, requireCsrf, saveIfDirty, setRememberCookie, setSessionCookie, updateSession } from './context';
import { renderPage } from './render';
import { jsonBody, jsonRoute, page } from './route';

const PROHIBITED = 'This account is prohibited from signing in, please contact your site administrator.';

/**
 * Finish a sign-in: a new session for `user` (and the long-lived cookie when "remember me" was
 * ticked), then where the sign-in was going.
 */
export async function completeSignIn(req: Request, res: Response, user: UserModel): Promise<string> {
  const to = req.web.session?.data.redirectTo;
  const remember = req.web.session?.data.remember === true;
  const { token, session } = await signInSession(systemCtx, req.web.session, user);
  setSessionCookie(res, token);
  if (remember) setRememberCookie(res, await issueRememberToken(systemCtx, user));
  req.web.session = session;
  return to ?? settings().server.rootUrl;
}

/** The user who gave the right password and owes the second factor, or a 403 to start over. */
async function pendingUser(req: Request): Promise<UserModel> {
  const uid = req.web.session?.data.pendingUid;
  const user = uid ? await findUserById(systemCtx, uid) : null;
  if (!user) throw new Forbidden('Your sign-in expired: sign in again.');
  return user;
}

/** Sign-in, second factor, sign-out and sign-up routes. */
export function authPages(): Router {
  const r = express.Router();
  const csrf = requireCsrf();

  r.get('/user/login', page(async (req, res) => {
    const to = localRedirect(req.query.redirect_to);
    if (req.web.principal.user) return res.redirect(303, to ?? settings().server.rootUrl);
    await ensureSession(req, res);
    await renderPage(req, res, 'user/login', 'Sign in', { redirectTo: to, canReset: settings().mailer.enabled });
  }));

  r.post('/user/login', ...formBody(), csrf, page(async (req, res) => {
    const body = req.body as Record<string, string>;
    const to = localRedirect(body.redirect_to);
    const again = (status: number, message: string) => {
      flash(req, 'error', message);
      return renderPage(req, res, 'user/login', 'Sign in', { redirectTo: to, userName: body.user_name, canReset: settings().mailer.enabled }, status);
    };
    const user = await checkPassword(systemCtx, req.ip ?? '', body.user_name ?? '', body.password ?? '');
    if (!user) return again(401, 'Username or password is incorrect.');
    // why: as Gitea, an account waiting for its activation mail is told so (and may have it sent again), not refused as prohibited.
    if (!user.isActive && !user.prohibitLogin && confirmationRequired()) {
      updateSession(req, (d) => { d.inactiveUid = user.id; });
      return renderPage(req, res, 'user/activate', 'Activate your account', { prompt: 'inactive', email: user.email });
    }
    if (!user.isActive || user.prohibitLogin) return again(403, PROHIBITED);
    const factors = await secondFactorsOf(systemCtx, user.id);
    const remember = body.remember === 'on';
    if (!factors.totp && !factors.webauthn) {
      updateSession(req, (d) => { d.redirectTo = to ?? undefined; d.remember = remember; });
      return res.redirect(303, await completeSignIn(req, res, user));
    }
    updateSession(req, (d) => { d.pendingUid = user.id; d.redirectTo = to ?? undefined; d.remember = remember; });
    await saveIfDirty(req);
    res.redirect(303, `${settings().server.rootUrl}user/two_factor`);
  }));

  r.get('/user/two_factor', page(async (req, res) => {
    const user = await pendingUser(req);
    await renderPage(req, res, 'user/two_factor', 'Two-factor authentication', { ...(await secondFactorsOf(systemCtx, user.id)) });
  }));

  r.post('/user/two_factor', ...formBody(), csrf, page(async (req, res) => {
    const user = await pendingUser(req);
    const ip = req.ip ?? '';
    // why: six digits fall to guessing without a limit; failures count as failed sign-ins (429 after too many).
    await assertLoginAllowed(ip, user.name);
    if (!(await checkTotp(systemCtx, user, String(req.body.passcode ?? ''), true))) {
      await recordLoginFailure(ip, user.name, 'second-factor');
      flash(req, 'error', 'Passcode incorrect. If you misplaced your device, use your scratch code to sign in.');
      return renderPage(req, res, 'user/two_factor', 'Two-factor authentication', { ...(await secondFactorsOf(systemCtx, user.id)) }, 422);
    }
    res.redirect(303, await completeSignIn(req, res, user));
  }));

  r.post('/user/two_factor/scratch', ...formBody(), csrf, page(async (req, res) => {
    const user = await pendingUser(req);
    const ip = req.ip ?? '';
    await assertLoginAllowed(ip, user.name);
    if (!(await useScratchCode(systemCtx, user, String(req.body.token ?? '')))) {
      await recordLoginFailure(ip, user.name, 'second-factor');
      flash(req, 'error', 'Your scratch code is incorrect.');
      return renderPage(req, res, 'user/two_factor', 'Two-factor authentication', { ...(await secondFactorsOf(systemCtx, user.id)) }, 422);
    }
    updateSession(req, (d) => { d.redirectTo = undefined; });
    await completeSignIn(req, res, user);
    flash(req, 'info', 'Your scratch code has been used. Generate a new one, or remove the enrolment, below.');
    await saveIfDirty(req);
    res.redirect(303, `${settings().server.rootUrl}user/settings/security`);
  }));

  r.post('/user/webauthn/options', jsonBody(), csrf, jsonRoute(async (req, res) => {
    const user = await pendingUser(req);
    const options = await securityKeySignInOptions(systemCtx, user);
    updateSession(req, (d) => { d.webauthnChallenge = options.challenge; });
    await saveIfDirty(req);
    res.json(options);
  }));

  r.post('/user/webauthn', jsonBody(), csrf, jsonRoute(async (req, res) => {
    const user = await pendingUser(req);
    const challenge = req.web.session?.data.webauthnChallenge;
    updateSession(req, (d) => { d.webauthnChallenge = undefined; });
    await saveIfDirty(req);
    if (!challenge || !(await verifySecurityKeySignIn(systemCtx, user, challenge, (req.body as { response?: never }).response as never))) {
      await recordLoginFailure(req.ip ?? '', user.name, 'second-factor');
      throw new Unauthorized('The security key did not sign in: try again.');
    }
    res.json({ redirect: await completeSignIn(req, res, user) });
  }));

  r.post('/user/logout', ...formBody(), csrf, page(async (req, res) => {
    if (req.web.session) await endSession(systemCtx, req.web.session);
    const remembered = cookieValue(req, settings().security.cookieRememberName);
    if (remembered) await forgetRememberToken(systemCtx, remembered);
    clearSessionCookie(res);
    clearRememberCookie(res);
    res.redirect(303, settings().server.rootUrl);
  }));

  const REGISTRATION_DISABLED = 'Registration is disabled. Please contact your site administrator.';
  r.get('/user/sign_up', page(async (req, res) => {
    const disabled = settings().service.disableRegistration;
    if (!disabled) await ensureSession(req, res);
    await renderPage(req, res, 'user/sign_up', 'Register', { disabled, values: {}, message: disabled ? REGISTRATION_DISABLED : '' }, disabled ? 403 : 200);
  }));

  // why: with registration off the form is refused whatever it carries, before its token is asked for.
  const registrationOpen = (_req: Request, _res: Response, next: NextFunction) => next(settings().service.disableRegistration ? new Forbidden(REGISTRATION_DISABLED) : undefined);
  r.post('/user/sign_up', ...formBody(), registrationOpen, csrf, (req: Request, res: Response, next: NextFunction) => {
    const body = req.body as Record<string, string | undefined>;
    const run = async () => {
      if (body.password !== body.retype) throw new Validation('The passwords do not match.');
      const user = await signUp(systemCtx, { username: body.user_name ?? '', email: body.email ?? '', password: body.password ?? '' });
      // why: as Gitea, an account that needs no confirmation is signed in at once.
      if (user.isActive) return res.redirect(303, await completeSignIn(req, res, user));
      updateSession(req, (d) => { d.inactiveUid = user.id; });
      await renderPage(req, res, 'user/activate', 'Activate your account', { prompt: 'sent', email: user.email, hours: codeHours('activate_account') });
    };
    run().catch((err: unknown) => {
      if (!(err instanceof HttpError)) return next(err);
      const values = { user_name: body.user_name ?? '', email: body.email ?? '' };
      renderPage(req, res, 'user/sign_up', 'Register', { disabled: err.status === 403, values, message: err.message }, err.status).catch(next);
    });
  });
  return r;
}
