/**
 * Taking an OAuth2 access token as a credential (API, git over HTTP, LFS): the signature is checked
 * (and remembered for the token's life), then its grant, read through a per-process cache that any
 * committed write to `oauth2_grant` clears in every process before the write returns. A revoked
 * grant's tokens therefore stop working at once, on every node.
 */
import { settings } from '../../config';
import { systemCtx } from '../../db';
import { grantSnapshot } from '../../models/oauth2-grant.model';
import { formatScopes, parseScopes, type ScopeSet } from '../auth/scope';
import { looksLikeJwt, parseGrantToken, TokenKind } from './jwt';

/** The OpenID Connect scopes (Gitea's scopes_supported); the other words of a grant's scope are token scopes. */
export const OIDC_SCOPES = ['openid', 'profile', 'email', 'groups'];

/** Does a grant's scope (space separated, as requested) contain `word`? */
export function scopeContains(scope: string, word: string): boolean {
  return scope.split(/\s+/).includes(word);
}

const scopeSets = new Map<string, ScopeSet>();

/**
 * The token scopes a grant carries (Gitea's GrantAdditionalScopes): its words other than the
 * OpenID Connect ones that are Gitea token scopes (`read:repository`, `write:issue`, `public-only`,
 * ...); none means full access, as Gitea decides since 1.22. why: a word that is not a scope
 * (`offline_access`) is ignored here, where Gitea would then grant everything.
 */
export function grantTokenScopes(scope: string): ScopeSet {
  let set = scopeSets.get(scope);
  if (set) return set;
  const known: string[] = [];
  for (const word of scope.split(/[\s,]+/)) {
    if (!word || OIDC_SCOPES.includes(word)) continue;
    try { parseScopes([word]); known.push(word); } catch { /* not a token scope */ }
  }
  set = parseScopes(known);
  // why: with no category named (or only public-only), the grant reaches every category.
  if (!set.all && Object.keys(set.levels).length === 0) set = { ...set, all: true };
  if (scopeSets.size > 1000) scopeSets.clear();
  scopeSets.set(scope, set);
  return set;
}

/** The token scopes of a grant as a Gitea scope string (`all`, `read:repository,public-only`). */
export function grantScopeText(scope: string): string {
  return formatScopes(grantTokenScopes(scope));
}

/** An accepted access token: whose it is and what it may do. */
export interface OAuth2Access { userId: number; grantId: number; applicationId: number; scopes: ScopeSet; grantScope: string }

const verified = new Map<string, { gnt: number; exp: number; iat: number }>();
const MAX_VERIFIED = 10_000;

/** The access a raw token gives, or null when it is not a live access token of a live grant. */
export async function verifyAccessToken(raw: string): Promise<OAuth2Access | null> {
  if (!settings().oauth2.enabled || !looksLikeJwt(raw)) return null;
  const now = Date.now() / 1000;
  let tok = verified.get(raw);
  if (!tok || tok.exp <= now) {
    const parsed = await parseGrantToken(raw);
    if (!parsed || parsed.tt !== TokenKind.Access) return null;
    // why: a signature checked once holds for the token's life; what may change (its grant) is read each time.
    if (verified.size >= MAX_VERIFIED) verified.clear();
    verified.set(raw, tok = { gnt: parsed.gnt, exp: parsed.exp, iat: parsed.iat });
  }
  const grant = await grantSnapshot(systemCtx, tok.gnt);
  // why: a token older than its grant was issued under an earlier grant that had the same id.
  if (!grant || tok.iat < grant.createdUnix) return null;
  return { userId: grant.userId, grantId: grant.id, applicationId: grant.applicationId, scopes: grantTokenScopes(grant.scope), grantScope: grant.scope };
}
