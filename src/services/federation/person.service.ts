/**
 * The ActivityPub Person of a user (Gitea's /activitypub/user-id/{id}): found by its numeric id, so
 * its IRI survives a rename, with its federation key. Unlike Gitea, a user or organization the
 * caller may not see answers as a missing one (404), so a private account is never federated.
 */
import type { DbContext } from '../../db';
import { NotFound } from '../../errors';
import { settings } from '../../config';
import { findUserById, type UserModel } from '../../models/user.model';
import type { Principal } from '../auth/principal';
import { canSeeOwner } from '../perm/permission';
import { federationPublicKey } from './keys';

/** 404 unless federation is on ([federation] ENABLED), as if the route did not exist. */
export function assertFederationEnabled(): void {
  if (!settings().federation.enabled) throw new NotFound();
}

/** The user behind an actor id, if the caller may see it (404 in Gitea's words otherwise). */
export async function actorUser(ctx: DbContext, p: Principal, id: number): Promise<UserModel> {
  assertFederationEnabled();
  const u = Number.isSafeInteger(id) && id > 0 ? await findUserById(ctx, id) : null;
  if (!u || !(await canSeeOwner(ctx, p, u))) throw new NotFound(`user does not exist [uid: ${id}, name: ]`);
  return u;
}

/** The actor of user `id` and its public key. */
export async function personOf(ctx: DbContext, p: Principal, id: number): Promise<{ user: UserModel; publicKeyPem: string }> {
  const user = await actorUser(ctx, p, id);
  return { user, publicKeyPem: await federationPublicKey(ctx, user.id) };
}
