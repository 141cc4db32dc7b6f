/**
 * A user's federation key pair (RSA 3072, as Gitea's): made the first time the user's actor is asked
 * for, off the event loop, and kept in user_setting as `activitypub.pub_pem` (SPKI) and
 * `activitypub.priv_pem` (PKCS#1, sealed with the instance secret).
 */
import crypto from 'node:crypto';
import { promisify } from 'node:util';
import type { DbContext } from '../../db';
import { storedKeyPair } from '../auth/stored-keys';

const generateKeyPair = promisify(crypto.generateKeyPair);

/** The public key (PEM) of user `userId`, made now if the user has none. */
export async function federationPublicKey(ctx: DbContext, userId: number): Promise<string> {
  // why: generating takes a few hundred milliseconds of CPU; the thread pool does it, not the event loop.
  const pair = await storedKeyPair(ctx, userId, { pub: 'activitypub.pub_pem', priv: 'activitypub.priv_pem' }, () => generateKeyPair('rsa', {
    modulusLength: 3072, publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  }));
  return pair.publicKey;
}
