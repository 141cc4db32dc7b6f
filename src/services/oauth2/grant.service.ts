/**
 * Grants (Gitea's `oauth2_grant`): a user's consent to an application. Listed on the user's
 * applications page and revoked there; revoking deletes the grant and its codes, which clears every
 * process's grant cache before the answer, so its access and refresh tokens are refused at once.
 */
import { withTx, type DbContext } from '../../db';
import { applicationsByIds, applicationIdsOf, deleteApplicationsOf } from '../../models/oauth2-application.model';
import { deleteCodesOfGrants } from '../../models/oauth2-authorization-code.model';
import { deleteGrantRow, deleteGrantsByIds, grantIdsWhere, grantsOfUser } from '../../models/oauth2-grant.model';
import { listOrgsOfMember } from '../../models/org';
import { teamsOfUserInOrg } from '../../models/team.model';
import { Visibility, type UserModel } from '../../models/user.model';

/** A grant as the applications page lists it. */
export interface GrantView { id: number; scope: string; createdUnix: number; app: { id: number; name: string; clientId: string } }

/** The grants `user` gave, oldest first, with their applications. */
export async function grantsOf(ctx: DbContext, user: UserModel): Promise<GrantView[]> {
  const grants = await grantsOfUser(ctx, user.id);
  const apps = new Map((await applicationsByIds(ctx, grants.map((g) => g.applicationId))).map((a) => [a.id, a]));
  return grants.filter((g) => apps.has(g.applicationId)).map((g) => {
    const a = apps.get(g.applicationId)!;
    return { id: g.id, scope: g.scope, createdUnix: g.createdUnix, app: { id: a.id, name: a.name, clientId: a.clientId } };
  });
}

/** Delete grants and their codes, in one transaction. */
export async function deleteGrants(ctx: DbContext, ids: number[]): Promise<void> {
  if (ids.length === 0) return;
  await withTx(ctx, async (tx) => {
    await deleteCodesOfGrants(tx, ids);
    await deleteGrantsByIds(tx, ids);
  });
}

/** Revoke one of `user`'s grants; false when the user has no such grant. */
export async function revokeGrant(ctx: DbContext, user: UserModel, grantId: number): Promise<boolean> {
  if (!Number.isSafeInteger(grantId) || grantId <= 0) return false;
  return withTx(ctx, async (tx) => {
    if (!(await deleteGrantRow(tx, grantId, user.id))) return false;
    await deleteCodesOfGrants(tx, [grantId]);
    return true;
  });
}

/** A deleted account's applications, and the grants given by it or to its applications (inside the deletion's transaction). */
export async function purgeOAuth2OfUser(tx: DbContext, userId: number): Promise<void> {
  const apps = await applicationIdsOf(tx, userId);
  const grants = await grantIdsWhere(tx, { applicationIds: apps, userId });
  await deleteCodesOfGrants(tx, grants);
  await deleteGrantsByIds(tx, grants);
  await deleteApplicationsOf(tx, userId);
}

/**
 * The `groups` claim (Gitea's GetOAuthGroupsForUser): each organization the user belongs to, and
 * `org:team` for each of its teams there; with `publicOnly`, public organizations only.
 */
export async function groupsOf(ctx: DbContext, userId: number, publicOnly: boolean): Promise<string[]> {
  const visibilities = publicOnly ? [Visibility.Public] : [Visibility.Public, Visibility.Limited, Visibility.Private];
  const { rows } = await listOrgsOfMember(ctx, userId, { publicMembershipOnly: false, visibilities }, 1000, 0);
  const groups: string[] = [];
  for (const org of rows) {
    groups.push(org.name);
    for (const team of (await teamsOfUserInOrg(ctx, org.id, userId)).sort((a, b) => a.lowerName.localeCompare(b.lowerName))) {
      groups.push(`${org.name}:${team.lowerName}`);
    }
  }
  return groups;
}
