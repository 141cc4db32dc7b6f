/** The payload of the `package` hook event (Gitea's PackagePayload): the version as the sender sees it, and, as Gitea, no repository. */
import { settings } from '../../config';
import type { DbContext } from '../../db';
import type { PackagePayload } from '../../api/webhook';
import { toPackage } from '../../convert/package';
import { toOrganization } from '../../convert/org';
import { UserType, type UserModel } from '../../models/user.model';
import type { PackageRef } from '../notify/notifier';
import { asUser } from '../auth/principal';
import { packageViews } from '../packages/view';
import { hookUser } from './parts';

/** Build the payload of `ref` published or deleted by `doer`. */
export async function packagePayload(ctx: DbContext, doer: UserModel, action: PackagePayload['action'], ref: PackageRef): Promise<PackagePayload> {
  const rootUrl = settings().server.rootUrl;
  const [view] = await packageViews(ctx, asUser(doer), ref.owner, [{ pkg: ref.pkg, version: ref.version }]);
  return {
    action, repository: null, package: toPackage(view, null, rootUrl),
    organization: ref.owner.type === UserType.Organization ? toOrganization(ref.owner, null, rootUrl) : null, sender: hookUser(doer),
  };
}
