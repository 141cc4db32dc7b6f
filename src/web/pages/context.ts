/**
 * The browser side's request context: the session from its cookie (`i_like_gitea`, as Gitea names
 * it), the signed-in user as a principal, flash messages, and the CSRF and Origin checks every
 * state-changing request passes (security class 17).
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { settings } from '../../config';
import { systemCtx } from '../../db';
import { BadRequest, Forbidden, HttpError } from '../../errors';
import { multipartBoundary, readMultipartUpload, type UploadConsumer } from '../../middleware/upload';
import { ANONYMOUS, type Principal } from '../../services/auth/principal';
import { proxyAuthenticatedName } from '../../middleware/proxy';
import { cookieValue, SESSION_COOKIE } from '../../middleware/cookies';
import { csrfValid, openSession, saveSessionData, signInSession, signInVouchedUser, startSession, type SessionData, type WebSession } from '../../services/auth/session.service';
import { redeemRememberToken, type RememberCookie } from '../../services/auth/remember.service';


/** What a page knows about its caller. */
export interface WebContext {
  session: WebSession | null;
  /** The signed-in user's principal (full rights, as a password sign-in), or anonymous. */
  principal: Principal;
  /** Session data changed during this request, to save before answering. */
  dirty: boolean;
  /** When the request reached the pages (performance.now()), for the footer's render time. */
  started: number;
}

declare module 'express-serve-static-core' {
  interface Request {
    web: WebContext;
  }
}

/** Set the session cookie: HttpOnly, SameSite=Lax, Secure when the forge is served over https. */
export function setSessionCookie(res: Response, token: string): void {
  const root = new URL(settings().server.rootUrl);
  res.cookie(SESSION_COOKIE, token, { httpOnly: true, sameSite: 'lax', secure: root.protocol === 'https:', path: root.pathname, maxAge: 86400 * 1000 });
}

/** Clear the session cookie. */
export function clearSessionCookie(res: Response): void {
  res.clearCookie(SESSION_COOKIE, { path: new URL(settings().server.rootUrl).pathname });
}

/** Set the "remember me" cookie (`[security] COOKIE_REMEMBER_NAME`), lasting as long as its token. */
export function setRememberCookie(res: Response, c: RememberCookie): void {
  const root = new URL(settings().server.rootUrl);
  res.cookie(settings().security.cookieRememberName, c.value, { httpOnly: true, sameSite: 'lax', secure: root.protocol === 'https:', path: root.pathname, maxAge: c.maxAgeSeconds * 1000 });
}

/** Clear the "remember me" cookie. */
export function clearRememberCookie(res: Response): void {
  res.clearCookie(settings().security.cookieRememberName, { path: new URL(settings().server.rootUrl).pathname });
}

/** Sign in the user a "remember me" cookie names (a new session, a new cookie), when no session is signed in. */
async function rememberedSession(req: Request, res: Response, session: WebSession | null): Promise<WebSession | null> {
  const cookie = cookieValue(req, settings().security.cookieRememberName);
  if (!cookie) return session;
  const redeemed = await redeemRememberToken(systemCtx, cookie);
  if (!redeemed) {
    clearRememberCookie(res);
    return session;
  }
  const signedIn = await signInSession(systemCtx, session, redeemed.user);
  setSessionCookie(res, signedIn.token);
  setRememberCookie(res, redeemed.next);
  return signedIn.session;
}

/**
 * Middleware: read the session (never creating one: browsing writes nothing). A trusted proxy's
 * X-WEBAUTH-USER, with reverse-proxy authentication on, signs its user in (a new session).
 */
export function webSession(): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const started = performance.now();
    const run = async () => {
      const token = cookieValue(req, SESSION_COOKIE);
      let session = token ? await openSession(systemCtx, token) : null;
      if (!session?.user) session = await rememberedSession(req, res, session);
      const vouched = proxyAuthenticatedName(req);
      if (vouched && session?.user?.lowerName !== vouched.toLowerCase()) {
        const signedIn = await signInVouchedUser(systemCtx, session, vouched);
        if (signedIn) {
          setSessionCookie(res, signedIn.token);
          session = signedIn.session;
        }
      }
      const user = session?.user ?? null;
      req.web = { session, principal: user ? { user, scopes: null, tokenId: null, method: 'session' } : ANONYMOUS, dirty: false, started };
      // why: the helpers the API's handlers use (ctxOf, viewerOf, doerOf) then serve the pages too.
      req.principal = req.web.principal;
    };
    run().then(() => next(), next);
  };
}

/** The caller's session, started (anonymous) when there is none: a page with a form needs one for its CSRF token. */
export async function ensureSession(req: Request, res: Response): Promise<WebSession> {
  if (req.web.session) return req.web.session;
  const { token, session } = await startSession(systemCtx, 0);
  setSessionCookie(res, token);
  req.web.session = session;
  return session;
}

/** Change the session's data; saved with `saveIfDirty` before the answer. */
export function updateSession(req: Request, change: (d: SessionData) => void): void {
  if (!req.web.session) return;
  change(req.web.session.data);
  req.web.dirty = true;
}

/** A message for the next page this session shows. */
export function flash(req: Request, kind: 'info' | 'success' | 'error', text: string): void {
  updateSession(req, (d) => { d.flash = [...(d.flash ?? []), { kind, text }]; });
}

/**
 * Run a form's action, then save a flash for the page it goes back to: `done`'s text when it
 * succeeded, the refusal's message when it was refused (a 4xx); a server failure propagates.
 */
export async function flashOutcome<T>(req: Request, run: () => Promise<T>, done: (result: T) => string): Promise<void> {
  try {
    flash(req, 'success', done(await run()));
  } catch (err) {
    if (!(err instanceof HttpError) || err.status >= 500) throw err;
    flash(req, 'error', err.message);
  }
  await saveIfDirty(req);
}

/**
 * Run a form's action and answer its result; a refusal (4xx) is flashed and the form shown again
 * by `again` with its status (then null); a server failure propagates.
 */
export async function unlessRefused<T>(req: Request, run: () => Promise<T>, again: (status: number) => Promise<void>): Promise<T | null> {
  try {
    return await run();
  } catch (err) {
    if (!(err instanceof HttpError) || err.status >= 500) throw err;
    flash(req, 'error', err.message);
    await again(err.status);
    return null;
  }
}

/** Save the session's data if this request changed it. */
export async function saveIfDirty(req: Request): Promise<void> {
  if (req.web.dirty && req.web.session) {
    await saveSessionData(systemCtx, req.web.session);
    req.web.dirty = false;
  }
}

/** Refuse a request that comes from another site: its `Origin`, or else its `Referer`, must be the forge's when the browser sends one. */
function assertOwnOrigin(req: Request): void {
  const own = new URL(settings().server.rootUrl).origin;
  const origin = req.headers.origin;
  const referer = req.headers.referer;
  let from: string | null = null;
  try { from = origin && origin !== 'null' ? origin : referer ? new URL(referer).origin : null; } catch { from = 'invalid'; }
  if (origin === 'null' || (from !== null && from !== own)) throw new Forbidden('cross-site request refused');
}

/** Refuse a request without the session's CSRF token. */
function assertCsrfToken(req: Request, token: unknown): void {
  if (!req.web.session || !csrfValid(req.web.session, token)) throw new Forbidden('Invalid CSRF token: reload the page and try again.');
}

/**
 * Middleware for every state-changing request: it must come from the forge's own pages and carry
 * the session's CSRF token (`_csrf` in the form, or the `X-Csrf-Token` header of a script's request).
 */
export function requireCsrf(): RequestHandler {
  return (req: Request, _res: Response, next: NextFunction) => {
    try {
      assertOwnOrigin(req);
      assertCsrfToken(req, ((req.body ?? {}) as Record<string, unknown>)._csrf ?? req.headers['x-csrf-token']);
    } catch (err) {
      return next(err);
    }
    next();
  };
}

/**
 * A form's file upload (`multipart/form-data`, the file in `fileField`), streamed to `consume`
 * after the same checks as `requireCsrf`: the token is the form's `_csrf` part, which must come
 * before the file, so nothing is stored for a forged request.
 */
export async function formUpload<T>(req: Request, fileField: string, consume: UploadConsumer<T>): Promise<T> {
  assertOwnOrigin(req);
  const boundary = multipartBoundary(req.headers['content-type']);
  if (!boundary) throw new BadRequest('the form must be sent as multipart/form-data');
  return readMultipartUpload(req, boundary, fileField, async (filename, data, fields) => {
    assertCsrfToken(req, fields._csrf ?? req.headers['x-csrf-token']);
    return consume(filename, data, fields);
  });
}

/**
 * A `redirect_to` kept local (security class 17): decoded, backslashes read as slashes, dot
 * segments resolved, then only a path with one leading `/` under the forge's own path; else null.
 * The decoded form is what is checked; when the text as given passes the same checks, it is what
 * is followed. why: decoding the query too would change its values (an OAuth2 authorization's
 * `redirect_uri` with a query of its own, a `state` holding `&`).
 */
export function localRedirect(raw: unknown): string | null {
  if (typeof raw !== 'string' || raw === '' || raw.length > 2048) return null;
  let v = raw;
  try { v = decodeURIComponent(v); } catch { return null; }
  const decoded = localTarget(v.replace(/\\/g, '/'));
  if (decoded === null) return null;
  return (raw.includes('\\') ? null : localTarget(raw)) ?? decoded;
}

/** The path (with query) `v` leads to when it stays on the forge, else null. */
function localTarget(v: string): string | null {
  if (!v.startsWith('/') || v.startsWith('//') || [...v].some((c) => c.charCodeAt(0) < 0x20)) return null;
  const resolved = new URL(v, 'http://local.invalid');
  if (resolved.origin !== 'http://local.invalid' || resolved.pathname.startsWith('//')) return null;
  const sub = new URL(settings().server.rootUrl).pathname;
  const target = resolved.pathname + resolved.search + resolved.hash;
  return target.startsWith(sub) ? target : null;
}
