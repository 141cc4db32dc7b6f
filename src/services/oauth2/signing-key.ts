/**
 * The instance's JWT signing key ([oauth2] JWT_SIGNING_ALGORITHM): a private key kept in
 * JWT_SIGNING_PRIVATE_KEY_FILE (PKCS#8 PEM, made at the first start), or the JWT_SECRET of an HS
 * algorithm. Every node of a cluster reads the same file under the shared APP_DATA_PATH.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import { importPKCS8, importSPKI, calculateJwkThumbprint, type CryptoKey, type JWK } from 'jose';
import { isSymmetricAlgorithm, settings, StartupError, type OAuth2Settings } from '../../config';

/** The loaded key: what signs and verifies the instance's tokens, and its public JWK. */
export interface SigningKey {
  alg: string;
  symmetric: boolean;
  signKey: CryptoKey | Uint8Array;
  verifyKey: CryptoKey | Uint8Array;
  /** The JWK thumbprint of the public key (none for a shared secret). */
  kid?: string;
  /** The public key as the JWKS shows it. */
  jwk: JWK;
}

/** The key type and curve an algorithm needs. */
function expectedKey(alg: string): { type: string; curve?: string } {
  if (alg.startsWith('RS')) return { type: 'rsa' };
  if (alg === 'EdDSA') return { type: 'ed25519' };
  return { type: 'ec', curve: alg === 'ES256' ? 'prime256v1' : alg === 'ES384' ? 'secp384r1' : 'secp521r1' };
}

async function load(o: OAuth2Settings): Promise<SigningKey> {
  const alg = o.jwtSigningAlgorithm;
  if (isSymmetricAlgorithm(alg)) {
    const secret = new Uint8Array(Buffer.from(o.jwtSecret.replace(/=$/, ''), 'base64url'));
    return { alg, symmetric: true, signKey: secret, verifyKey: secret, jwk: { kty: 'oct', alg, use: 'sig' } };
  }
  const file = o.jwtSigningPrivateKeyFile;
  let pem: string;
  try {
    pem = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new StartupError(`[oauth2] JWT_SIGNING_PRIVATE_KEY_FILE ${file} cannot be read (${(err as NodeJS.ErrnoException).code}): the first start makes it; check its path and permissions`);
  }
  const priv = crypto.createPrivateKey(pem);
  const want = expectedKey(alg);
  if (priv.asymmetricKeyType !== want.type || (want.curve && priv.asymmetricKeyDetails?.namedCurve !== want.curve)) {
    throw new StartupError(`[oauth2] JWT_SIGNING_PRIVATE_KEY_FILE ${file} holds a ${priv.asymmetricKeyType} key, which ${alg} cannot sign with`);
  }
  const pub = crypto.createPublicKey(priv);
  const exported = pub.export({ format: 'jwk' }) as JWK;
  const kid = await calculateJwkThumbprint(exported, 'sha256');
  const [signKey, verifyKey] = await Promise.all([
    importPKCS8(priv.export({ type: 'pkcs8', format: 'pem' }) as string, alg),
    importSPKI(pub.export({ type: 'spki', format: 'pem' }) as string, alg),
  ]);
  return { alg, symmetric: false, signKey, verifyKey, kid, jwk: { ...exported, alg, kid, use: 'sig' } };
}

let current: Promise<SigningKey> | null = null;

/** The instance's signing key, loaded once per process. */
export function signingKey(): Promise<SigningKey> {
  current ??= load(settings().oauth2);
  // why: a failed load (the file not there yet) is tried again by the next caller rather than remembered.
  current.catch(() => { current = null; });
  return current;
}
