/**
 * Who an SSH public key stands for: a user key opens everything its (active, not prohibited) user
 * may do; a deploy key opens only the repositories it was added to, with each one's mode. The SSH
 * server asks here at authentication and again at every command, so a key removed, a user
 * prohibited or a deploy key unlinked while a connection stays open takes effect at once.
 */
import type { DbContext } from '../../db';
import { NotFound, Unauthorized } from '../../errors';
import { findPublicKeyByFingerprint, findPublicKeyById, touchPublicKey, PublicKeyType, type PublicKeyModel } from '../../models/public-key.model';
import { findDeployKeyOfRepo, isDeployKeyInUse } from '../../models/deploy-key.model';
import { findUserById, findUserByName, UserType, type UserModel } from '../../models/user.model';
import { findRepoByOwnerAndName } from '../../models/repository.model';
import type { Principal } from '../auth/principal';
import { sshFingerprint } from './ssh-parse';

/** An authenticated SSH key: a user's key or a deploy key (whose repository depends on the command). */
export interface SshIdentity {
  kind: 'user' | 'deploy';
  /** The public_key row. */
  keyId: number;
  /** The key's title (a deploy key: the title it was first added with). */
  keyName: string;
  /** The user of a user key; 0 for a deploy key. */
  userId: number;
  /** The user's name (user keys). */
  userName: string;
}

function blobOf(content: string): Buffer {
  return Buffer.from(content.trim().split(/\s+/)[1] ?? '', 'base64');
}

function usable(u: UserModel | null): u is UserModel {
  return !!u && u.type === UserType.Individual && u.isActive && !u.prohibitLogin;
}

async function identityOf(ctx: DbContext, key: PublicKeyModel | null, blob?: Buffer): Promise<SshIdentity | null> {
  // why: the fingerprint finds the row; comparing the whole key blob as well costs nothing.
  if (!key || (blob && !blobOf(key.content).equals(blob))) return null;
  if (key.type === PublicKeyType.User) {
    const user = await findUserById(ctx, key.ownerId);
    if (!usable(user)) return null;
    return { kind: 'user', keyId: key.id, keyName: key.name, userId: user.id, userName: user.name };
  }
  if (key.type === PublicKeyType.Deploy && (await isDeployKeyInUse(ctx, key.id))) {
    return { kind: 'deploy', keyId: key.id, keyName: key.name, userId: 0, userName: '' };
  }
  return null;
}

/** The identity of an offered public key blob (SSH wire format), or null when it opens nothing. */
export async function identifySshKey(ctx: DbContext, blob: Buffer): Promise<SshIdentity | null> {
  return identityOf(ctx, await findPublicKeyByFingerprint(ctx, sshFingerprint(blob)), blob);
}

/** Record that the key was used (last_used_at, written at most once a minute). */
export async function markSshKeyUsed(ctx: DbContext, id: SshIdentity, now = new Date()): Promise<void> {
  await touchPublicKey(ctx, id.keyId, now);
}

/** Re-read the key and its user; 401 when the key no longer opens anything. */
export async function refreshSshIdentity(ctx: DbContext, id: SshIdentity): Promise<SshIdentity> {
  const fresh = await identityOf(ctx, await findPublicKeyById(ctx, id.keyId));
  if (!fresh || fresh.kind !== id.kind) throw new Unauthorized('this key is no longer valid');
  return fresh;
}

/**
 * The principal of a command on `owner/repo`: a user key acts as its user (full access, no token
 * scopes); a deploy key acts for that one repository with the mode it has there. A deploy key
 * that was not added to the repository finds it missing, exactly like a repository that is not there.
 */
export async function sshPrincipal(ctx: DbContext, id: SshIdentity, ownerName: string, repoName: string): Promise<Principal> {
  const fresh = await refreshSshIdentity(ctx, id);
  if (fresh.kind === 'user') {
    const user = await findUserById(ctx, fresh.userId);
    if (!usable(user)) throw new Unauthorized('this key is no longer valid');
    return { user, scopes: null, tokenId: null, method: 'ssh-key' };
  }
  const notFound = new NotFound(`repository does not exist [owner: ${ownerName}, name: ${repoName}]`);
  const owner = await findUserByName(ctx, ownerName);
  const repo = owner ? await findRepoByOwnerAndName(ctx, owner.id, repoName) : null;
  const dk = repo ? await findDeployKeyOfRepo(ctx, fresh.keyId, repo.id) : null;
  if (!dk) throw notFound;
  return { user: null, scopes: null, tokenId: null, method: 'deploy-key', deployKey: { id: dk.id, repoId: dk.repoId, mode: dk.mode } };
}
