/**
 * Which events a hook wants (Gitea's HookEvent, stored as JSON in webhook.events): the API's event
 * names to the stored map, the stored map back to the API's list, and whether a hook wants an
 * event of a given type. The names and their families are Gitea's (modules/webhook/type.go,
 * routers/api/v1/utils/hook.go).
 */

/** Every event type a hook can be sent, in Gitea's order (AllEvents: what send_everything means). */
export const ALL_EVENT_TYPES = [
  'create', 'delete', 'fork', 'push', 'issues', 'issue_assign', 'issue_label', 'issue_milestone', 'issue_comment',
  'pull_request', 'pull_request_assign', 'pull_request_label', 'pull_request_milestone', 'pull_request_comment',
  'pull_request_review_approved', 'pull_request_review_rejected', 'pull_request_review_comment', 'pull_request_sync',
  'pull_request_review_request', 'wiki', 'repository', 'release', 'package', 'status', 'workflow_run', 'workflow_job',
] as const;

/** An event type a hook can be sent. */
export type HookEventType = (typeof ALL_EVENT_TYPES)[number];

/** The keys of the stored events map, each true or false (the three review events share pull_request_review); a hook form offers these. */
export const STORED_KEYS = [
  'create', 'delete', 'fork', 'push', 'issues', 'issue_assign', 'issue_label', 'issue_milestone', 'issue_comment',
  'pull_request', 'pull_request_assign', 'pull_request_label', 'pull_request_milestone', 'pull_request_comment',
  'pull_request_review', 'pull_request_sync', 'pull_request_review_request', 'wiki', 'repository', 'release', 'package',
  'status', 'workflow_run', 'workflow_job',
] as const;

/** The family a name of the API also turns on: `issues` turns on every issue event, `pull_request` every pull request one. */
const FAMILY: Record<string, string> = {
  issue_assign: 'issues', issue_label: 'issues', issue_milestone: 'issues', issue_comment: 'issues',
  pull_request_assign: 'pull_request', pull_request_label: 'pull_request', pull_request_milestone: 'pull_request',
  pull_request_comment: 'pull_request', pull_request_review: 'pull_request', pull_request_review_request: 'pull_request',
  pull_request_sync: 'pull_request',
};

/** Gitea's stored HookEvent. */
export interface StoredHookEvents {
  push_only: boolean; send_everything: boolean; choose_events: boolean; branch_filter: string; events: Record<string, boolean>;
}

/**
 * The stored events of an API `events` list (Gitea's updateHookEvents): case-insensitive, unknown
 * names ignored, an empty list meaning push only; `issues_only`/`pull_request_only` turn on the base
 * event alone.
 */
export function storedEvents(names: string[] | undefined, branchFilter: string): StoredHookEvents {
  const asked = new Set((names ?? []).filter((n) => typeof n === 'string').map((n) => n.toLowerCase()));
  if (asked.size === 0) asked.add('push');
  const on = (key: string): boolean => {
    if (key === 'issues') return asked.has('issues') || asked.has('issues_only');
    if (key === 'pull_request') return asked.has('pull_request') || asked.has('pull_request_only');
    return asked.has(key) || (FAMILY[key] !== undefined && asked.has(FAMILY[key]));
  };
  return { push_only: false, send_everything: false, choose_events: true, branch_filter: branchFilter, events: Object.fromEntries(STORED_KEYS.map((k) => [k, on(k)])) };
}

/** Parse a stored events column; a damaged or empty one means push only. */
export function parseStoredEvents(text: string): StoredHookEvents {
  try {
    const v = JSON.parse(text) as Partial<StoredHookEvents>;
    return { push_only: !!v.push_only, send_everything: !!v.send_everything, choose_events: !!v.choose_events, branch_filter: v.branch_filter ?? '', events: v.events ?? {} };
  } catch {
    return { push_only: true, send_everything: false, choose_events: false, branch_filter: '', events: {} };
  }
}

/** The API's `events` list of a stored map (in the stored keys' order, where Gitea's is random). */
export function eventNames(e: StoredHookEvents): string[] {
  if (e.send_everything) return [...ALL_EVENT_TYPES];
  if (e.push_only) return ['push'];
  return STORED_KEYS.filter((k) => e.events[k]);
}

/** Does a hook with these stored events want an event of `type` (Gitea's HasEvent)? */
export function wantsEvent(e: StoredHookEvents, type: HookEventType): boolean {
  if (e.send_everything) return true;
  if (e.push_only) return type === 'push';
  const key = type.startsWith('pull_request_review_') && type !== 'pull_request_review_request' ? 'pull_request_review' : type;
  return !!e.events[key];
}
