/**
 * Values the server keeps encrypted at rest with a key derived from `[security] SECRET_KEY`
 * (AES-256-GCM): a hook's Authorization header, the actions secrets. The stored form is base64 of
 * IV, tag and text.
 */
import crypto from 'node:crypto';
import { settings } from '../../config';

function key(): Buffer {
  return crypto.createHash('sha256').update(`forge-secret-box\0${settings().security.secretKey}`).digest();
}

/** Encrypt a value ('' stays ''). */
export function seal(plain: string): string {
  if (!plain) return '';
  const iv = crypto.randomBytes(12);
  const c = crypto.createCipheriv('aes-256-gcm', key(), iv);
  const text = Buffer.concat([c.update(plain, 'utf8'), c.final()]);
  return Buffer.concat([iv, c.getAuthTag(), text]).toString('base64');
}

/** Decrypt a value sealed with the same SECRET_KEY; '' for '' or a value that does not open. */
export function open(sealed: string): string {
  if (!sealed) return '';
  try {
    const b = Buffer.from(sealed, 'base64');
    const d = crypto.createDecipheriv('aes-256-gcm', key(), b.subarray(0, 12));
    d.setAuthTag(b.subarray(12, 28));
    return Buffer.concat([d.update(b.subarray(28)), d.final()]).toString('utf8');
  } catch {
    return '';
  }
}
