/**
 * Identifies the caller of every API, git and web request: access token (header `token`/`Bearer`,
 * query `token`/`access_token`), HTTP Basic with a password or a token as password, then `sudo`.
 * It never refuses an anonymous caller; routes decide what they need (see security.ts).
 */
import type { Request, Response, NextFunction, RequestHandler } from 'express';
import { systemCtx } from '../db';
import { findUserById, findUserByName, pseudoUser, UserType, type UserModel } from '../models/user.model';
import { Unauthorized, Forbidden, NotFound } from '../errors';
import { verifyToken } from '../services/auth/token-cache';
import { verifyAccessToken } from '../services/oauth2/access';
import { looksLikeJwt } from '../services/oauth2/jwt';
import { taskOfToken } from '../services/actions/task.service';
import { checkPassword } from '../services/auth/credentials';
import { openSession } from '../services/auth/session.service';
import { cookieValue, SESSION_COOKIE } from './cookies';
import { ANONYMOUS, type Principal } from '../services/auth/principal';
import { assertGitPasswordAllowed, assertPasswordAuthAllowed } from '../services/auth/two-factor.service';
import { hasScope, ScopeLevel } from '../services/auth/scope';
import { settings } from '../config';

export type { Principal };

declare module 'express-serve-static-core' {
  interface Request {
    principal: Principal;
    requestId: string;
    /** The body is text to take as it is (`/markdown/raw`), never read as JSON. */
    rawText?: boolean;
  }
}

const PROHIBITED = 'This account is prohibited from signing in, please contact your site administrator.';

const NOT_ACTIVATED = 'This account is not activated.';

/** Refuse a user who may not act (Gitea's API rule): not yet activated, or prohibited from signing in. */
function assertMayAct(user: UserModel): void {
  // why: as Gitea, an account waiting for its activation mail is told so, but only when activation by mail is on.
  if (!user.isActive && settings().service.registerEmailConfirm) throw new Forbidden(NOT_ACTIVATED);
  if (!user.isActive || user.prohibitLogin) throw new Forbidden(PROHIBITED);
}

function bad(message = 'user does not exist or token is invalid'): Unauthorized {
  return new Unauthorized(message);
}

/**
 * The grant's user of an OAuth2 access token, with the grant's token scopes (Gitea's
 * GetOAuthAccessTokenScopeAndUserID), or null when `raw` is no live access token.
 */
async function userForOAuth2Token(raw: string, method: Principal['method']): Promise<Principal | null> {
  const access = await verifyAccessToken(raw);
  if (!access) return null;
  const user = await findUserById(systemCtx, access.userId);
  if (!user || user.type !== UserType.Individual) throw bad();
  assertMayAct(user);
  return { user, scopes: access.scopes, tokenId: null, method, oauth2Grant: access.grantId };
}

async function userForToken(raw: string, method: Principal['method']): Promise<Principal> {
  // why: an OAuth2 access token is a JWT (it has dots); personal and job tokens never do.
  if (looksLikeJwt(raw)) {
    const p = await userForOAuth2Token(raw, method);
    if (!p) throw bad();
    return p;
  }
  const tok = await verifyToken(raw);
  if (!tok) {
    const task = await taskOfToken(raw);
    if (!task) throw bad();
    return { user: pseudoUser(-2), scopes: null, tokenId: null, method, actionsTask: { id: task.id, repoId: task.repoId, readOnly: task.isForkPullRequest } };
  }
  const user = await findUserById(systemCtx, tok.uid);
  if (!user || user.type !== UserType.Individual) throw bad();
  assertMayAct(user);
  return { user, scopes: tok.scopes, tokenId: tok.id, method };
}

/** How a route treats a password of a user with a second factor: the API asks for X-Gitea-OTP, git refuses it. */
export type PasswordWithSecondFactor = 'otp' | 'refuse';

async function userForPassword(req: Request, login: string, password: string, secondFactor: PasswordWithSecondFactor): Promise<Principal> {
  const user = await checkPassword(systemCtx, req.ip ?? '', login, password);
  if (!user) throw bad('invalid username, password or token');
  assertMayAct(user);
  if (secondFactor === 'refuse') await assertGitPasswordAllowed(systemCtx, user);
  else await assertPasswordAuthAllowed(systemCtx, user, req.headers['x-gitea-otp'] as string | undefined);
  return { user, scopes: null, tokenId: null, method: 'basic-password' };
}

async function identify(req: Request, res: Response, secondFactor: PasswordWithSecondFactor, withSessions: boolean): Promise<Principal> {
  const header = req.headers.authorization ?? '';
  const sp = header.indexOf(' ');
  const kind = (sp > 0 ? header.slice(0, sp) : header).toLowerCase();
  const value = sp > 0 ? header.slice(sp + 1).trim() : '';
  if (kind === 'token' || kind === 'bearer') return userForToken(value, 'token');
  if (kind === 'basic') {
    const decoded = Buffer.from(value, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) throw bad('invalid basic authentication');
    const login = decoded.slice(0, colon);
    const secret = decoded.slice(colon + 1);
    // why: as Gitea, an OAuth2 access token goes as the Basic password under any name (`oauth2`,
    // what git credential helpers send), or as the name with an empty or `x-oauth-basic` password.
    // A password may look like a JWT (`a.b.c`): when it is no live token, it is tried as a password.
    const jwt = looksLikeJwt(secret) ? secret : (secret === '' || secret === 'x-oauth-basic') && looksLikeJwt(login) ? login : null;
    const viaOAuth2 = jwt === null ? null : await userForOAuth2Token(jwt, 'basic-token');
    if (viaOAuth2) return viaOAuth2;
    // why: Gitea accepts a token as the Basic password (git clients send it this way), and as the username with an empty password.
    if (/^[0-9a-f]{40}$/.test(secret)) {
      const p = await userForToken(secret, 'basic-token');
      // why: a job's token goes with any name (actions/checkout sends x-access-token), as in Gitea.
      if (login && !p.actionsTask && p.user!.lowerName !== login.toLowerCase() && login.toLowerCase() !== 'oauth2') throw bad();
      return p;
    }
    if (secret === '' && /^[0-9a-f]{40}$/.test(login)) return userForToken(login, 'basic-token');
    return userForPassword(req, login, secret, secondFactor);
  }
  if (header !== '') throw bad('unsupported authorization scheme');
  // why: a signed-in browser follows raw, media, archive and attachment links with its session cookie (GETs only).
  const cookie = withSessions && (req.method === 'GET' || req.method === 'HEAD') ? cookieValue(req, SESSION_COOKIE) : null;
  const session = cookie ? await openSession(systemCtx, cookie) : null;
  if (session?.user) return { user: session.user, scopes: null, tokenId: null, method: 'session' };
  const q = req.query as Record<string, unknown>;
  const qt = typeof q.token === 'string' ? q.token : typeof q.access_token === 'string' ? q.access_token : null;
  if (qt !== null && settings().security.disableQueryAuthToken) {
    // why: as Gitea with DISABLE_QUERY_AUTH_TOKEN, the query token is ignored (the caller is anonymous) and the admin is told once.
    warnQueryTokenIgnored();
    return ANONYMOUS;
  }
  if (qt !== null) {
    // why: query tokens leak into logs and proxies; Gitea still accepts them but warns, and so do we.
    res.setHeader('X-Gitea-Warning', 'token and access_token API authentication is deprecated and will be removed in gitea 1.23. Please use AuthorizationHeaderToken instead. Existing queries will continue to work but without authorization.');
    return userForToken(qt, 'token');
  }
  return ANONYMOUS;
}

let queryTokenWarned = false;
function warnQueryTokenIgnored(): void {
  if (queryTokenWarned) return;
  queryTokenWarned = true;
  console.warn('API token sent in query string but [security] DISABLE_QUERY_AUTH_TOKEN=true: ignored');
}

async function applySudo(req: Request, p: Principal): Promise<Principal> {
  const q = req.query as Record<string, unknown>;
  const sudo = (typeof q.sudo === 'string' ? q.sudo : undefined) ?? (req.headers.sudo as string | undefined);
  if (!sudo) return p;
  if (!p.user?.isAdmin) throw new Forbidden('Only administrators allowed to sudo.');
  // why: a token scoped to less than the whole admin's power must not become any user (as Forgejo decides).
  if (p.scopes && !p.scopes.all && !hasScope(p.scopes, 'admin', ScopeLevel.Write)) {
    throw new Forbidden('sudo needs a token with the "all" or "write:admin" scope');
  }
  const target = await findUserByName(systemCtx, sudo);
  if (!target || target.type !== UserType.Individual) throw new NotFound(`user redirect does not exist [name: ${sudo}]`);
  return { ...p, user: target };
}

/**
 * Express middleware: sets req.principal or answers the error (401/403/429). `secondFactor` says
 * what a password of a user with two-factor authentication gets (git over HTTP: `refuse`); with
 * `sessions`, a GET without credentials may be a signed-in browser's (its session cookie).
 */
export function authenticate(secondFactor: PasswordWithSecondFactor = 'otp', opts: { sessions?: boolean } = {}): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    identify(req, res, secondFactor, !!opts.sessions)
      .then((p) => applySudo(req, p))
      .then((p) => {
        req.principal = p;
        next();
      })
      .catch(next);
  };
}
