/**
 * The webhook form shared by the repository settings and the site administration: its fields as
 * the webhook service reads them, and a hook's current values to fill the form with.
 */
import type { CreateHookOption, Hook } from '../../api/webhook';
import { Validation } from '../../errors';
import { STORED_KEYS } from '../../services/webhook/events';

/** What `hooks/fields.eta` shows: a new hook's defaults, or a hook's values. */
export function hookFormValues(h?: Hook) {
  const all = !h || STORED_KEYS.every((k) => h.events.includes(k));
  return {
    url: h?.config.url ?? '', contentType: h?.config.content_type || 'json', branchFilter: h?.branch_filter || '*', active: h?.active ?? true,
    all, events: new Set(h?.events ?? []), keys: STORED_KEYS,
  };
}

/**
 * The hook the form asks for (a Gitea hook): "all events" names every event, "these events"
 * the ticked ones, and at least one. The secret (a new hook's only, as an edit keeps it) and the
 * authorization header are sent only when typed, so an edit that leaves the header empty keeps it.
 */
export function hookFormOption(b: Record<string, string>): Omit<CreateHookOption, 'type'> {
  const events: string[] = b.events === 'choose' ? STORED_KEYS.filter((e) => b[`event-${e}`] === 'on') : [...STORED_KEYS];
  // why: the API reads an empty list as "push only"; a form whose boxes are all unticked asked for nothing.
  if (!events.length) throw new Validation('Choose at least one event.');
  const config: Record<string, string> = { url: b.url ?? '', content_type: b.content_type ?? '' };
  if (b.secret) config.secret = b.secret;
  return { config, events, branch_filter: b.branch_filter ?? '', active: b.active === 'on', ...(b.authorization_header ? { authorization_header: b.authorization_header } : {}) };
}
