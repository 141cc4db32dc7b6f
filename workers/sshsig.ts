/**
 * The sshsig format git writes for SSH-signed commits (OpenSSH PROTOCOL.sshsig): parsing the armored
 * blob and the fingerprint of the key inside. Pure and dependency-free, so the server and the
 * worker threads share it.
 */
import crypto from 'node:crypto';

/** Read one SSH wire-format string from `buf` at `off`. */
export function readString(buf: Buffer, off: number): [Buffer, number] {
  if (off + 4 > buf.length) throw new Error('truncated');
  const len = buf.readUInt32BE(off);
  if (off + 4 + len > buf.length) throw new Error('truncated');
  return [buf.subarray(off + 4, off + 4 + len), off + 4 + len];
}

/** The parts of an sshsig blob (PROTOCOL.sshsig). */
export interface SshSig { publicKey: Buffer; namespace: string; reserved: Buffer; hashAlg: string; signature: Buffer }

/** Parse an armored sshsig signature; throws on anything malformed. */
export function parseSshSig(armored: string): SshSig {
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

/** The SHA256 fingerprint of a public key blob, as ssh-keygen prints it. */
export function sshFingerprint(blob: Buffer): string {
  return `SHA256:${crypto.createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`;
}


const CURVES: Record<string, string> = { nistp256: 'P-256', nistp384: 'P-384', nistp521: 'P-521' };
const b64url = (b: Buffer) => b.toString('base64url');
/** An SSH mpint without the sign byte, for a JWK field. */
const unsigned = (b: Buffer) => { let i = 0; while (i < b.length - 1 && b[i] === 0) i++; return b.subarray(i); };

/**
 * The public key of an SSH key blob (ssh-ed25519, ssh-rsa, ecdsa-sha2-nistp*) as a node KeyObject,
 * or null for another type. why: ssh2's parser loads a native addon that is not safe to load in
 * worker threads; node's crypto reads the same keys as JWK.
 */
export function sshPublicKey(blob: Buffer): crypto.KeyObject | null {
  const [type, o1] = readString(blob, 0);
  const name = type.toString();
  if (name === 'ssh-ed25519') {
    const [x] = readString(blob, o1);
    return crypto.createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: b64url(x) }, format: 'jwk' });
  }
  if (name === 'ssh-rsa') {
    const [e, o2] = readString(blob, o1);
    const [n] = readString(blob, o2);
    return crypto.createPublicKey({ key: { kty: 'RSA', n: b64url(unsigned(n)), e: b64url(unsigned(e)) }, format: 'jwk' });
  }
  const curve = /^ecdsa-sha2-(nistp\d+)$/.exec(name)?.[1];
  if (curve && CURVES[curve]) {
    const [, o2] = readString(blob, o1);
    const [q] = readString(blob, o2);
    if (q[0] !== 4) return null;
    const half = (q.length - 1) / 2;
    return crypto.createPublicKey({ key: { kty: 'EC', crv: CURVES[curve], x: b64url(q.subarray(1, 1 + half)), y: b64url(q.subarray(1 + half)) }, format: 'jwk' });
  }
  return null;
}
