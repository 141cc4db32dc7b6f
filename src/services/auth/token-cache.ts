/**
 * Verifies access tokens. Only a token's sha256 is stored (tokens are 160 random bits, so an
 * unsalted hash is enough) and the lookup result is cached briefly per process; deleting a token
 * publishes an invalidation to every process before the delete returns.
 */
import crypto from 'node:crypto';
import { systemCtx } from '../../db';
import { findTokenByHash, touchToken } from '../../models/access-token.model';
import { publish, subscribe } from '../../queue/bus';
import { parseScopes, type ScopeSet } from './scope';

/** A verified token. */
export interface VerifiedToken { id: number; uid: number; scopes: ScopeSet }

interface Entry { token: VerifiedToken | null; expires: number }
const cache = new Map<string, Entry>();
const touched = new Map<number, number>();
const TTL_MS = 30_000;
const TOPIC = 'token-revoked';

subscribe(TOPIC, (hash) => cache.delete(String(hash)));

/** sha256 hex of a raw token. */
export function hashToken(raw: string): string {
  return crypto.createHash('sha256').update(raw).digest('hex');
}

/** Tell every process to forget a token (after it is deleted or its owner changes). */
export function revokeCachedToken(hash: string): void {
  publish(TOPIC, hash);
}

/** Look a raw token up; null when unknown. */
export async function verifyToken(raw: string): Promise<VerifiedToken | null> {
  if (!/^[0-9a-f]{40}$/.test(raw)) return null;
  const hash = hashToken(raw);
  const now = Date.now();
  const hit = cache.get(hash);
  let token: VerifiedToken | null;
  if (hit && hit.expires > now) {
    token = hit.token;
  } else {
    const row = await findTokenByHash(systemCtx, hash);
    // why: the index finds the row by hash; compare again in constant time so no timing tells how much matched.
    token = row && crypto.timingSafeEqual(Buffer.from(row.tokenHash), Buffer.from(hash))
      ? { id: row.id, uid: row.uid, scopes: parseScopes(row.scope) }
      : null;
    if (cache.size > 50_000) cache.clear();
    cache.set(hash, { token, expires: now + (token ? TTL_MS : 2_000) });
  }
  if (token) {
    const last = touched.get(token.id) ?? 0;
    if (now - last > 60_000) {
      touched.set(token.id, now);
      void touchToken(systemCtx, token.id, new Date(now)).catch(() => touched.delete(token!.id));
    }
  }
  return token;
}
