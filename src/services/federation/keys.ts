/**
 * A user's federation key pair (RSA 3072, as Gitea's): made the first time the user's actor is asked
 * for, off the event loop, and kept in user_setting as `activitypub.pub_pem` (SPKI) and
 * `activitypub.priv_pem` (PKCS#1, sealed with the instance secret).
 */
import crypto from 'node:crypto';
import { promisify } from 'node:util';
import { isUniqueViolation, withTx, type DbContext } from '../../db';
import { insertUserSettings, userSettings } from '../../models/user-setting.model';
import { seal } from '../auth/secret-box';

const PUB = 'activitypub.pub_pem';
const PRIV = 'activitypub.priv_pem';
const generateKeyPair = promisify(crypto.generateKeyPair);

/** The public key (PEM) of user `userId`, made now if the user has none. */
export async function federationPublicKey(ctx: DbContext, userId: number): Promise<string> {
  const have = await userSettings(ctx, userId, [PUB]);
  if (have.get(PUB)) return have.get(PUB)!;
  // why: generating takes a few hundred milliseconds of CPU; the thread pool does it, not the event loop.
  const { publicKey, privateKey } = await generateKeyPair('rsa', {
    modulusLength: 3072, publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  });
  try {
    // why: both keys in one transaction, so a pair is never half stored; a request that lost the race reads the winner's.
    await withTx(ctx, (tx) => insertUserSettings(tx, userId, { [PUB]: publicKey, [PRIV]: seal(privateKey) }));
    return publicKey;
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    return (await userSettings(ctx, userId, [PUB])).get(PUB)!;
  }
}
