/**
 * Emitting hook events (the outbox of webhooks): in the transaction of the change that causes an
 * event, the hooks that want it are found (the repository's, its owner's and the system's, each by
 * its events, its branch filter and Gitea's rule that only gitea and gogs hooks get pushes of no
 * commits), the payload is built once, and one hook task per hook is written. So a task exists
 * exactly when its change committed; the delivery workers of any node send it after the commit.
 */
import crypto from 'node:crypto';
import { settings } from '../../config';
import type { DbContext } from '../../db';
import type { HookPayload } from '../../api/webhook';
import type { WebhookModel } from '../../models/webhook.model';
import { insertHookTasks } from '../../models/hook-task.model';
import { notifyEnqueued } from '../../queue/outbox';
import { compileGlob, globMatches } from '../refs/pattern';
import { parseStoredEvents, wantsEvent, type HookEventType } from './events';

/** What narrows the hooks of an event beyond its type. */
export interface EventScope {
  /** The branch the event is about (a push's, a pull request's base): hooks with a branch filter must match it. */
  branch?: string;
  /** A push without commits (a tag, a deletion): only gitea and gogs hooks get it. */
  noCommits?: boolean;
}

/** Does a hook's branch filter let `branch` through (Gitea's checkBranch: empty and `*` let everything through)? */
function branchPasses(filter: string, branch: string): boolean {
  if (!filter || filter === '*') return true;
  try {
    return globMatches(compileGlob(filter), branch);
  } catch {
    return false;
  }
}

/** Of `hooks`, those that take an event of `type` in `scope`. */
export function selectHooks(hooks: WebhookModel[], type: HookEventType, scope: EventScope = {}): WebhookModel[] {
  return hooks.filter((h) => {
    const e = parseStoredEvents(h.events);
    if (!wantsEvent(e, type)) return false;
    if (scope.noCommits && h.type !== 'gitea' && h.type !== 'gogs') return false;
    return scope.branch === undefined || branchPasses(e.branch_filter, scope.branch);
  });
}

/** One event to queue: its payload for each of its hooks. */
export interface QueuedEvent { hooks: WebhookModel[]; type: HookEventType; payload: HookPayload }

/** Write one task per hook of each event (one insert for them all), in `tx`; this process's delivery workers are woken once it commits. */
export async function queueHookTasks(tx: DbContext, events: QueuedEvent[]): Promise<void> {
  // why: as Gitea, with webhooks disabled no task is created (admin hooks included).
  if (settings().security.disableWebhooks) return;
  const tasks = events.flatMap((e) => {
    if (e.hooks.length === 0) return [];
    // why: Gitea indents payloads with two spaces; receivers that compare bodies byte for byte see the same layout.
    const text = JSON.stringify(e.payload, null, 2);
    return e.hooks.map((h) => ({ hookId: h.id, uuid: crypto.randomUUID(), payloadContent: text, eventType: e.type }));
  });
  if (tasks.length === 0) return;
  await insertHookTasks(tx, tasks);
  if (tx.tx) tx.tx.afterCommit(() => notifyEnqueued());
  else notifyEnqueued();
}
