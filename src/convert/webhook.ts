/** Webhooks -> Gitea's Hook JSON (the secret is never shown; the Authorization header is, as Gitea shows it). */
import type { Hook } from '../api/webhook';
import { HookContentType, type WebhookModel } from '../models/webhook.model';
import { unixTime } from './issue';

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
