/**
 * Parsing armored OpenPGP public keys into what the API stores and shows: the primary key and
 * its subkeys (ids, capabilities, dates, packet content) and the emails of the user IDs; and
 * checking a detached signature over a verification token.
 */
import * as openpgp from 'openpgp';

/** A key that cannot be accepted; the message is shown to the user. */
export class InvalidGpgKey extends Error {}

/** One key or subkey as stored. */
export interface ParsedGpgPart {
  /** 16 upper-case hex characters. */
  keyId: string;
  /** Base64 of the serialized public key packet (Gitea's `public_key`). */
  content: string;
  canSign: boolean;
  canEncryptComms: boolean;
  canEncryptStorage: boolean;
  canCertify: boolean;
  createdAt: Date;
  /** null when the key never expires. */
  expiresAt: Date | null;
}

/** A parsed primary key with its subkeys and user-ID emails. */
export interface ParsedGpgKey extends ParsedGpgPart {
  emails: string[];
  subkeys: ParsedGpgPart[];
  /** The key re-armored on its own (the first key of the upload). */
  armored: string;
}

const F = openpgp.enums.keyFlags;
const SIGNING_ALGOS = new Set(['rsaEncryptSign', 'rsaSign', 'dsa', 'ecdsa', 'eddsaLegacy', 'ed25519', 'ed448']);
const ENCRYPTION_ALGOS = new Set(['rsaEncryptSign', 'rsaEncrypt', 'elgamal', 'ecdh', 'x25519', 'x448']);

function packetBase64(packet: openpgp.AnyKeyPacket): string {
  const list = new openpgp.PacketList<openpgp.AnyPacket>();
  list.push(packet);
  return Buffer.from(list.write()).toString('base64');
}

// why: Gitea derives capabilities from the algorithm alone; the key flags of the self-signature say
// what the key owner actually allowed, so they win when present and the algorithm is the fallback.
function capabilities(flags: Uint8Array | null | undefined, algorithm: string): Pick<ParsedGpgPart, 'canSign' | 'canEncryptComms' | 'canEncryptStorage' | 'canCertify'> {
  if (flags && flags.length) {
    const f = flags[0];
    return { canSign: !!(f & F.signData), canEncryptComms: !!(f & F.encryptCommunication), canEncryptStorage: !!(f & F.encryptStorage), canCertify: !!(f & F.certifyKeys) };
  }
  const sign = SIGNING_ALGOS.has(algorithm);
  const enc = ENCRYPTION_ALGOS.has(algorithm);
  return { canSign: sign, canEncryptComms: enc, canEncryptStorage: enc, canCertify: sign };
}

function expiry(e: Date | number | null): Date | null {
  return e instanceof Date ? e : null;
}

async function readFirstKey(armored: string): Promise<openpgp.Key> {
  let keys: openpgp.Key[];
  try {
    keys = await openpgp.readKeys({ armoredKeys: armored });
  } catch (err) {
    throw new InvalidGpgKey(`unable to read the armored key: ${(err as Error).message}`);
  }
  if (!keys.length) throw new InvalidGpgKey('no key found in the armored text');
  return keys[0];
}

/** Parse the first key of an armored public key block; throws InvalidGpgKey. */
export async function parseArmoredGpgKey(armored: string): Promise<ParsedGpgKey> {
  const key = await readFirstKey(armored.trim());
  if (key.isPrivate()) throw new InvalidGpgKey('this is a private key; upload only the public key (gpg --armor --export)');
  let primaryFlags: Uint8Array | null = null;
  try {
    const primary = await key.getPrimaryUser();
    primaryFlags = primary.selfCertification.keyFlags;
  } catch {
    throw new InvalidGpgKey('the key has no valid self-signed user ID');
  }
  const emails: string[] = [];
  const seen = new Set<string>();
  for (const user of key.users) {
    const email = user.userID?.email?.trim();
    if (!email || user.revocationSignatures.length) continue;
    if (seen.has(email.toLowerCase())) continue;
    seen.add(email.toLowerCase());
    emails.push(email);
  }
  const subkeys: ParsedGpgPart[] = [];
  for (const sub of key.subkeys) {
    const binding = sub.bindingSignatures[sub.bindingSignatures.length - 1];
    subkeys.push({
      keyId: sub.getKeyID().toHex().toUpperCase(),
      content: packetBase64(sub.keyPacket),
      ...capabilities(binding?.keyFlags, String(sub.getAlgorithmInfo().algorithm)),
      createdAt: sub.getCreationTime(),
      expiresAt: expiry(await sub.getExpirationTime().catch(() => null)),
    });
  }
  return {
    keyId: key.getKeyID().toHex().toUpperCase(),
    content: packetBase64(key.keyPacket),
    ...capabilities(primaryFlags, String(key.getAlgorithmInfo().algorithm)),
    createdAt: key.getCreationTime(),
    expiresAt: expiry(await key.getExpirationTime().catch(() => null)),
    emails,
    subkeys,
    armored: key.armor(),
  };
}

/**
 * True when `armoredSignature` is a valid detached signature by the key (or a subkey) over
 * `token`, signed as given or with the trailing newline `echo` adds.
 */
export async function verifyTokenSignature(armoredKey: string, token: string, armoredSignature: string): Promise<boolean> {
  let key: openpgp.Key;
  let signature: openpgp.Signature;
  try {
    key = await readFirstKey(armoredKey);
    signature = await openpgp.readSignature({ armoredSignature: armoredSignature.trim() });
  } catch {
    return false;
  }
  for (const text of [token, `${token}\n`, `${token}\r\n`]) {
    const message = await openpgp.createMessage({ binary: Buffer.from(text, 'utf8') });
    try {
      const res = await openpgp.verify({ message, signature, verificationKeys: key, expectSigned: true, format: 'binary' });
      if (res.signatures.length) {
        await res.signatures[0].verified;
        return true;
      }
    } catch {
      // try the next form of the token
    }
  }
  return false;
}
