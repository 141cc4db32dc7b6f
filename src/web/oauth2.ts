/**
 * The OAuth2 / OpenID Connect endpoints that clients call without a browser (Gitea's
 * routers/web/auth/oauth2_provider.go): the token endpoint, userinfo, the JSON Web Key Set,
 * token introspection and the discovery document. They read no session and take no CSRF token;
 * the token endpoint's refusals are RFC 6749's `{error, error_description}` with status 400, as
 * Gitea answers them. With [oauth2] ENABLED off, all answer 404.
 */
import express, { type NextFunction, type Request, type RequestHandler, type Response, type Router } from 'express';
import { settings } from '../config';
import { systemCtx } from '../db';
import { bodyGuard } from '../middleware/input-guard';
import { findUserById, UserType } from '../models/user.model';
import { toProfileClaims, toUserInfo } from '../convert/oauth2';
import { findApplicationByClientId } from '../models/oauth2-application.model';
import { scopeContains, verifyAccessToken } from '../services/oauth2/access';
import { validClientSecret } from '../services/oauth2/application.service';
import { groupsOf } from '../services/oauth2/grant.service';
import { jwks, signingAlgorithm } from '../services/oauth2/jwt';
import { exchangeCode, exchangeRefreshToken, introspect, OAuth2Error, type TokenRequest } from '../services/oauth2/token.service';

/** 404 while the provider is off (Gitea's oauth2Enabled). */
function enabled(_req: Request, res: Response, next: NextFunction): void {
  if (settings().oauth2.enabled) return next();
  res.status(404).type('text/plain').send('Not Found\n');
}

/** A small form or JSON body, flattened to its string fields. */
function body(): RequestHandler[] {
  const flatten: RequestHandler = (req, _res, next) => {
    const out: Record<string, string> = Object.create(null) as Record<string, string>;
    for (const [k, v] of Object.entries((req.body ?? {}) as Record<string, unknown>)) {
      const first = Array.isArray(v) ? v[0] : v;
      if (typeof first === 'string') out[k] = first;
    }
    req.body = out;
    next();
  };
  return [express.urlencoded({ extended: false, limit: '64kb' }), express.json({ limit: '64kb' }), flatten, bodyGuard()];
}

/** The id and secret of HTTP Basic (RFC 6749 2.3.1: each form-encoded), or null. */
function basicCredentials(req: Request): { id: string; secret: string } | null {
  const m = /^basic\s+(\S+)$/i.exec(req.headers.authorization ?? '');
  if (!m) return null;
  const decoded = Buffer.from(m[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return null;
  const unform = (s: string) => { try { return decodeURIComponent(s.replace(/\+/g, ' ')); } catch { return s; } };
  return { id: unform(decoded.slice(0, colon)), secret: unform(decoded.slice(colon + 1)) };
}

/** The token request with the client's credentials from the body or, as Gitea, from HTTP Basic; null when the two disagree. */
function tokenRequest(req: Request): TokenRequest | OAuth2Error {
  const f = { ...(req.body as TokenRequest) };
  if ((!f.client_id || !f.client_secret) && req.headers.authorization) {
    const basic = basicCredentials(req);
    if (!basic) return new OAuth2Error('invalid_request', 'cannot parse basic auth header');
    if (f.client_id && f.client_id !== basic.id) return new OAuth2Error('invalid_request', 'client_id in request body inconsistent with Authorization header');
    if (f.client_secret && f.client_secret !== basic.secret) return new OAuth2Error('invalid_request', 'client_secret in request body inconsistent with Authorization header');
    f.client_id = basic.id;
    f.client_secret = basic.secret;
  }
  return f;
}

/** The discovery document (Gitea's oidc_wellknown.tmpl), with ROOT_URL as the issuer. */
async function discovery(): Promise<Record<string, unknown>> {
  const root = settings().server.rootUrl;
  return {
    issuer: root,
    authorization_endpoint: `${root}login/oauth/authorize`,
    token_endpoint: `${root}login/oauth/access_token`,
    jwks_uri: `${root}login/oauth/keys`,
    userinfo_endpoint: `${root}login/oauth/userinfo`,
    introspection_endpoint: `${root}login/oauth/introspect`,
    response_types_supported: ['code', 'id_token'],
    id_token_signing_alg_values_supported: [await signingAlgorithm()],
    subject_types_supported: ['public'],
    scopes_supported: ['openid', 'profile', 'email', 'groups'],
    claims_supported: ['aud', 'exp', 'iat', 'iss', 'sub', 'name', 'preferred_username', 'profile', 'picture', 'website', 'locale', 'updated_at', 'email', 'email_verified', 'groups'],
    code_challenge_methods_supported: ['plain', 'S256'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
  };
}

const run = (fn: (req: Request, res: Response) => Promise<unknown>): RequestHandler => (req, res, next) => { fn(req, res).catch(next); };

/** The provider's machine endpoints. */
export function oauth2Router(): Router {
  const r = express.Router();
  const unauthorized = (res: Response, scheme: 'Bearer' | 'Basic') => {
    res.setHeader('WWW-Authenticate', `${scheme} realm="Gitea OAuth2"`);
    res.status(401).type('text/plain').send('no valid authorization');
  };

  r.post('/login/oauth/access_token', enabled, ...body(), run(async (req, res) => {
    // why: RFC 6749 5.1: token answers must not be cached.
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Pragma', 'no-cache');
    const profile = (u: Parameters<typeof toProfileClaims>[0]) => toProfileClaims(u, settings().server.rootUrl);
    try {
      const f = tokenRequest(req);
      if (f instanceof OAuth2Error) throw f;
      if (f.grant_type === 'authorization_code') res.json(await exchangeCode(systemCtx, f, profile));
      else if (f.grant_type === 'refresh_token') res.json(await exchangeRefreshToken(systemCtx, f, profile));
      else throw new OAuth2Error('unsupported_grant_type', 'Only refresh_token or authorization_code grant type is supported');
    } catch (err) {
      if (!(err instanceof OAuth2Error)) throw err;
      res.status(400).json({ error: err.error, error_description: err.description });
    }
  }));

  const userinfo = run(async (req, res) => {
    const m = /^(?:bearer|token)\s+(\S+)$/i.exec(req.headers.authorization ?? '');
    // why: only an OAuth2 access token (not a personal token, not a session) asks for userinfo, as Gitea.
    const access = m ? await verifyAccessToken(m[1]) : null;
    const user = access ? await findUserById(systemCtx, access.userId) : null;
    if (!access || !user || user.type !== UserType.Individual || !user.isActive || user.prohibitLogin) return unauthorized(res, 'Bearer');
    const groups = scopeContains(access.grantScope, 'groups') ? await groupsOf(systemCtx, user.id, access.scopes.publicOnly) : null;
    res.setHeader('Cache-Control', 'no-store');
    res.json(toUserInfo(user, settings().server.rootUrl, groups));
  });
  r.get('/login/oauth/userinfo', enabled, userinfo);
  r.post('/login/oauth/userinfo', enabled, ...body(), userinfo);

  r.get('/login/oauth/keys', enabled, run(async (_req, res) => { res.json(await jwks()); }));

  r.post('/login/oauth/introspect', enabled, ...body(), run(async (req, res) => {
    const basic = basicCredentials(req);
    const app = basic ? await findApplicationByClientId(systemCtx, basic.id) : null;
    if (!app || !validClientSecret(app, basic!.secret)) return unauthorized(res, 'Basic');
    res.json(await introspect(systemCtx, (req.body as Record<string, string>).token ?? ''));
  }));

  r.get('/.well-known/openid-configuration', enabled, run(async (_req, res) => { res.json(await discovery()); }));
  return r;
}
