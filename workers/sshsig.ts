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

