/** public_key and gpg_key rows -> API PublicKey and GPGKey. */
import type { GPGKey, PublicKey } from '../api/key';
import type { PublicKeyModel } from '../models/public-key.model';
import type { GpgKeyModel } from '../models/gpg-key.model';
import type { UserModel } from '../models/user.model';
import { toUser, type Viewer } from './user';
import { isoTime } from './time';

const KEY_TYPES: Record<number, string> = { 1: 'user', 2: 'deploy' };

/** Convert an SSH key of `owner`; private fields only when the viewer is the owner or a site admin. */
export function toPublicKey(k: PublicKeyModel, owner: UserModel, viewer: Viewer | null, rootUrl: string): PublicKey {
  const out: PublicKey = {
    id: k.id,
    key: k.content,
    url: `${rootUrl}api/v1/user/keys/${k.id}`,
    title: k.name,
    fingerprint: k.fingerprint,
    created_at: isoTime(k.createdAt),
  };
  if (viewer && (viewer.id === k.ownerId || viewer.isAdmin)) {
    out.last_used_at = k.lastUsedAt ? isoTime(k.lastUsedAt) : null;
    out.user = toUser(owner, { id: owner.id, isAdmin: false }, rootUrl);
    if (k.mode === 1) out.read_only = true;
    out.key_type = KEY_TYPES[k.type] ?? 'unknown';
  }
  return out;
}

function part(k: GpgKeyModel): GPGKey {
  return {
    id: k.id,
    primary_key_id: k.primaryKeyId,
    key_id: k.keyId,
    public_key: k.content,
    emails: null,
    subkeys: null,
    can_sign: k.canSign,
    can_encrypt_comms: k.canEncryptComms,
    can_encrypt_storage: k.canEncryptStorage,
    can_certify: k.canCertify,
    verified: k.verified,
    created_at: isoTime(k.keyCreatedAt ?? k.createdAt),
    expires_at: isoTime(k.expiresAt),
  };
}

/**
 * Convert a primary GPG key with its subkeys; `activatedEmails` holds the owner's activated
 * addresses in lower case, which decide each user-ID email's `verified`.
 */
export function toGpgKey(k: GpgKeyModel, subkeys: GpgKeyModel[], activatedEmails: Set<string>): GPGKey {
  let emails: string[] = [];
  try { emails = JSON.parse(k.emails) as string[]; } catch { /* stored by us; never malformed */ }
  return {
    ...part(k),
    emails: emails.map((email) => ({ email, verified: activatedEmails.has(email.toLowerCase()) })),
    subkeys: subkeys.map(part),
  };
}
