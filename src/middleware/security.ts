/**
 * tsoa's authentication module. Controllers declare `@Security(kind, [category])`:
 * - `public`: anyone; a token, if given, must carry the category's scope.
 * - `signed`: a signed-in user (401 "token is required" otherwise).
 * - `admin`: a site administrator (403 otherwise).
 * Several categories may be listed; the token needs all of them.
 * The scope level follows the HTTP method (read for GET/HEAD, write otherwise), as in Gitea.
 * An Actions job's token also passes `actionsTokenReaches` (it acts for its repository, not for an account).
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
  if (p?.actionsTask && !actionsTokenReaches(req.method, (req.route as { path?: string } | undefined)?.path ?? req.path)) {
    throw new Forbidden(ACTIONS_TOKEN_REFUSED);
  }
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

/** The answer to a job's token outside what it reaches. */
export const ACTIONS_TOKEN_REFUSED = 'the token of an Actions job only reaches its own repository';

/** Writes under a repository's path that act for the caller's own account: a fork, a repository from a template, a watch. */
const ACCOUNT_WRITES_IN_REPO = [
  /^\/repos\/:\w+\/:\w+\/forks$/,
  /^\/repos\/:\w+\/:\w+\/generate$/,
  /^\/repos\/:\w+\/:\w+\/subscription$/,
];
/** Renders that keep nothing. */
const STATELESS_WRITES = new Set(['/markdown', '/markdown/raw', '/markup']);
/** Reads that describe or create the state of the calling account (the pseudo-user has none to show). */
const ACCOUNT_READS = /^\/(user|notifications|admin)(\/|$)/;

/**
 * May an Actions job's token (the `gitea-actions` pseudo-user) call this API route (`route` is
 * the Express pattern, e.g. `/repos/:owner/:repo/issues`)? It writes only under a repository's
 * path, where the permission function opens its own run's repository and nothing else (another
 * repository answers 404 there, as in Gitea), and never writes for an account: no repository,
 * organization, key, hook, secret, follow or setting of its own. It reads what a signed-in
 * user reads, but not the `/user` or `/notifications` areas of an account it does not have.
 * why: Gitea lets the actions user through reqToken everywhere; the pseudo-user then created
 * repositories, organizations and keys of its own, outliving the job (security finding, issue 35).
 */
export function actionsTokenReaches(method: string, route: string): boolean {
  if (levelForMethod(method) === ScopeLevel.Read) return !ACCOUNT_READS.test(route);
  if (STATELESS_WRITES.has(route)) return true;
  return /^\/repos\/:\w+\/:\w+(\/|$)/.test(route) && !ACCOUNT_WRITES_IN_REPO.some((re) => re.test(route));
}
