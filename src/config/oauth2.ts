/**
 * [oauth2] (Gitea's oauth2.go): the forge as an OAuth2 / OpenID Connect provider. Its access and
 * refresh tokens are JWTs signed with the instance's key.
 */
import path from 'node:path';
import { ConfigError } from './errors';
import { section } from './spec';

/** Gitea's signing algorithms: HMAC with JWT_SECRET, or a private key kept in JWT_SIGNING_PRIVATE_KEY_FILE. */
export const JWT_ALGORITHMS = ['HS256', 'HS384', 'HS512', 'RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];

/**
 * [oauth2]: ENABLED serves the provider's endpoints and takes its tokens (404 and no token
 * otherwise); ACCESS_TOKEN_EXPIRATION_TIME is in seconds, REFRESH_TOKEN_EXPIRATION_TIME in hours
 * (Gitea's units); INVALIDATE_REFRESH_TOKENS makes each refresh token good once, and one used again
 * revokes its grant; JWT_SIGNING_PRIVATE_KEY_FILE is under APP_DATA_PATH unless absolute (made at
 * the first start); JWT_SECRET (base64url of 32 bytes) signs with an HS algorithm, and is made
 * once (in APP_DATA_PATH/secrets.json) when left empty.
 */
export interface OAuth2Settings {
  enabled: boolean; accessTokenExpirationTime: number; refreshTokenExpirationTime: number; invalidateRefreshTokens: boolean;
  jwtSigningAlgorithm: string; jwtSigningPrivateKeyFile: string; jwtSecret: string;
}

/** [oauth2]. */
export const oauth2Section = section<OAuth2Settings>('oauth2', {
  ENABLED: { kind: 'bool', def: 'true' },
  ACCESS_TOKEN_EXPIRATION_TIME: { kind: 'int', def: '3600', min: 1, max: 10 * 365 * 86400 },
  REFRESH_TOKEN_EXPIRATION_TIME: { kind: 'int', def: '730', min: 1, max: 10 * 365 * 24 },
  // why: Gitea's default is false; rotation with reuse detection is what OAuth 2.1 asks of a provider whose clients may be public.
  INVALIDATE_REFRESH_TOKENS: { kind: 'bool', def: 'true' },
  JWT_SIGNING_ALGORITHM: { kind: 'string', def: 'RS256', oneOf: JWT_ALGORITHMS },
  JWT_SIGNING_PRIVATE_KEY_FILE: { kind: 'string', def: 'jwt/private.pem' },
  JWT_SECRET: { kind: 'string', def: '' },
});

/** Whether the algorithm signs with a shared secret (HS*) rather than a private key. */
export function isSymmetricAlgorithm(alg: string): boolean {
  return alg.startsWith('HS');
}

/** The key file under the data dir; a given JWT_SECRET must be 32 bytes in base64url, as Gitea's. */
export function resolveOAuth2(dataPath: string, o: OAuth2Settings): void {
  if (!path.isAbsolute(o.jwtSigningPrivateKeyFile)) o.jwtSigningPrivateKeyFile = path.join(dataPath, o.jwtSigningPrivateKeyFile);
  if (o.jwtSecret !== '' && !validJwtSecret(o.jwtSecret)) {
    throw new ConfigError('[oauth2] JWT_SECRET: must be 32 bytes in base64url (43 characters), or empty to have one made');
  }
}

/** Is `s` 32 bytes written in base64url (with or without padding)? */
export function validJwtSecret(s: string): boolean {
  return /^[A-Za-z0-9_-]{43}=?$/.test(s) && Buffer.from(s.replace(/=$/, ''), 'base64url').length === 32;
}
