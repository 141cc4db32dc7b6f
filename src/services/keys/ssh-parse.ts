/**
 * Parsing and checking SSH public keys as users paste them: an OpenSSH line (`type base64 comment`)
 * or an RFC 4716 block. The result is the normalized `type base64` content and the SHA256
 * fingerprint OpenSSH prints.
 */
import crypto from 'node:crypto';
import { utils } from 'ssh2';

/** A key that cannot be accepted; the message completes Gitea's "Invalid key content: ...". */
export class InvalidSshKey extends Error {}

/** Minimum sizes per key family; -1 disables the family (Gitea's [ssh.minimum_key_sizes]). */
export interface MinimumKeySizes { ed25519: number; ecdsa: number; rsa: number }

/** What a parsed key looks like. */
export interface ParsedSshKey {
  /** Wire type, e.g. `ssh-ed25519`. */
  type: string;
  /** Family used for the size policy: `ed25519`, `ecdsa`, `rsa`, `dsa`... */
  family: string;
  bits: number;
  /** `SHA256:` + unpadded base64 of the sha256 of the key blob. */
  fingerprint: string;
  /** Normalized `type base64`, without the comment. */
  content: string;
  comment: string;
}

const FAMILY: Record<string, [string, number]> = {
  'ssh-ed25519': ['ed25519', 256],
  'ecdsa-sha2-nistp256': ['ecdsa', 256],
  'ecdsa-sha2-nistp384': ['ecdsa', 384],
  'ecdsa-sha2-nistp521': ['ecdsa', 521],
  'ssh-dss': ['dsa', 1024],
};

/** The SHA256 fingerprint of a key blob, as `ssh-keygen -l` prints it. */
export function sshFingerprint(blob: Buffer): string {
  return `SHA256:${crypto.createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`;
}

/** Bit length of the RSA modulus in an `ssh-rsa` blob (string type, mpint e, mpint n). */
export function rsaModulusBits(blob: Buffer): number {
  let off = 0;
  const next = (): Buffer => {
    if (off + 4 > blob.length) throw new InvalidSshKey('malformed ssh-rsa key');
    const len = blob.readUInt32BE(off);
    off += 4;
    if (off + len > blob.length) throw new InvalidSshKey('malformed ssh-rsa key');
    const part = blob.subarray(off, off + len);
    off += len;
    return part;
  };
  next(); // type
  next(); // e
  const n = next();
  let i = 0;
  while (i < n.length && n[i] === 0) i++;
  if (i === n.length) return 0;
  return (n.length - i - 1) * 8 + (32 - Math.clz32(n[i]));
}

/**
 * Turn an RFC 4716 block (`ssh-keygen -e`) into an OpenSSH line, keeping its Comment header.
 * why: ssh2 reads only RSA and DSA keys in that form; the blob itself says its type.
 */
export function rfc4716ToLine(block: string): string {
  const lines = block.split(/\r?\n/).map((l) => l.trim());
  if (lines[lines.length - 1] !== '---- END SSH2 PUBLIC KEY ----') throw new InvalidSshKey('unable to parse the key: unterminated SSH2 public key block');
  const body = lines.slice(1, -1);
  let comment = '';
  let i = 0;
  while (i < body.length && /^[\x21-\x39\x3B-\x7E]{1,64}: /.test(body[i])) {
    let header = body[i];
    while (header.endsWith('\\') && i + 1 < body.length) header = header.slice(0, -1) + body[++i];
    const [name, ...rest] = header.split(': ');
    if (name.toLowerCase() === 'comment') comment = rest.join(': ').replace(/^"(.*)"$/, '$1');
    i++;
  }
  const b64 = body.slice(i).join('');
  if (!/^[A-Za-z0-9+/]+=*$/.test(b64)) throw new InvalidSshKey('unable to parse the key: malformed SSH2 public key block');
  const blob = Buffer.from(b64, 'base64');
  const typeLen = blob.length >= 4 ? blob.readUInt32BE(0) : 0;
  if (typeLen === 0 || typeLen + 4 > blob.length) throw new InvalidSshKey('unable to parse the key: malformed SSH2 public key block');
  return `${blob.subarray(4, 4 + typeLen).toString('latin1')} ${b64}${comment ? ` ${comment}` : ''}`;
}

/** Parse, check the size policy and normalize one public key; throws InvalidSshKey. */
export function parseSshPublicKey(input: string, minimum: MinimumKeySizes): ParsedSshKey {
  const text = input.trim();
  if (/PRIVATE KEY/.test(text)) throw new InvalidSshKey('this is a private key; upload only the public key (the .pub file)');
  const line = text.startsWith('---- BEGIN SSH2 PUBLIC KEY') ? rfc4716ToLine(text) : text;
  if (/[\r\n]/.test(line)) throw new InvalidSshKey('only a single line with a single key please');
  const firstWord = line.split(/\s+/)[0] ?? '';
  if (firstWord.includes('-cert-v01@openssh.com')) throw new InvalidSshKey('certificates are not accepted, upload the public key itself');
  const parsed = utils.parseKey(line);
  if (parsed instanceof Error) throw new InvalidSshKey(`unable to parse the key: ${parsed.message}`);
  const keys = Array.isArray(parsed) ? parsed : [parsed];
  if (keys.length !== 1) throw new InvalidSshKey('only a single line with a single key please');
  const key = keys[0];
  if (key.isPrivateKey()) throw new InvalidSshKey('this is a private key; upload only the public key (the .pub file)');
  const blob = key.getPublicSSH();
  let family: string;
  let bits: number;
  if (key.type === 'ssh-rsa') {
    family = 'rsa';
    bits = rsaModulusBits(blob);
  } else if (FAMILY[key.type]) {
    [family, bits] = FAMILY[key.type];
  } else {
    throw new InvalidSshKey(`key type is not allowed: ${key.type}`);
  }
  const min = (minimum as unknown as Record<string, number | undefined>)[family];
  if (min === undefined || min < 0) throw new InvalidSshKey(`key type is not allowed: ${family}`);
  if (bits < min) throw new InvalidSshKey(`key length is not enough: got ${bits}, needs ${min}`);
  return {
    type: key.type,
    family,
    bits,
    fingerprint: sshFingerprint(blob),
    content: `${key.type} ${blob.toString('base64')}`,
    comment: key.comment ?? '',
  };
}
