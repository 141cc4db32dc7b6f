/**
 * GPG keys of users: adding (an email of the key must be an activated address of the user, or
 * the user signs a verification token with the key), verifying, listing with subkeys, removing.
 */
import crypto from 'node:crypto';
import { withTx, isUniqueViolation, type DbContext } from '../../db';
import { settings } from '../../config';
import { Forbidden, NotFound, Validation } from '../../errors';
import type { UserModel } from '../../models/user.model';
import { listEmailsOf } from '../../models/email-address.model';
import {
  deleteGpgKeyWithSubkeys, findGpgKeyByKeyIds, findPrimaryGpgKeyOf, findPrimaryGpgKeyOfByKeyId, insertGpgKey, listGpgSubkeys,
  listPrimaryGpgKeysOf, markGpgKeyVerified, type GpgKeyModel,
} from '../../models/gpg-key.model';
import { deleteGpgKeyImport, findGpgKeyImport, insertGpgKeyImport } from '../../models/gpg-key-import.model';
import { InvalidGpgKey, parseArmoredGpgKey, verifyTokenSignature, type ParsedGpgKey } from './gpg-parse';

/** A primary key with its subkeys. */
export interface GpgKeyWithSubkeys { key: GpgKeyModel; subkeys: GpgKeyModel[] }

/** 403 unless [user] ENABLE_GPG_KEYS is on. */
export function assertGpgKeysEnabled(): void {
  if (!settings().user.enableGpgKeys) throw new Forbidden('gpg keys setting is not allowed to be visited');
}

/**
 * The token a user signs to prove they hold a key: a hash of the minute (`minutesAhead` from
 * now, truncated) and facts of the user. Valid for about two minutes.
 */
export function gpgVerificationToken(user: UserModel, now: Date, minutesAhead: number): string {
  const minute = new Date(Math.floor(now.getTime() / 60_000) * 60_000 + minutesAhead * 60_000).toISOString();
  const created = Math.floor(new Date(user.createdAt).getTime() / 1000);
  return crypto.createHash('sha256').update(`${minute}:${created}:${user.name}:${user.email}:${user.id}`).digest('hex');
}

function badSignature(token: string): Validation {
  return new Validation(`The provided GPG key, signature and token do not match or token is out of date. Provide a valid signature for the token: ${token}`);
}

// why: as Gitea, the token of the current minute window is tried first, then the previous one.
async function signedToken(user: UserModel, armoredKey: string, signature: string): Promise<boolean> {
  const now = new Date();
  for (const ahead of [1, 0]) {
    if (await verifyTokenSignature(armoredKey, gpgVerificationToken(user, now, ahead), signature)) return true;
  }
  return false;
}

/** The owner's activated addresses, lower-cased, which verify the emails of GPG keys. */
export async function activatedEmailsOf(ctx: DbContext, owner: UserModel): Promise<Set<string>> {
  const rows = await listEmailsOf(ctx, owner.id);
  return new Set(rows.filter((e) => e.isActivated).map((e) => e.email.toLowerCase()));
}

/** Add the first key of an armored block for `owner`; 422/404 with Gitea's messages, nothing stored then. */
export async function addGpgKey(ctx: DbContext, owner: UserModel, armored: string, signature?: string): Promise<GpgKeyWithSubkeys> {
  if (typeof armored !== 'string' || armored.trim() === '') throw new Validation('[ArmoredKey]: Required');
  let parsed: ParsedGpgKey;
  try {
    parsed = await parseArmoredGpgKey(armored);
  } catch (err) {
    if (err instanceof InvalidGpgKey) throw new Validation(err.message);
    throw err;
  }
  const token = gpgVerificationToken(owner, new Date(), 1);
  let verified = false;
  if (signature && signature.trim() !== '') {
    if (!(await signedToken(owner, parsed.armored, signature))) throw badSignature(token);
    verified = true;
  } else {
    const mine = await activatedEmailsOf(ctx, owner);
    if (!parsed.emails.some((e) => mine.has(e.toLowerCase()))) {
      throw new NotFound(`None of the emails attached to the GPG key could be found. It may still be added if you provide a valid signature for the token: ${token}`);
    }
  }
  const ids = [parsed.keyId, ...parsed.subkeys.map((s) => s.keyId)];
  try {
    // why: all rows of one key (primary, subkeys, armored import) appear together or not at all.
    return await withTx(ctx, async (tx) => {
      if (await findGpgKeyByKeyIds(tx, ids)) throw new Validation('A key with the same id already exists');
      const common = { ownerId: owner.id, verified };
      const key = await insertGpgKey(tx, {
        ...common, keyId: parsed.keyId, primaryKeyId: '', content: parsed.content, emails: JSON.stringify(parsed.emails),
        canSign: parsed.canSign, canEncryptComms: parsed.canEncryptComms, canEncryptStorage: parsed.canEncryptStorage,
        canCertify: parsed.canCertify, keyCreatedAt: parsed.createdAt, expiresAt: parsed.expiresAt,
      });
      const subkeys: GpgKeyModel[] = [];
      for (const s of parsed.subkeys) {
        subkeys.push(await insertGpgKey(tx, {
          ...common, keyId: s.keyId, primaryKeyId: parsed.keyId, content: s.content, emails: '[]',
          canSign: s.canSign, canEncryptComms: s.canEncryptComms, canEncryptStorage: s.canEncryptStorage,
          canCertify: s.canCertify, keyCreatedAt: s.createdAt, expiresAt: s.expiresAt,
        }));
      }
      await insertGpgKeyImport(tx, parsed.keyId, parsed.armored);
      return { key, subkeys };
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw new Validation('A key with the same id already exists');
    throw err;
  }
}

/** One page of a user's GPG keys with their subkeys. */
export async function listGpgKeys(ctx: DbContext, owner: UserModel, limit: number, offset: number): Promise<{ keys: GpgKeyWithSubkeys[]; total: number }> {
  const { rows, count } = await listPrimaryGpgKeysOf(ctx, owner.id, limit, offset);
  const subs = await listGpgSubkeys(ctx, rows.map((r) => r.keyId));
  return { keys: rows.map((key) => ({ key, subkeys: subs.filter((s) => s.primaryKeyId === key.keyId) })), total: count };
}

/** The GPG key `id` of `owner` with its subkeys; 404 for a missing key or anyone else's. */
export async function getOwnGpgKey(ctx: DbContext, owner: UserModel, id: number): Promise<GpgKeyWithSubkeys> {
  const key = await findPrimaryGpgKeyOf(ctx, owner.id, id);
  if (!key) throw new NotFound(`public key does not exist [id: ${id}]`);
  return { key, subkeys: await listGpgSubkeys(ctx, [key.keyId]) };
}

/** Remove a GPG key of `owner` with its subkeys; 404 for a missing key or anyone else's. */
export async function removeGpgKey(ctx: DbContext, owner: UserModel, id: number): Promise<void> {
  await withTx(ctx, async (tx) => {
    const key = await findPrimaryGpgKeyOf(tx, owner.id, id);
    if (!key) throw new NotFound(`public key does not exist [id: ${id}]`);
    await deleteGpgKeyWithSubkeys(tx, key.keyId);
    await deleteGpgKeyImport(tx, key.keyId);
  });
}

/** Mark a key of `owner` verified with a signature over the current token; 404/422 as Gitea. */
export async function verifyGpgKey(ctx: DbContext, owner: UserModel, keyIdInput: string, signature: string): Promise<GpgKeyWithSubkeys> {
  const keyId = (keyIdInput ?? '').trim().toUpperCase();
  if (keyId.replace(/^0+/, '') === '') throw new NotFound('The target couldn\'t be found.');
  if (typeof signature !== 'string' || signature.trim() === '') throw new Validation('[Signature]: Required');
  const key = await findPrimaryGpgKeyOfByKeyId(ctx, owner.id, keyId);
  if (!key) throw new NotFound(`public key does not exist [id: ${keyId}]`);
  const imported = await findGpgKeyImport(ctx, key.keyId);
  const token = gpgVerificationToken(owner, new Date(), 1);
  if (!imported || !(await signedToken(owner, imported.content, signature))) throw badSignature(token);
  await markGpgKeyVerified(ctx, key.keyId);
  return getOwnGpgKey(ctx, owner, key.id);
}
