/**
 * Commit signatures: extracting them from commit objects (with the signed payload and who claims
 * to have signed) and checking them against candidate public keys. GPG signatures are checked with
 * OpenPGP.js, SSH signatures (the sshsig format git writes with gpg.format=ssh) with node's crypto
 * through ssh2's key parser.
 */
import crypto from 'node:crypto';
import NodeGit from 'nodegit';
import * as openpgp from 'openpgp';
import { utils as sshUtils } from 'ssh2';
import { repository } from '../repo-cache';

/** A commit's signature as found in its object. */
export interface CommitSignature {
  kind: 'gpg' | 'ssh';
  /** The armored signature text. */
  signature: string;
  /** The commit object without its signature header: what was signed. */
  payload: string;
  /** GPG: the issuer key ids (16 upper-case hex digits) the signature names. */
  keyIds: string[];
  /** SSH: the SHA256 fingerprint of the signing key, as ssh-keygen prints it. */
  fingerprint: string;
}

const SSH_ARMOR = '-----BEGIN SSH SIGNATURE-----';

// why: nodegit has Commit.extractSignature (libgit2's git_commit_extract_signature); its type package does not declare it.
const extractSignature = (NodeGit.Commit as unknown as {
  extractSignature(repo: NodeGit.Repository, id: NodeGit.Oid, field: string): Promise<{ signature: string; signedData: string }>;
}).extractSignature;

/** Read one SSH wire-format string from `buf` at `off`. */
function readString(buf: Buffer, off: number): [Buffer, number] {
  if (off + 4 > buf.length) throw new Error('truncated');
  const len = buf.readUInt32BE(off);
  if (off + 4 + len > buf.length) throw new Error('truncated');
  return [buf.subarray(off + 4, off + 4 + len), off + 4 + len];
}

/** The parts of an sshsig blob (PROTOCOL.sshsig). */
interface SshSig { publicKey: Buffer; namespace: string; reserved: Buffer; hashAlg: string; signature: Buffer }

function parseSshSig(armored: string): SshSig {
  const body = armored.replace(/-----(BEGIN|END) SSH SIGNATURE-----/g, '').replace(/\s+/g, '');
  const blob = Buffer.from(body, 'base64');
  if (blob.subarray(0, 6).toString() !== 'SSHSIG' || blob.readUInt32BE(6) !== 1) throw new Error('not an sshsig v1 blob');
  let off = 10;
  const [publicKey, o1] = readString(blob, off);
  const [namespace, o2] = readString(blob, o1);
  const [reserved, o3] = readString(blob, o2);
  const [hashAlg, o4] = readString(blob, o3);
  const [signature, o5] = readString(blob, o4);
  off = o5;
  if (off !== blob.length) throw new Error('trailing data');
  return { publicKey, namespace: namespace.toString(), reserved, hashAlg: hashAlg.toString(), signature };
}

function sshFingerprint(blob: Buffer): string {
  return `SHA256:${crypto.createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`;
}

async function gpgKeyIds(armored: string): Promise<string[]> {
  try {
    const sig = await openpgp.readSignature({ armoredSignature: armored });
    return sig.getSigningKeyIDs().map((k) => k.toHex().toUpperCase());
  } catch {
    return [];
  }
}

/** Arguments of inspectSignatures. */
export interface InspectArgs { gitDir: string; ids: string[] }

/** The signature of each commit (null when unsigned), in the order of `ids`. */
export async function inspectSignatures({ gitDir, ids }: InspectArgs): Promise<(CommitSignature | null)[]> {
  const repo = await repository(gitDir);
  return Promise.all(ids.map(async (id) => {
    let extracted: { signature: string; signedData: string };
    try {
      extracted = await extractSignature(repo, NodeGit.Oid.fromString(id), 'gpgsig');
    } catch {
      return null;
    }
    const signature = extracted.signature;
    if (signature.startsWith(SSH_ARMOR)) {
      let fingerprint = '';
      try { fingerprint = sshFingerprint(parseSshSig(signature).publicKey); } catch { /* malformed: verification says so */ }
      return { kind: 'ssh', signature, payload: extracted.signedData, keyIds: [], fingerprint } as CommitSignature;
    }
    return { kind: 'gpg', signature, payload: extracted.signedData, keyIds: await gpgKeyIds(signature), fingerprint: '' } as CommitSignature;
  }));
}

// why: ssh2's verify takes a hash name (none for ed25519, where the curve fixes it), not the SSH algorithm name.
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

/** Arguments of checkSignature: the signature and the public keys to try (armored GPG keys or OpenSSH lines). */
export interface CheckArgs { kind: 'gpg' | 'ssh'; signature: string; payload: string; keys: string[] }

async function checkGpg(signature: string, payload: string, armoredKey: string): Promise<boolean> {
  try {
    const verificationKeys = await openpgp.readKey({ armoredKey });
    const message = await openpgp.createMessage({ binary: Buffer.from(payload) });
    const result = await openpgp.verify({ message, signature: await openpgp.readSignature({ armoredSignature: signature }), verificationKeys });
    await result.signatures[0].verified;
    return true;
  } catch {
    return false;
  }
}

function checkSsh(signature: string, payload: string, authorizedKey: string): boolean {
  try {
    const sig = parseSshSig(signature);
    const key = sshUtils.parseKey(authorizedKey);
    if (key instanceof Error || Array.isArray(key)) return false;
    // why: the key inside the signature must be the candidate key itself, and git signs in the "git" namespace.
    if (!key.getPublicSSH().equals(sig.publicKey) || sig.namespace !== 'git') return false;
    if (sig.hashAlg !== 'sha512' && sig.hashAlg !== 'sha256') return false;
    const digest = crypto.createHash(sig.hashAlg).update(payload).digest();
    const field = (b: Buffer) => { const len = Buffer.alloc(4); len.writeUInt32BE(b.length); return Buffer.concat([len, b]); };
    const signed = Buffer.concat([Buffer.from('SSHSIG'), field(Buffer.from('git')), field(sig.reserved), field(Buffer.from(sig.hashAlg)), field(digest)]);
    const [algo, o1] = readString(sig.signature, 0);
    const [raw] = readString(sig.signature, o1);
    const name = algo.toString();
    const bytes = name.startsWith('ecdsa-') ? ecdsaDer(raw) : raw;
    return key.verify(signed, bytes, HASH_OF[name]) === true;
  } catch {
    return false;
  }
}

/** The index in `keys` of the first key that verifies the signature over the payload, or -1. */
export async function checkSignature({ kind, signature, payload, keys }: CheckArgs): Promise<number> {
  for (let i = 0; i < keys.length; i++) {
    const ok = kind === 'gpg' ? await checkGpg(signature, payload, keys[i]) : checkSsh(signature, payload, keys[i]);
    if (ok) return i;
  }
  return -1;
}
