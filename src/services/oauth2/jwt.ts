/**
 * The provider's JWTs, with Gitea's claims: access and refresh tokens name their grant (`gnt`),
 * their kind (`tt`: 0 access, 1 refresh) and, for a refresh token, the grant's counter when it was
 * issued (`cnt`); all are signed with the instance key. ID tokens carry OpenID Connect's claims and
 * are signed with the instance key too, or, with an HS algorithm, with the client's secret (as Gitea).
 */
import crypto from 'node:crypto';
import { SignJWT, jwtVerify, type JWTPayload } from 'jose';
import { signingKey } from './signing-key';

/** Gitea's token kinds. */
export enum TokenKind { Access = 0, Refresh = 1 }

/** The claims of an access or refresh token that verified. */
export interface GrantToken { gnt: number; tt: TokenKind; cnt: number; exp: number; iat: number }

const JWT_SHAPE = /^[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]*$/;

/** Could `raw` be one of the provider's JWTs (three base64url parts, of a sane size)? */
export function looksLikeJwt(raw: string): boolean {
  return raw.length <= 8192 && JWT_SHAPE.test(raw);
}

const now = () => Math.floor(Date.now() / 1000);

/** Sign an access or refresh token of a grant, good for `lifetime` seconds. */
export async function signGrantToken(t: { gnt: number; tt: TokenKind; cnt?: number }, lifetime: number): Promise<string> {
  const key = await signingKey();
  const iat = now();
  const claims: JWTPayload = { gnt: t.gnt, tt: t.tt, ...(t.cnt ? { cnt: t.cnt } : {}) };
  // why: without an id of its own, two tokens of a grant issued in the same second would be the same string.
  return new SignJWT(claims).setProtectedHeader({ alg: key.alg, typ: 'JWT', ...(key.kid ? { kid: key.kid } : {}) })
    .setJti(crypto.randomBytes(12).toString('base64url')).setIssuedAt(iat).setExpirationTime(iat + lifetime).sign(key.signKey);
}

/**
 * The claims of a token this instance signed and that has not expired, or null. why: the algorithm
 * is pinned to the configured one, so a token cannot choose how it is checked (`none`, or an HMAC
 * keyed with the public key).
 */
export async function parseGrantToken(raw: string): Promise<GrantToken | null> {
  if (!looksLikeJwt(raw)) return null;
  const key = await signingKey();
  try {
    const { payload } = await jwtVerify(raw, key.verifyKey, { algorithms: [key.alg], requiredClaims: ['exp', 'iat'] });
    const { gnt, tt, cnt } = payload as { gnt?: unknown; tt?: unknown; cnt?: unknown };
    if (!Number.isSafeInteger(gnt) || (tt !== TokenKind.Access && tt !== TokenKind.Refresh)) return null;
    // why: as Gitea, a token issued in the future is refused (a minute allows for clocks that differ).
    if (payload.iat! > now() + 60) return null;
    return { gnt: gnt as number, tt: tt as TokenKind, cnt: Number.isSafeInteger(cnt) ? (cnt as number) : 0, exp: payload.exp!, iat: payload.iat! };
  } catch {
    return null;
  }
}

/**
 * Sign an ID token. With an HS algorithm the key is the client's secret, as Gitea does, so the client
 * can check it; null when there is no secret to sign with (a public client).
 */
export async function signIdToken(claims: JWTPayload, lifetime: number, clientSecret: string): Promise<string | null> {
  const key = await signingKey();
  let signWith = key.signKey;
  if (key.symmetric) {
    if (!clientSecret) return null;
    signWith = new TextEncoder().encode(clientSecret);
  }
  const iat = now();
  return new SignJWT(claims).setProtectedHeader({ alg: key.alg, typ: 'JWT', ...(key.kid ? { kid: key.kid } : {}) })
    .setIssuedAt(iat).setExpirationTime(iat + lifetime).sign(signWith);
}

/** The JSON Web Key Set of the instance (its public key; for an HS algorithm only its kind, as Gitea). */
export async function jwks(): Promise<{ keys: Record<string, unknown>[] }> {
  return { keys: [{ ...(await signingKey()).jwk }] };
}

/** The signing algorithm, for the discovery document. */
export async function signingAlgorithm(): Promise<string> {
  return (await signingKey()).alg;
}
