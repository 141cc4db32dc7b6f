/**
 * The authorization pages of the OAuth2 provider (Gitea's AuthorizeOAuth and GrantApplicationOAuth):
 * `GET|POST /login/oauth/authorize` sends a visitor to sign in and back, then skips the consent page
 * or shows it (the application, its owner, the scopes and where the browser goes next), and
 * `POST /login/oauth/grant` (CSRF-checked) grants or cancels. A bad client or redirect URI is a
 * page; every later refusal goes back to the client's redirect URI with `error` and `state`.
 */
import express, { type Request, type Response, type Router } from 'express';
import { settings } from '../../config';
import { BadRequest, NotFound } from '../../errors';
import { ctxOf } from '../../middleware/context';
import { formBody } from '../../middleware/input-guard';
import { startAuthorization, finishAuthorization, type AuthorizeParams } from '../../services/oauth2/authorize.service';
import { requireCsrf, saveIfDirty, updateSession } from './context';
import { renderPage } from './render';
import { page, signedIn } from './route';

/** The request's parameters, from the query (GET) or the form (POST), strings only. */
function paramsOf(req: Request): AuthorizeParams {
  const src = (req.method === 'GET' ? req.query : req.body) as Record<string, unknown>;
  const out: Record<string, string> = {};
  for (const k of ['client_id', 'redirect_uri', 'response_type', 'scope', 'state', 'nonce', 'code_challenge', 'code_challenge_method']) {
    if (typeof src[k] === 'string') out[k] = src[k] as string;
  }
  return out;
}

/**
 * The CSP source a form on the consent page may be sent towards: the redirect URI's origin (or its
 * scheme, for an app's own scheme). why: the grant answers 303 to the client, and browsers hold
 * the redirect of a form's answer to `form-action` too.
 */
function redirectSource(uri: string): string | null {
  try {
    const u = new URL(uri);
    if (u.protocol === 'http:' || u.protocol === 'https:') return u.origin;
    return /^[a-z][a-z0-9+.-]*:$/.test(u.protocol) ? u.protocol : null;
  } catch {
    return null;
  }
}

/** The authorization routes. */
export function oauth2AuthorizePages(): Router {
  const r = express.Router();
  const on = (_req: Request, _res: Response, next: express.NextFunction) => next(settings().oauth2.enabled ? undefined : new NotFound());

  const authorize = page(async (req, res) => {
    // why: a visitor signs in and comes back here (redirect_to is this very request).
    const user = signedIn(req, res);
    if (!user) return;
    const step = await startAuthorization(ctxOf(req), user, paramsOf(req));
    if (step.kind === 'redirect') return res.redirect(303, step.location);
    if (step.kind === 'error-page') {
      return renderPage(req, res, 'user/auth/grant_error', 'Authorization failed', { error: step.error, description: step.description }, 400);
    }
    updateSession(req, (d) => { d.oauth2 = step.pending; });
    const source = redirectSource(step.pending.redirectUri);
    if (source) res.locals.formActionSources = [source];
    await renderPage(req, res, 'user/auth/grant', `Authorize ${step.app.name}`, {
      app: { name: step.app.name, clientId: step.app.clientId },
      owner: step.owner ? { name: step.owner.name } : null,
      pending: step.pending,
      scopes: step.pending.scope.split(/\s+/).filter(Boolean),
      fullAccess: step.fullAccess,
      redirectHost: (() => { try { return new URL(step.pending.redirectUri).host || step.pending.redirectUri; } catch { return step.pending.redirectUri; } })(),
    });
  });
  r.get('/login/oauth/authorize', on, authorize);
  r.post('/login/oauth/authorize', on, ...formBody(), authorize);

  r.post('/login/oauth/grant', on, ...formBody(), requireCsrf(), page(async (req, res) => {
    const user = signedIn(req, res);
    if (!user) return;
    const b = req.body as Record<string, string>;
    const pending = req.web.session?.data.oauth2;
    // why: as Gitea, the form must be for the authorization this session was shown.
    if (!pending || pending.clientId !== b.client_id || pending.state !== (b.state ?? '') || pending.redirectUri !== b.redirect_uri) {
      throw new BadRequest('This authorization request is not the one you were asked about: start again from the application.');
    }
    updateSession(req, (d) => { delete d.oauth2; });
    await saveIfDirty(req);
    res.redirect(303, await finishAuthorization(ctxOf(req), user, pending, b.granted === 'true'));
  }));
  return r;
}
