/**
 * Making the OAuth2 signing material once for every node that shares APP_DATA_PATH: the private key
 * file of an asymmetric [oauth2] JWT_SIGNING_ALGORITHM, or the JWT_SECRET of an HS one left empty
 * (kept in secrets.json; Gitea writes it into app.ini). The primary runs these under the lock it
 * migrates under (src/boot.ts), so nodes starting together make one; nothing here loads jose, which
 * the primary never needs.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { isSymmetricAlgorithm, type Settings } from '../../config';

/** The key of secrets.json that holds a JWT_SECRET made by the forge. */
export const JWT_SECRET_KEY = 'oauth2JwtSecret';

/** Whether the private key file is still to be made. */
export function signingKeyFileMissing(s: Settings): boolean {
  return s.oauth2.enabled && !isSymmetricAlgorithm(s.oauth2.jwtSigningAlgorithm) && !fs.existsSync(s.oauth2.jwtSigningPrivateKeyFile);
}

/** A new private key for `alg`, as PKCS#8 PEM (made on a pool thread). */
function newPrivateKeyPem(alg: string): Promise<string> {
  const enc = { privateKeyEncoding: { type: 'pkcs8' as const, format: 'pem' as const }, publicKeyEncoding: { type: 'spki' as const, format: 'pem' as const } };
  const done = (resolve: (pem: string) => void, reject: (err: Error) => void) => (err: Error | null, _pub: string, priv: string) => (err ? reject(err) : resolve(priv));
  return new Promise((resolve, reject) => {
    // why: Gitea makes RSA keys of 4096 bits; 2048 is what RS256 asks for, signs fifteen times faster
    // (a token answer holds three signatures) and takes a tenth of the time to make at a first start.
    if (alg.startsWith('RS')) crypto.generateKeyPair('rsa', { modulusLength: 2048, ...enc }, done(resolve, reject));
    else if (alg.startsWith('ES')) {
      const namedCurve = alg === 'ES256' ? 'P-256' : alg === 'ES384' ? 'P-384' : 'P-521';
      crypto.generateKeyPair('ec', { namedCurve, ...enc }, done(resolve, reject));
    } else crypto.generateKeyPair('ed25519', enc, done(resolve, reject));
  });
}

/**
 * Start making a private key when the file is missing, before the lock is taken. why: an RSA key
 * takes a tenth of a second of a pool thread, which then overlaps the migrations.
 */
export function prepareSigningKey(s: Settings): Promise<string> | null {
  if (!signingKeyFileMissing(s)) return null;
  const pem = newPrivateKeyPem(s.oauth2.jwtSigningAlgorithm);
  pem.catch(() => undefined);
  return pem;
}

/**
 * Make the private key file unless it exists (mode 0600 in a 0700 directory), from the key
 * `prepared` when given. The file appears whole (a hard link to a finished temporary file), and one
 * made meanwhile elsewhere is kept.
 */
export async function createSigningKeyFile(s: Settings, prepared?: Promise<string> | null): Promise<void> {
  if (!signingKeyFileMissing(s)) return;
  const file = s.oauth2.jwtSigningPrivateKeyFile;
  const pem = await (prepared ?? newPrivateKeyPem(s.oauth2.jwtSigningAlgorithm));
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, pem, { mode: 0o600 });
  try {
    fs.linkSync(tmp, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}

const secretsFile = (s: Settings) => path.join(s.server.appDataPath, 'secrets.json');

function readSecrets(s: Settings): Record<string, string> {
  try { return JSON.parse(fs.readFileSync(secretsFile(s), 'utf8')) as Record<string, string>; } catch { return {}; }
}

/** Whether an HS algorithm has no JWT_SECRET yet, neither configured nor made. */
export function jwtSecretMissing(s: Settings): boolean {
  return s.oauth2.enabled && isSymmetricAlgorithm(s.oauth2.jwtSigningAlgorithm) && !s.oauth2.jwtSecret && !readSecrets(s)[JWT_SECRET_KEY];
}

/** Take a JWT_SECRET made earlier (secrets.json) when app.ini gives none. */
export function useStoredJwtSecret(s: Settings): void {
  if (!s.oauth2.jwtSecret && isSymmetricAlgorithm(s.oauth2.jwtSigningAlgorithm)) s.oauth2.jwtSecret = readSecrets(s)[JWT_SECRET_KEY] ?? '';
}

/** Make a JWT_SECRET (32 random bytes, base64url as Gitea's) and keep it in secrets.json, replaced whole. */
export async function createJwtSecret(s: Settings): Promise<void> {
  if (!jwtSecretMissing(s)) return;
  const secrets = { ...readSecrets(s), [JWT_SECRET_KEY]: crypto.randomBytes(32).toString('base64url') };
  const tmp = `${secretsFile(s)}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(secrets), { mode: 0o600 });
  fs.renameSync(tmp, secretsFile(s));
  s.oauth2.jwtSecret = secrets[JWT_SECRET_KEY];
}
