/**
 * The signing keys of an owner's Linux package repositories, made on first use and kept in the
 * owner's settings with the private half sealed (Gitea's `debian.key.*`, `rpm.key.*`,
 * `alpine.key.*`): an OpenPGP key (RSA 3072) for Debian and one for RPM, and an RSA key (4096) for
 * Alpine, whose public key apk looks up by the file name `{owner}@{sha256 of the key}.rsa.pub`.
 */
import crypto from 'node:crypto';
import { promisify } from 'node:util';
import * as openpgp from 'openpgp';
import type { DbContext } from '../../db';
import type { UserModel } from '../../models/user.model';
import { storedKeyPair, type KeyPair } from '../auth/stored-keys';

const generateKeyPair = promisify(crypto.generateKeyPair);

/** The OpenPGP repositories and the comment of their key's user id (Gitea's). */
const PGP = { debian: 'Debian Registry', rpm: 'RPM Registry' } as const;

/** The armored OpenPGP key pair that signs `owner`'s `kind` repositories. */
export function repositoryPgpKey(ctx: DbContext, owner: UserModel, kind: keyof typeof PGP): Promise<KeyPair> {
  return storedKeyPair(ctx, owner.id, { pub: `${kind}.key.public`, priv: `${kind}.key.private` }, async () => {
    const key = await openpgp.generateKey({ type: 'rsa', rsaBits: 3072, userIDs: [{ name: owner.name, comment: PGP[kind] }], format: 'armored' });
    return { publicKey: key.publicKey, privateKey: key.privateKey };
  });
}

/** The RSA key pair (PEM: SPKI public, PKCS#8 private) that signs `owner`'s Alpine indexes. */
export function alpineKey(ctx: DbContext, owner: UserModel): Promise<KeyPair> {
  return storedKeyPair(ctx, owner.id, { pub: 'alpine.key.public', priv: 'alpine.key.private' }, () => generateKeyPair('rsa', {
    modulusLength: 4096, publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  }));
}

/** The name apk knows `owner`'s Alpine key by: `{owner}@{hex sha256 of the key's DER}.rsa.pub`. */
export function alpineKeyName(owner: UserModel, publicKeyPem: string): string {
  const der = crypto.createPublicKey(publicKeyPem).export({ type: 'spki', format: 'der' });
  return `${owner.lowerName}@${crypto.createHash('sha256').update(der).digest('hex')}.rsa.pub`;
}
