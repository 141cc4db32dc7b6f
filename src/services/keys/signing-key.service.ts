/**
 * The instance's signing key as Gitea's `/signing-key.gpg` gives it: the armored OpenPGP public key
 * of `[repository.signing] SIGNING_KEY`, or nothing (an empty answer) when the server signs nothing.
 */
import { settings } from '../../config';
import { NotFound } from '../../errors';
import { exportArmoredKey } from '../../git/signing-key';

// why: clients (and CI systems verifying merges) ask for the key often; it changes only when an
// administrator changes the keyring, so each process asks gpg at most once a minute.
const TTL_MS = 60_000;
let cached: { key: string; text: string; at: number } | null = null;

/**
 * The armored public key the server signs its commits with; '' when signing is off (Gitea 1.24
 * answers an empty body then); 404 when the server signs with an SSH key, which has no OpenPGP form.
 */
export async function instanceSigningKey(): Promise<string> {
  const s = settings().signing;
  if (!s.signingKey || s.signingKey === 'none' || s.signingKey === 'default') return '';
  if (s.signingFormat !== 'openpgp') throw new NotFound(`signing key format is ${s.signingFormat}`);
  const now = Date.now();
  if (cached && cached.key === s.signingKey && now - cached.at < TTL_MS) return cached.text;
  const text = await exportArmoredKey(s.signingKey);
  cached = { key: s.signingKey, text, at: now };
  return text;
}
