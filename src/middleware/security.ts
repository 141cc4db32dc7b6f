/**
 * tsoa's authentication module. Controllers declare `@Security(kind, [category])`:
 * - `public`: anyone; a token, if given, must carry the category's scope.
 * - `signed`: a signed-in user (401 "token is required" otherwise).
 * - `admin`: a site administrator (403 otherwise).
 * Several categories may be listed; the token needs all of them.
 * The scope level follows the HTTP method (read for GET/HEAD, write otherwise), as in Gitea.
 */
import type { Request } from 'express';
import { Unauthorized, Forbidden } from '../errors';
import { settings } from '../config';
import { hasScope, levelForMethod, ScopeLevel, formatScopes, type ScopeCategory } from '../services/auth/scope';
import type { Principal } from './auth';

/** Check the caller against a route's declared security; returns the principal for tsoa. */
export async function expressAuthentication(req: Request, securityName: string, scopes?: string[]): Promise<Principal> {
  const p = req.principal;
  if (securityName !== 'public' && !p?.user) throw new Unauthorized('token is required');
  if (securityName === 'admin' && !p.user!.isAdmin) throw new Forbidden('user should be the site admin');
  if (p.user?.mustChangePassword && !(req.method === 'PATCH' && req.path === '/user/settings')) {
    throw new Forbidden(`You must change your password. Change it at: ${settings().server.rootUrl}user/change_password`);
  }
  // why: Gitea requires every listed category (e.g. /user/orgs needs user and organization).
  if (scopes?.length && p.scopes) {
    const level = levelForMethod(req.method);
    const word = level === ScopeLevel.Write ? 'write' : 'read';
    const missing = (scopes as ScopeCategory[]).filter((c) => !hasScope(p.scopes!, c, level));
    if (missing.length) {
      throw new Forbidden(`token does not have at least one of required scope(s), required=[${scopes.map((c) => `${word}:${c}`).join(' ')}], token scope=${formatScopes(p.scopes)}`);
    }
  }
  return p;
}
