/**
 * Password hashing with scrypt (memory-hard, in Node's crypto, off the event loop).
 * Stored form: `scrypt$N$r$p$<salt b64>$<hash b64>`.
 */
import crypto from 'node:crypto';
import { promisify } from 'node:util';

const scrypt = promisify(crypto.scrypt) as (pw: string, salt: Buffer, len: number, opts: crypto.ScryptOptions) => Promise<Buffer>;
const N = 16384, R = 8, P = 1, LEN = 32;

/** Hash a password for storage. */
export async function hashPassword(password: string): Promise<string> {
  const salt = crypto.randomBytes(16);
  const hash = await scrypt(password, salt, LEN, { N, r: R, p: P });
  return `scrypt$${N}$${R}$${P}$${salt.toString('base64')}$${hash.toString('base64')}`;
}

/**
 * What a password is checked against when the account has none (no such user, an organization,
 * a user without a password): a stored form with the parameters and lengths of a real hash, whose
 * salt and hash are random, so no password matches it. why: checking against it costs what
 * checking a real hash costs, so the time of a failed sign-in does not tell whether the name
 * exists (security finding, issue 35).
 */
export const NO_PASSWORD_HASH = `scrypt$${N}$${R}$${P}$${crypto.randomBytes(16).toString('base64')}$${crypto.randomBytes(LEN).toString('base64')}`;

/** Compare a password with a stored hash in constant time. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [, n, r, p, salt, hash] = parts;
  const expected = Buffer.from(hash, 'base64');
  const got = await scrypt(password, Buffer.from(salt, 'base64'), expected.length, { N: Number(n), r: Number(r), p: Number(p) });
  return crypto.timingSafeEqual(expected, got);
}
