/**
 * The token endpoint (Gitea's AccessTokenOAuth): an authorization code (once, by the client it was
 * issued to, with its redirect URI and PKCE verifier) or a refresh token is exchanged for an access
 * token, a refresh token and, with the `openid` scope, an ID token. Refusals are RFC 6749's error
 * codes with Gitea's descriptions (the web layer answers them 400). With [oauth2]
 * INVALIDATE_REFRESH_TOKENS, each refresh moves the grant's counter on (atomically: of two uses of
 * one refresh token, one wins), and a refresh token presented again revokes the grant, so every
 * token of that family dies.
 */
import crypto from 'node:crypto';
import type { JWTPayload } from 'jose';
import { settings } from '../../config';
import type { DbContext } from '../../db';
import { findApplicationByClientId, findApplicationById, type OAuth2ApplicationModel } from '../../models/oauth2-application.model';
import { deleteAuthorizationCode, findAuthorizationCode } from '../../models/oauth2-authorization-code.model';
import { advanceGrantCounter, findGrantById, type OAuth2GrantModel } from '../../models/oauth2-grant.model';
import { findUserById, UserType, type UserModel } from '../../models/user.model';
import { nowUnix } from '../../models/issue.model';
import { sha256Hex, validClientSecret } from './application.service';
import { grantTokenScopes, scopeContains } from './access';
import { acceptsRedirectUri } from './authorize.service';
import { deleteGrants, groupsOf } from './grant.service';
import { parseGrantToken, signGrantToken, signIdToken, TokenKind } from './jwt';

/** A refusal of the token endpoint: RFC 6749's error code and a description. */
export class OAuth2Error extends Error {
  constructor(readonly error: string, readonly description: string) { super(`${error}: ${description}`); }
}

/** The fields of a token request (Gitea's AccessTokenForm), the client's credentials already merged in. */
export interface TokenRequest {
  grant_type?: string; client_id?: string; client_secret?: string; code?: string; redirect_uri?: string; code_verifier?: string; refresh_token?: string;
}

/** A successful answer (Gitea's AccessTokenResponse). */
export interface TokenResponse { access_token: string; token_type: 'bearer'; expires_in: number; refresh_token: string; id_token?: string }

/** The profile claims of the user, which the web layer builds (it knows avatar and page URLs). */
export type ProfileClaims = (user: UserModel) => Record<string, unknown>;

/** The application of a token request, with its secret checked for a confidential client. */
async function client(ctx: DbContext, f: TokenRequest, badSecret: 'invalid_client' | 'unauthorized_client'): Promise<OAuth2ApplicationModel> {
  const app = f.client_id ? await findApplicationByClientId(ctx, f.client_id) : null;
  if (!app) throw new OAuth2Error('invalid_client', `cannot load client with client id: '${f.client_id ?? ''}'`);
  // why: a public client has no secret to check; PKCE (required at authorization) binds its code.
  if (app.confidentialClient && !validClientSecret(app, f.client_secret ?? '')) {
    throw new OAuth2Error(badSecret, f.client_secret ? 'invalid client secret' : 'invalid empty client secret');
  }
  return app;
}

/** Does `verifier` answer the code's PKCE challenge? */
function pkceOk(method: string, challenge: string, verifier: string): boolean {
  if (method === '') return true;
  const got = method === 'S256' ? crypto.createHash('sha256').update(verifier).digest('base64url') : method === 'plain' ? verifier : null;
  if (got === null || !verifier) return false;
  const a = Buffer.from(got);
  const b = Buffer.from(challenge);
  return a.length === b.length && crypto.timingSafeEqual(a, b);
}

/** The counter of a refresh token issued now, after moving the grant's on by one; null when the grant is gone. */
async function nextCounter(ctx: DbContext, grantId: number): Promise<number | null> {
  for (;;) {
    const g = await findGrantById(ctx, grantId);
    if (!g) return null;
    if (await advanceGrantCounter(ctx, grantId, g.counter, nowUnix())) return g.counter + 1;
  }
}

/** Exchange an authorization code. */
export async function exchangeCode(ctx: DbContext, f: TokenRequest, profile: ProfileClaims): Promise<TokenResponse> {
  const app = await client(ctx, f, 'unauthorized_client');
  if (f.redirect_uri && !acceptsRedirectUri(app, f.redirect_uri)) {
    throw new OAuth2Error('unauthorized_client', 'unexpected redirect URI');
  }
  const code = f.code ? await findAuthorizationCode(ctx, sha256Hex(f.code)) : null;
  const grant = code ? await findGrantById(ctx, code.grantId) : null;
  if (!code || !grant) throw new OAuth2Error('unauthorized_client', 'client is not authorized');
  if (code.validUntil < nowUnix()) {
    await deleteAuthorizationCode(ctx, code.id);
    throw new OAuth2Error('invalid_grant', 'authorization code expired');
  }
  if (!pkceOk(code.codeChallengeMethod, code.codeChallenge, f.code_verifier ?? '')) throw new OAuth2Error('unauthorized_client', 'failed PKCE code challenge');
  if (code.redirectUri && f.redirect_uri !== code.redirectUri) throw new OAuth2Error('invalid_grant', 'redirect_uri differs from the original authorization request');
  if (grant.applicationId !== app.id) throw new OAuth2Error('invalid_grant', 'invalid grant');
  // why: deleting the code is what spends it; of two exchanges racing, only the one that deleted it goes on.
  if (!(await deleteAuthorizationCode(ctx, code.id))) throw new OAuth2Error('invalid_grant', 'authorization code already used');
  return tokensFor(ctx, app, grant, f.client_secret ?? '', profile, null);
}

/** Exchange a refresh token. */
export async function exchangeRefreshToken(ctx: DbContext, f: TokenRequest, profile: ProfileClaims): Promise<TokenResponse> {
  const app = await client(ctx, f, 'invalid_client');
  const token = f.refresh_token ? await parseGrantToken(f.refresh_token) : null;
  // why: an access token is no refresh token (Gitea would take one when it does not invalidate them).
  if (!token || token.tt !== TokenKind.Refresh) throw new OAuth2Error('unauthorized_client', 'unable to parse refresh token');
  const grant = await findGrantById(ctx, token.gnt);
  if (!grant || token.iat < grant.createdUnix) throw new OAuth2Error('invalid_grant', 'grant does not exist');
  if (grant.applicationId !== app.id) throw new OAuth2Error('invalid_grant', 'refresh token belongs to a different client');
  let counter = grant.counter;
  if (settings().oauth2.invalidateRefreshTokens) {
    // why: moving the counter from the token's value is the test and the use in one statement.
    if (token.cnt === 0 || !(await advanceGrantCounter(ctx, grant.id, token.cnt, nowUnix()))) {
      // why: a refresh token used twice was copied; whoever holds the family's newest token may be the
      // thief, so the whole grant goes (OAuth 2.0 Security BCP 4.14), and the user grants again.
      await deleteGrants(ctx, [grant.id]);
      throw new OAuth2Error('unauthorized_client', 'token was already used');
    }
    counter = token.cnt + 1;
  }
  return tokensFor(ctx, app, grant, f.client_secret ?? '', profile, counter);
}

/** Sign the tokens of a grant; `counter` is the refresh token's (null: move the grant's counter on now). */
async function tokensFor(
  ctx: DbContext, app: OAuth2ApplicationModel, grant: OAuth2GrantModel, clientSecret: string, profile: ProfileClaims, counter: number | null,
): Promise<TokenResponse> {
  const o = settings().oauth2;
  const user = await findUserById(ctx, grant.userId);
  if (!user || user.type !== UserType.Individual || !user.isActive || user.prohibitLogin) throw new OAuth2Error('invalid_grant', 'the user may not sign in');
  let cnt = counter ?? grant.counter;
  if (counter === null && o.invalidateRefreshTokens) {
    const next = await nextCounter(ctx, grant.id);
    if (next === null) throw new OAuth2Error('invalid_grant', 'grant does not exist');
    cnt = next;
  }
  const [access, refresh] = await Promise.all([
    signGrantToken({ gnt: grant.id, tt: TokenKind.Access }, o.accessTokenExpirationTime),
    signGrantToken({ gnt: grant.id, tt: TokenKind.Refresh, cnt }, o.refreshTokenExpirationTime * 3600),
  ]);
  const answer: TokenResponse = { access_token: access, token_type: 'bearer', expires_in: o.accessTokenExpirationTime, refresh_token: refresh };
  if (scopeContains(grant.scope, 'openid')) {
    const claims = await idTokenClaims(ctx, app, grant, user, profile);
    const id = await signIdToken(claims, o.accessTokenExpirationTime, clientSecret);
    if (id === null) throw new OAuth2Error('invalid_request', 'Error creating signing key');
    answer.id_token = id;
  }
  return answer;
}

/** Gitea's ID token claims, by the grant's scopes. */
async function idTokenClaims(ctx: DbContext, app: OAuth2ApplicationModel, grant: OAuth2GrantModel, user: UserModel, profile: ProfileClaims): Promise<JWTPayload> {
  const claims: JWTPayload = { iss: settings().server.rootUrl, sub: String(user.id), aud: [app.clientId] };
  if (grant.nonce) claims.nonce = grant.nonce;
  if (scopeContains(grant.scope, 'profile')) Object.assign(claims, profile(user));
  if (scopeContains(grant.scope, 'email')) Object.assign(claims, { email: user.email, email_verified: user.isActive });
  if (scopeContains(grant.scope, 'groups')) claims.groups = await groupsOf(ctx, user.id, grantTokenScopes(grant.scope).publicOnly);
  return claims;
}

/** What the introspection endpoint says of a token (Gitea's IntrospectOAuth: RFC 7662's fields). */
export async function introspect(ctx: DbContext, raw: string): Promise<Record<string, unknown>> {
  const token = await parseGrantToken(raw);
  const grant = token ? await findGrantById(ctx, token.gnt) : null;
  const app = grant ? await findApplicationById(ctx, grant.applicationId) : null;
  if (!token || !grant || !app || token.iat < grant.createdUnix) return { active: false };
  // why: a refresh token already spent is no longer good, so it is not active.
  if (token.tt === TokenKind.Refresh && settings().oauth2.invalidateRefreshTokens && token.cnt !== grant.counter) return { active: false };
  const user = await findUserById(ctx, grant.userId);
  return {
    active: true, scope: grant.scope, ...(user ? { username: user.name } : {}), iss: settings().server.rootUrl, sub: String(grant.userId),
    aud: [app.clientId], exp: token.exp, iat: token.iat,
  };
}
