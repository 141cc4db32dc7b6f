/**
 * The `package` hook event (Gitea's notifyPackage): a version published or deleted goes to the hooks
 * of the package's linked repository, of its owner and of the system.
 */
import type { DbContext } from '../../db';
import { settings } from '../../config';
import type { PackagePayload } from '../../api/webhook';
import type { UserModel } from '../../models/user.model';
import { hooksForEvent } from '../../models/webhook.model';
import type { PackageRef } from '../notify/notifier';
import { packagePayload } from '../payload/package';
import { queueHookTasks, selectHooks } from './emit';

/** Queue the package event of `ref` in `tx`. */
export async function emitPackageEvent(tx: DbContext, doer: UserModel, action: PackagePayload['action'], ref: PackageRef): Promise<void> {
  if (settings().security.disableWebhooks) return;
  // why: an unlinked package has no repository; -1 matches none, leaving the owner's and the system's hooks.
  const hooks = selectHooks(await hooksForEvent(tx, ref.repo?.id ?? -1, ref.owner.id), 'package');
  if (hooks.length) await queueHookTasks(tx, [{ hooks, type: 'package', payload: await packagePayload(tx, doer, action, ref) }]);
}
