/**
 * The authorization endpoint (Gitea's AuthorizeOAuth and GrantApplicationOAuth): checks the
 * client and its redirect URI (a failure there is shown as a page, never a redirect), then the
 * response type and PKCE (failures go back to the redirect URI as `?error=...&state=...`), then
 * either skips the consent page (an existing grant of a confidential client with the same scope,
 * or an application that skips secondary authorization) or shows it. Grant issues a code, good once
 * for ten minutes, stored as its SHA-256.
 */
import crypto from 'node:crypto';
import net from 'node:net';
import { withTx, isUniqueViolation, type DbContext } from '../../db';
import { findApplicationByClientId, type OAuth2ApplicationModel } from '../../models/oauth2-application.model';
import { deleteCodesOfGrants, insertAuthorizationCode } from '../../models/oauth2-authorization-code.model';
import { findGrant, insertGrant, updateGrant, type OAuth2GrantModel } from '../../models/oauth2-grant.model';
import { findUserById, type UserModel } from '../../models/user.model';
import { nowUnix } from '../../models/issue.model';
import type { PendingAuthorization } from '../auth/session.service';
import { base32Lower, redirectUrisOf, sha256Hex } from './application.service';
import { grantTokenScopes } from './access';

/** How long a code may wait for its exchange (RFC 6749 advises at most ten minutes). */
const CODE_LIFETIME_SECONDS = 600;

/** The parameters of an authorization request (Gitea's AuthorizationForm). */
export interface AuthorizeParams {
  client_id?: string; redirect_uri?: string; response_type?: string; scope?: string; state?: string; nonce?: string;
  code_challenge?: string; code_challenge_method?: string;
}

/** What the endpoint answers. */
export type AuthorizeStep =
  | { kind: 'error-page'; error: string; description: string }
  | { kind: 'redirect'; location: string }
  | { kind: 'consent'; app: OAuth2ApplicationModel; owner: UserModel | null; pending: PendingAuthorization; fullAccess: boolean };

/**
 * Does the application accept `uri`? Exactly one of its redirect URIs; for a public client, an
 * `http` URI on a loopback IP also matches whatever its port (RFC 8252 7.3, as Gitea).
 */
export function acceptsRedirectUri(app: OAuth2ApplicationModel, uri: string): boolean {
  const registered = redirectUrisOf(app);
  if (registered.includes(uri)) return true;
  if (app.confidentialClient) return false;
  let url: URL;
  try { url = new URL(uri); } catch { return false; }
  if (url.protocol !== 'http:' || url.port === '') return false;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!isLoopbackIp(host)) return false;
  url.port = '';
  return registered.includes(url.toString()) || registered.includes(url.toString().replace(/\/$/, ''));
}

function isLoopbackIp(host: string): boolean {
  if (net.isIPv4(host)) return host.startsWith('127.');
  return net.isIPv6(host) && (host === '::1' || /^::ffff:127\./i.test(host));
}

/** `uri` with `params` set in its query (Go's url.Values.Encode sorts them; so do we). */
function withQuery(uri: string, params: Record<string, string>): string {
  const url = new URL(uri);
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  url.searchParams.sort();
  return url.toString();
}

/** The redirect of an error, with the state (even empty, as Gitea). */
export function errorRedirect(uri: string, error: string, description: string, state: string): string {
  return withQuery(uri, { error, error_description: description, state });
}

/** Start an authorization for the signed-in `user`. */
export async function startAuthorization(ctx: DbContext, user: UserModel, p: AuthorizeParams): Promise<AuthorizeStep> {
  const state = p.state ?? '';
  const app = p.client_id ? await findApplicationByClientId(ctx, p.client_id) : null;
  if (!app) return { kind: 'error-page', error: 'unauthorized_client', description: 'Client ID not registered' };
  const redirectUri = p.redirect_uri ?? '';
  if (!redirectUri || !acceptsRedirectUri(app, redirectUri)) return { kind: 'error-page', error: 'invalid_request', description: 'Unregistered Redirect URI' };
  const refuse = (error: string, description: string): AuthorizeStep => ({ kind: 'redirect', location: errorRedirect(redirectUri, error, description, state) });
  if (p.response_type !== 'code') return refuse('unsupported_response_type', 'Only code response type is supported.');
  const method = p.code_challenge_method ?? '';
  const challenge = p.code_challenge ?? '';
  if (method === '') {
    // why: a public client has no secret; without PKCE its code alone would buy tokens (RFC 8252 8.1).
    if (!app.confidentialClient) return refuse('invalid_request', 'PKCE is required for public clients');
    if (challenge) return refuse('invalid_request', 'code_challenge_method is missing');
  } else if (method !== 'S256' && method !== 'plain') {
    return refuse('invalid_request', 'unsupported code challenge method');
  } else if (!/^[A-Za-z0-9._~-]{43,128}$/.test(challenge)) {
    // why: an empty challenge would be matched by an empty verifier: PKCE in name only.
    return refuse('invalid_request', 'code_challenge must be 43 to 128 characters of [A-Za-z0-9._~-]');
  }
  const pending: PendingAuthorization = {
    clientId: app.clientId, redirectUri, state, scope: p.scope ?? '', nonce: p.nonce ?? '', codeChallenge: method ? challenge : '', codeChallengeMethod: method,
  };
  const grant = await findGrant(ctx, user.id, app.id);
  // why: an untrusted public client always asks again (RFC 6749 10.2); a confidential one asks again
  // when it wants another scope than the user consented to.
  if (grant && (app.skipSecondaryAuthorization || (app.confidentialClient && grant.scope === pending.scope))) {
    return { kind: 'redirect', location: await issueCode(ctx, user, app, pending) };
  }
  const owner = app.uid ? await findUserById(ctx, app.uid) : null;
  return { kind: 'consent', app, owner, pending, fullAccess: grantTokenScopes(pending.scope).all };
}

/**
 * Grant or cancel the authorization shown on the consent page; answers where to send the browser.
 * The form's client_id, state and redirect_uri must be those the page was shown for (400 otherwise).
 */
export async function finishAuthorization(
  ctx: DbContext, user: UserModel, pending: PendingAuthorization, granted: boolean,
): Promise<string> {
  if (!granted) return errorRedirect(pending.redirectUri, 'access_denied', 'the request is denied', pending.state);
  const app = await findApplicationByClientId(ctx, pending.clientId);
  // why: the application may have been deleted, or its redirect URIs changed, while the page was shown.
  if (!app || !acceptsRedirectUri(app, pending.redirectUri)) return errorRedirect(pending.redirectUri, 'unauthorized_client', 'Client ID not registered', pending.state);
  return issueCode(ctx, user, app, pending);
}

/** Create or update the grant with the consented scope and nonce, and issue a code; answers the redirect carrying it. */
async function issueCode(ctx: DbContext, user: UserModel, app: OAuth2ApplicationModel, p: PendingAuthorization): Promise<string> {
  const code = `gta_${base32Lower(crypto.randomBytes(32))}`;
  const now = nowUnix();
  const write = () => withTx(ctx, async (tx) => {
    let grant: OAuth2GrantModel | null = await findGrant(tx, user.id, app.id);
    grant ??= await insertGrant(tx, { userId: user.id, applicationId: app.id, scope: p.scope, nonce: p.nonce, now });
    // why: as Gitea, the nonce of the latest authorization goes into the ID tokens that follow.
    if (grant.scope !== p.scope || (p.nonce && grant.nonce !== p.nonce)) {
      await updateGrant(tx, grant.id, { scope: p.scope, ...(p.nonce ? { nonce: p.nonce } : {}), updatedUnix: now });
    }
    // why: codes expired by now are dropped here, so the table keeps only live ones.
    await deleteCodesOfGrants(tx, [], now);
    await insertAuthorizationCode(tx, {
      grantId: grant.id, code: sha256Hex(code), codeChallenge: p.codeChallenge, codeChallengeMethod: p.codeChallengeMethod,
      redirectUri: p.redirectUri, validUntil: now + CODE_LIFETIME_SECONDS,
    });
  });
  // why: the same user granting in two tabs at once makes two inserts of one grant; the loser finds the winner's.
  await write().catch((err: unknown) => { if (isUniqueViolation(err)) return write(); throw err; });
  return withQuery(p.redirectUri, { code, ...(p.state ? { state: p.state } : {}) });
}
