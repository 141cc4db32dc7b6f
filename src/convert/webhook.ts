/** Webhooks -> Gitea's Hook JSON (the secret is never shown; the Authorization header is, as Gitea shows it). */
import type { Hook, HookDelivery } from '../api/webhook';
import type { HookTaskModel } from '../models/hook-task.model';
import { HookContentType, type WebhookModel } from '../models/webhook.model';
import { unixTime } from './issue';
import { isoTime } from './time';

/** A hook with what its JSON shows besides its row (services/webhook/hook.service hookView). */
export interface HookViewLike { row: WebhookModel; events: string[]; branchFilter: string; authorizationHeader: string }

/** A hook. */
export function toHook(v: HookViewLike): Hook {
  const h = v.row;
  const config: Record<string, string> = {
    url: h.url, content_type: h.contentType === HookContentType.Json ? 'json' : h.contentType === HookContentType.Form ? 'form' : '',
  };
  if (h.type === 'slack' && h.meta) {
    const m = JSON.parse(h.meta) as Record<string, string>;
    for (const k of ['channel', 'username', 'icon_url', 'color']) config[k] = m[k] ?? '';
  }
  return {
    id: h.id, type: h.type, branch_filter: v.branchFilter, config, events: v.events, authorization_header: v.authorizationHeader,
    active: Boolean(h.isActive), updated_at: unixTime(Number(h.updatedUnix)), created_at: unixTime(Number(h.createdUnix)),
  };
}

function parsed<T>(text: string): T | null {
  try {
    return text ? (JSON.parse(text) as T) : null;
  } catch {
    return null;
  }
}

/** The request of a delivery: a JSON hook's body is its payload, not kept twice. */
function requestOf(t: HookTaskModel): HookDelivery['request'] {
  const r = parsed<NonNullable<HookDelivery['request']>>(t.requestContent);
  return r ? { ...r, body: r.body ?? t.payloadContent } : null;
}

/** A delivery with its request and response. */
export function toHookDelivery(t: HookTaskModel): HookDelivery {
  return {
    id: Number(t.id), uuid: t.uuid, event: t.eventType, status: t.status, is_succeed: Boolean(t.isSucceed), attempts: t.attempts,
    delivered_at: isoTime(new Date(Math.floor(Number(t.delivered) / 1e6))),
    next_attempt_at: t.status === 'pending' ? isoTime(new Date(Number(t.nextAttemptMs))) : null,
    request: requestOf(t), response: parsed(t.responseContent),
  };
}
