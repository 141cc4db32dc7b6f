/**
 * Checking commit signatures against candidate public keys: GPG signatures with OpenPGP.js, SSH
 * signatures (the sshsig format git writes with gpg.format=ssh) with node's crypto. The server
 * extracts signature and payload from the commit object and chooses the keys.
 */
import crypto from 'node:crypto';
import * as openpgp from 'openpgp';
import { parseSshSig, readString, sshPublicKey } from '../sshsig';

/** Arguments of checkSignature: the signature and the public keys to try (armored GPG keys or OpenSSH lines). */
export interface CheckArgs { kind: 'gpg' | 'ssh'; signature: string; payload: string; keys: string[] }

/**
 * Which key verified (-1: none), the signing key id (GPG: 16 upper-case hex digits of the key or
 * subkey), and the key ids a GPG signature names as its issuer.
 */
export interface CheckResult { index: number; keyId: string; issuers: string[] }

async function gpgIssuers(signature: string): Promise<string[]> {
  try {
    return (await openpgp.readSignature({ armoredSignature: signature })).getSigningKeyIDs().map((k) => k.toHex().toUpperCase());
  } catch {
    return [];
  }
}

async function checkGpg(signature: string, payload: string, armoredKey: string): Promise<string | null> {
  try {
    const verificationKeys = await openpgp.readKey({ armoredKey });
    const message = await openpgp.createMessage({ binary: Buffer.from(payload) });
    const result = await openpgp.verify({ message, signature: await openpgp.readSignature({ armoredSignature: signature }), verificationKeys });
    await result.signatures[0].verified;
    return result.signatures[0].keyID.toHex().toUpperCase();
  } catch {
    return null;
  }
}

// why: crypto.verify takes a hash name (none for ed25519, where the curve fixes it), not the SSH algorithm name.
const HASH_OF: Record<string, string | undefined> = {
  'rsa-sha2-512': 'sha512', 'rsa-sha2-256': 'sha256', 'ssh-rsa': 'sha1',
  'ecdsa-sha2-nistp256': 'sha256', 'ecdsa-sha2-nistp384': 'sha384', 'ecdsa-sha2-nistp521': 'sha512',
};

/** DER length bytes. */
function derLength(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v >>= 8) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

/** An SSH ECDSA signature (mpint r, mpint s) as the DER sequence node's crypto verifies. */
function ecdsaDer(raw: Buffer): Buffer {
  const [r, o1] = readString(raw, 0);
  const [sPart] = readString(raw, o1);
  const int = (b: Buffer) => Buffer.concat([Buffer.from([0x02]), derLength(b.length), b]);
  const body = Buffer.concat([int(r), int(sPart)]);
  return Buffer.concat([Buffer.from([0x30]), derLength(body.length), body]);
}

function checkSsh(signature: string, payload: string, authorizedKey: string): boolean {
  try {
    const sig = parseSshSig(signature);
    const blob = Buffer.from(authorizedKey.trim().split(/\s+/)[1] ?? '', 'base64');
    // why: the key inside the signature must be the candidate key itself, and git signs in the "git" namespace.
    if (!blob.equals(sig.publicKey) || sig.namespace !== 'git') return false;
    const key = sshPublicKey(blob);
    if (!key) return false;
    if (sig.hashAlg !== 'sha512' && sig.hashAlg !== 'sha256') return false;
    const digest = crypto.createHash(sig.hashAlg).update(payload).digest();
    const field = (b: Buffer) => { const len = Buffer.alloc(4); len.writeUInt32BE(b.length); return Buffer.concat([len, b]); };
    const signed = Buffer.concat([Buffer.from('SSHSIG'), field(Buffer.from('git')), field(sig.reserved), field(Buffer.from(sig.hashAlg)), field(digest)]);
    const [algo, o1] = readString(sig.signature, 0);
    const [raw] = readString(sig.signature, o1);
    const name = algo.toString();
    return crypto.verify(HASH_OF[name] ?? null, signed, key, name.startsWith('ecdsa-') ? ecdsaDer(raw) : raw);
  } catch {
    return false;
  }
}

/** The first key in `keys` that verifies the signature over the payload (index -1 when none does). */
export async function checkSignature({ kind, signature, payload, keys }: CheckArgs): Promise<CheckResult> {
  const issuers = kind === 'gpg' ? await gpgIssuers(signature) : [];
  for (let i = 0; i < keys.length; i++) {
    if (kind === 'ssh') {
      if (checkSsh(signature, payload, keys[i])) return { index: i, keyId: '', issuers };
    } else {
      const keyId = await checkGpg(signature, payload, keys[i]);
      if (keyId) return { index: i, keyId, issuers };
    }
  }
  return { index: -1, keyId: '', issuers };
}
