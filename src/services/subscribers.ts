/**
 * The notifier's subscribers, registered once per process at start-up (the web workers and the CLI
 * commands that change state), as Gitea registers its notifiers.
 * why: this file is the only place that knows them all; no service folder imports another's subscriber.
 */
import { registerSubscriber } from './notify/notifier';
import { webhookSubscriber } from './webhook/notifier';
import { actionsSubscriber } from './actions/notifier';
import { notificationSubscriber } from './notification/notifier';
import { activitySubscriber } from './activity/notifier';
import { pullSubscriber } from './pull/notifier';
import { issueSubscriber } from './issue/notifier';
import { mirrorSubscriber } from './mirror/notifier';
import { mailSubscriber } from './mail/notifier';
import { licenseSubscriber } from './license/notifier';

/** Register every subscriber with this process's notifier. */
export function registerSubscribers(): void {
  for (const s of [webhookSubscriber, actionsSubscriber, notificationSubscriber, activitySubscriber, pullSubscriber, issueSubscriber, mirrorSubscriber, mailSubscriber, licenseSubscriber]) registerSubscriber(s);
}
