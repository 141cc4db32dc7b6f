/**
 * Short-lived LFS bearer tokens: `git-lfs-authenticate` over SSH hands one out, and the LFS HTTP
 * endpoints accept it as `Authorization: Bearer <token>` for that one repository and operation.
 * A token is `base64url(json).base64url(hmac-sha256)` keyed by the instance secret.
 */
import crypto from 'node:crypto';
import { settings } from '../../config';

/** What an LFS token grants. */
export interface LfsGrant {
  repoId: number;
  /** The user the token stands for (0 for a deploy key). */
  userId: number;
  /** The deploy key it was issued through, if any. */
  deployKeyId: number;
  /** `upload` allows download too; `download` only reads. */
  op: 'upload' | 'download';
  /** Expiry, seconds since the epoch. */
  exp: number;
}

const DEFAULT_TTL_S = 24 * 3600;

function mac(body: string): string {
  return crypto.createHmac('sha256', `lfs:${settings().security.secretKey}`).update(body).digest('base64url');
}

/** Sign a grant valid for `ttlSeconds` (default 24 hours, as Gitea's LFS_HTTP_AUTH_EXPIRY). */
export function signLfsToken(grant: Omit<LfsGrant, 'exp'>, ttlSeconds = DEFAULT_TTL_S, now = Date.now()): { token: string; expiresAt: Date } {
  const exp = Math.floor(now / 1000) + ttlSeconds;
  const body = Buffer.from(JSON.stringify({ ...grant, exp })).toString('base64url');
  return { token: `${body}.${mac(body)}`, expiresAt: new Date(exp * 1000) };
}

/** The grant of a well-formed, untampered and unexpired token, else null. */
export function verifyLfsToken(token: string, now = Date.now()): LfsGrant | null {
  const [body, sig, extra] = token.split('.');
  if (!body || !sig || extra !== undefined) return null;
  const want = Buffer.from(mac(body));
  const got = Buffer.from(sig);
  if (want.length !== got.length || !crypto.timingSafeEqual(want, got)) return null;
  try {
    const g = JSON.parse(Buffer.from(body, 'base64url').toString()) as LfsGrant;
    if (typeof g.exp !== 'number' || g.exp * 1000 <= now) return null;
    if (!Number.isInteger(g.repoId) || !Number.isInteger(g.userId) || !Number.isInteger(g.deployKeyId)) return null;
    if (g.op !== 'upload' && g.op !== 'download') return null;
    return g;
  } catch {
    return null;
  }
}
