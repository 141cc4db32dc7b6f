/**
 * SSH public keys of users: adding (parsed, size-checked, unique across the site) and removing.
 */
import { withTx, isUniqueViolation, type DbContext } from '../../db';
import { settings } from '../../config';
import { Forbidden, NotFound, Validation } from '../../errors';
import type { UserModel } from '../../models/user.model';
import {
  listUserPublicKeys, PublicKeyMode, PublicKeyType, deletePublicKeyById, findPublicKeyByFingerprint, findPublicKeyById, findUserPublicKey, findUserPublicKeyByName,
  insertPublicKey, type PublicKeyModel,
} from '../../models/public-key.model';
import { InvalidSshKey, parseSshPublicKey } from './ssh-parse';

/** Gitea's message for a fingerprint that is already registered. */
export const KEY_IN_USE = 'Key content has been used as non-deploy key';

/** 403 unless [user] ENABLE_SSH_KEYS is on (self-service only; administrators may always manage keys). */
export function assertSshKeysEnabled(): void {
  if (!settings().user.enableSshKeys) throw new Forbidden('ssh keys setting is not allowed to be visited');
}

/** Add an SSH key for `owner`; 422 with Gitea's messages for every refusal, nothing stored then. */
export async function addPublicKey(ctx: DbContext, owner: UserModel, title: string, key: string): Promise<PublicKeyModel> {
  if (typeof title !== 'string' || title.trim() === '') throw new Validation('[Title]: Required');
  if (typeof key !== 'string' || key.trim() === '') throw new Validation('[Key]: Required');
  const name = title.trim();
  if (name.length > 255) throw new Validation('[Title]: MaxSize');
  let parsed;
  try {
    parsed = parseSshPublicKey(key, settings().sshMinimumKeySizes);
  } catch (err) {
    if (err instanceof InvalidSshKey) throw new Validation(`Invalid key content: ${err.message}`);
    throw err;
  }
  try {
    // why: the checks and the insert share one transaction; the unique index on fingerprint
    // settles a race the checks cannot see.
    return await withTx(ctx, async (tx) => {
      if (await findPublicKeyByFingerprint(tx, parsed.fingerprint)) throw new Validation(KEY_IN_USE);
      if (await findUserPublicKeyByName(tx, owner.id, name)) throw new Validation('Key title has been used');
      return insertPublicKey(tx, {
        ownerId: owner.id, name, fingerprint: parsed.fingerprint, content: parsed.content, keyType: parsed.type,
        mode: PublicKeyMode.Write, type: PublicKeyType.User,
      });
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw new Validation(KEY_IN_USE);
    throw err;
  }
}

/** The SSH key `id` of `owner`; 404 for a missing key or anyone else's. */
export async function getOwnPublicKey(ctx: DbContext, owner: UserModel, id: number): Promise<PublicKeyModel> {
  const key = await findUserPublicKey(ctx, owner.id, id);
  if (!key) throw new NotFound(`public key does not exist [id: ${id}]`);
  return key;
}

/** A user's SSH keys, oldest first (the settings page lists them all). */
export async function publicKeysOf(ctx: DbContext, owner: UserModel): Promise<PublicKeyModel[]> {
  return (await listUserPublicKeys(ctx, owner.id, 1000, 0)).rows;
}

/** Remove an SSH key row. */
export async function removePublicKey(ctx: DbContext, key: PublicKeyModel): Promise<void> {
  await deletePublicKeyById(ctx, key.id);
}

/** For administrators: the SSH key `id`, which must belong to `owner` (404 when missing, 403 when someone else's). */
export async function getUserPublicKeyForAdmin(ctx: DbContext, owner: UserModel, id: number): Promise<PublicKeyModel> {
  const key = await findPublicKeyById(ctx, id);
  if (!key || key.type !== PublicKeyType.User) throw new NotFound(`public key does not exist [id: ${id}]`);
  if (key.ownerId !== owner.id) throw new Forbidden('You do not have access to this key');
  return key;
}
