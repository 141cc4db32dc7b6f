/**
 * The user's security settings: TOTP enrolment (a QR code and a first code, the scratch code shown
 * once, disable with the password) and security keys (register, remove).
 */
import express, { type Router } from 'express';
import { settings } from '../../config';
import { systemCtx } from '../../db';
import { Validation } from '../../errors';
import { formBody } from '../../middleware/input-guard';
import { endOtherSessions } from '../../services/auth/session.service';
import {
  disableTotp, enrolTotp, newTotpSecret, totpEnrolment, regenerateScratchCode, registerSecurityKey, removeSecurityKey, secondFactorsOf,
  securityKeyRegistrationOptions, securityKeysOf,
} from '../../services/auth/two-factor.service';
import { flash, flashOutcome, requireCsrf, saveIfDirty, updateSession } from './context';
import { renderPage } from './render';
import { jsonBody, jsonRoute, page, signedIn } from './route';

const SECURITY = 'user/settings/security';

/** Security settings routes. */
export function securityPages(): Router {
  const r = express.Router();
  const csrf = requireCsrf();
  const back = () => `${settings().server.rootUrl}${SECURITY}`;

  r.get(`/${SECURITY}`, page(async (req, res) => {
    const user = signedIn(req, res);
    if (!user) return;
    const [factors, keys] = await Promise.all([secondFactorsOf(systemCtx, user.id), securityKeysOf(systemCtx, user)]);
    await renderPage(req, res, SECURITY, 'Security', { factors, keys: keys.map((k) => ({ id: k.id, name: k.name })) });
  }));

  r.get(`/${SECURITY}/two_factor/enroll`, page(async (req, res) => {
    const user = signedIn(req, res);
    if (!user) return;
    if ((await secondFactorsOf(systemCtx, user.id)).totp) return res.redirect(303, back());
    const fresh = await newTotpSecret(user);
    updateSession(req, (d) => { d.totpSecret = fresh.secret; });
    await renderPage(req, res, 'user/settings/totp_enrol', 'Enrol two-factor authentication', fresh);
  }));

  r.post(`/${SECURITY}/two_factor/enroll`, ...formBody(), csrf, page(async (req, res) => {
    const user = signedIn(req, res);
    if (!user) return;
    const secret = req.web.session?.data.totpSecret ?? '';
    try {
      const scratch = await enrolTotp(systemCtx, user, secret, String(req.body.passcode ?? ''));
      updateSession(req, (d) => { d.totpSecret = undefined; });
      // why: a second factor added closes the sessions that did not need it.
      await endOtherSessions(systemCtx, req.web.session!);
      flash(req, 'success', `Two-factor authentication is enrolled. Your scratch code is ${scratch}: keep it somewhere safe, it signs you in once if you lose your device.`);
      await saveIfDirty(req);
      res.redirect(303, back());
    } catch (err) {
      if (!(err instanceof Validation) || !secret) throw err;
      flash(req, 'error', err.message);
      await renderPage(req, res, 'user/settings/totp_enrol', 'Enrol two-factor authentication', await totpEnrolment(user, secret), 422);
    }
  }));

  r.post(`/${SECURITY}/two_factor/regenerate_scratch`, ...formBody(), csrf, page(async (req, res) => {
    const user = signedIn(req, res);
    if (!user) return;
    const scratch = await regenerateScratchCode(systemCtx, user);
    flash(req, 'success', `Your new scratch code is ${scratch}. The old one no longer works.`);
    await saveIfDirty(req);
    res.redirect(303, back());
  }));

  r.post(`/${SECURITY}/two_factor/disable`, ...formBody(), csrf, page(async (req, res) => {
    const user = signedIn(req, res);
    if (!user) return;
    await flashOutcome(req, () => disableTotp(systemCtx, user, String(req.body.password ?? '')), () => 'Two-factor authentication has been disabled.');
    res.redirect(303, back());
  }));

  r.post(`/${SECURITY}/webauthn/request_register`, jsonBody(), csrf, jsonRoute(async (req, res) => {
    const user = req.web.principal.user;
    if (!user) throw new Validation('sign in first');
    const options = await securityKeyRegistrationOptions(systemCtx, user);
    updateSession(req, (d) => { d.webauthnChallenge = options.challenge; });
    await saveIfDirty(req);
    res.json(options);
  }));

  r.post(`/${SECURITY}/webauthn/register`, jsonBody(), csrf, jsonRoute(async (req, res) => {
    const user = req.web.principal.user;
    if (!user) throw new Validation('sign in first');
    const challenge = req.web.session?.data.webauthnChallenge;
    updateSession(req, (d) => { d.webauthnChallenge = undefined; });
    await saveIfDirty(req);
    if (!challenge) throw new Validation('no security key registration is under way: start again');
    const body = req.body as { name?: unknown; response?: unknown };
    await registerSecurityKey(systemCtx, user, typeof body.name === 'string' ? body.name : '', challenge, body.response as never);
    await endOtherSessions(systemCtx, req.web.session!);
    flash(req, 'success', 'The security key has been added.');
    await saveIfDirty(req);
    res.status(201).json({ ok: true });
  }));

  r.post(`/${SECURITY}/webauthn/delete`, ...formBody(), csrf, page(async (req, res) => {
    const user = signedIn(req, res);
    if (!user) return;
    await removeSecurityKey(systemCtx, user, Number(req.body.id));
    flash(req, 'success', 'The security key has been removed.');
    await saveIfDirty(req);
    res.redirect(303, back());
  }));
  return r;
}
