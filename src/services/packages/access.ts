/**
 * Who may read and write an owner's packages (Gitea's determineAccessMode and reqPackageAccess).
 * A user owns theirs; others read them when they may see the user. In an organization, the
 * caller's teams decide (their mode, else their Packages unit), and anyone who may see the
 * organization reads. Site administrators may do everything. A token needs `read:package` or
 * `write:package`; a public-only token reaches public owners only. The linked repository grants
 * nothing.
 *
 * The registries (`/api/packages`) refuse with Gitea's 401 and its Basic challenge, which package
 * clients answer with credentials; the JSON API (`/api/v1/packages`) with 403.
 */
import type { DbContext } from '../../db';
import { settings } from '../../config';
import { Forbidden, HttpError } from '../../errors';
import { AccessMode, UnitType } from '../../models/perm';
import { orgPackageModes } from '../../models/access';
import { UserType, Visibility, type UserModel } from '../../models/user.model';
import type { Principal } from '../auth/principal';
import { hasScope, ScopeLevel } from '../auth/scope';
import { canSeeOwner } from '../perm/permission';

/** The challenge package clients answer with credentials. */
export const PACKAGE_CHALLENGE = { 'WWW-Authenticate': 'Basic realm="Gitea Package API"' };

/** The caller's mode on `owner`'s packages. */
export async function packageAccessMode(ctx: DbContext, p: Principal, owner: UserModel): Promise<AccessMode> {
  const u = p.user;
  if (!u && settings().service.requireSigninView) return AccessMode.None;
  if (u?.isAdmin && !p.scopes?.publicOnly) return AccessMode.Owner;
  if (u && u.id === owner.id) return AccessMode.Owner;
  let mode = AccessMode.None;
  if (u && owner.type === UserType.Organization && !p.actionsTask) {
    const { team, unit } = await orgPackageModes(ctx, owner.id, u.id, UnitType.Packages);
    mode = team >= AccessMode.Write ? team : Math.max(team, unit);
  }
  if (mode === AccessMode.None && (await canSeeOwner(ctx, p, owner))) mode = AccessMode.Read;
  return mode;
}

/** A refusal of the registries: Gitea's 401 with the Basic challenge. */
export class PackageAccessDenied extends HttpError {
  constructor() {
    super(401, 'user should have specific permission or be a site admin', PACKAGE_CHALLENGE);
  }
}

/**
 * Throw unless the caller may read (`need` Read) or write `owner`'s packages; `api` picks the JSON
 * API's 403 over the registries' 401.
 */
export async function assertPackageAccess(ctx: DbContext, p: Principal, owner: UserModel, need: AccessMode.Read | AccessMode.Write, api = false): Promise<void> {
  const refuse = () => (api ? new Forbidden('user should have specific permission or be a site admin') : new PackageAccessDenied());
  if (p.scopes) {
    if (!hasScope(p.scopes, 'package', need === AccessMode.Write ? ScopeLevel.Write : ScopeLevel.Read)) throw refuse();
    if (p.scopes.publicOnly && owner.visibility !== Visibility.Public) throw new Forbidden('token scope is limited to public packages');
  }
  if ((await packageAccessMode(ctx, p, owner)) < need) throw refuse();
}
