/**
 * Webhooks of a repository, of a user or organization, and of the instance (system hooks, fired
 * for every repository, and default hooks, copied into new repositories): list, get, create, edit,
 * delete, with Gitea's checks and messages. Beyond Gitea, as the issue asks, the target URL is
 * checked against `[webhook] ALLOWED_HOST_LIST` when it is saved (it is checked again when a
 * delivery connects), and unknown event names are refused instead of dropped.
 */
import crypto from 'node:crypto';
import dns from 'node:dns/promises';
import net from 'node:net';
import { settings } from '../../config';
import { withTx, type DbContext } from '../../db';
import { Forbidden, NotFound, Validation, HttpError } from '../../errors';
import type { CreateHookOption, EditHookOption } from '../../api/webhook';
import {
  deleteWebhook, findWebhook, insertWebhook, listInstanceWebhooks, listWebhooks, saveWebhook, HookContentType, type HookScope, type WebhookModel,
} from '../../models/webhook.model';
import { AccessMode } from '../../models/perm';
import { findHookTask, insertHookTasks, listHookTasks, type HookTaskModel } from '../../models/hook-task.model';
import { notifyEnqueued } from '../../queue/outbox';
import type { Principal } from '../auth/principal';
import { assertOrgOwner, resolveOrg } from '../org/guard';
import type { RepoContext } from '../repo/context';
import { compileGlob } from '../refs/pattern';
import { eventNames, parseStoredEvents, storedEvents } from './events';
import { hostAllowed, parseHostList } from '../net/host-matcher';
import { open, seal } from '../auth/secret-box';

/** The hook types Gitea knows (modules/webhook/type.go). */
export const HOOK_TYPES = ['gitea', 'gogs', 'slack', 'discord', 'dingtalk', 'telegram', 'msteams', 'feishu', 'matrix', 'wechatwork', 'packagist'];

/** Where hooks live: a repository's, an owner's (user or organization), or the instance's. */
export type HookPlace = { repoId: number } | { ownerId: number } | 'instance';

/** The longest secret a hook may have, in bytes. */
const MAX_SECRET_BYTES = 4096;

/** The names `events` may hold: the stored keys and the `_only` forms (case-insensitive). */
const EVENT_NAMES = new Set([
  'create', 'delete', 'fork', 'push', 'issues', 'issues_only', 'issue_assign', 'issue_label', 'issue_milestone', 'issue_comment',
  'pull_request', 'pull_request_only', 'pull_request_assign', 'pull_request_label', 'pull_request_milestone', 'pull_request_comment',
  'pull_request_review', 'pull_request_sync', 'pull_request_review_request', 'wiki', 'repository', 'release', 'package', 'status', 'workflow_run', 'workflow_job',
]);

/** 403 when the administrator turned webhooks off (admin hooks stay manageable, as Gitea). */
export function assertWebhooksEnabled(place: HookPlace): void {
  if (place !== 'instance' && settings().security.disableWebhooks) throw new Forbidden('webhooks disabled by administrator');
}

const DENY = (host: string) => `webhook can only call allowed HTTP servers (check your webhook.ALLOWED_HOST_LIST setting), deny '${host}'`;

/** A target URL: http or https with a host, and every address it names allowed by the host list; 422 otherwise. */
async function assertTargetUrl(raw: string): Promise<void> {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new Validation('Invalid url');
  }
  if ((u.protocol !== 'http:' && u.protocol !== 'https:') || !u.hostname) throw new Validation('Invalid url');
  const host = u.hostname.replace(/^\[(.*)\]$/, '$1');
  const list = parseHostList(settings().webhook.allowedHostList);
  if (hostAllowed(list, host, null)) return;
  const addresses = net.isIP(host) ? [host] : (await dns.lookup(host, { all: true, verbatim: true }).catch(() => [])).map((a) => a.address);
  if (addresses.length === 0 || !addresses.every((ip) => hostAllowed(list, host, ip))) throw new Validation(DENY(u.host));
}

/** The content type of `config.content_type`; 422 when it is neither json nor form. */
function contentTypeOf(v: string): HookContentType {
  if (v === 'json') return HookContentType.Json;
  if (v === 'form') return HookContentType.Form;
  throw new Validation('Invalid content type');
}

/** The event names, lower-cased; 422 naming one that is not an event. */
function eventList(events: unknown): string[] | undefined {
  if (events === undefined || events === null) return undefined;
  if (!Array.isArray(events)) throw new Validation('[Events]: must be a list of event names');
  const names = events.map((e) => String(e).toLowerCase());
  const unknown = names.find((n) => !EVENT_NAMES.has(n));
  if (unknown !== undefined) throw new Validation(`[Events]: unknown event ${JSON.stringify(unknown)}`);
  return names;
}

/** A branch filter (a glob, as Gitea's gobwas glob: no separators); 422 when it does not compile. */
function branchFilter(v: string | undefined): string {
  const f = (v ?? '').trim();
  try {
    if (f) compileGlob(f);
  } catch (err) {
    throw new Validation(`[BranchFilter]: ${(err as Error).message}`);
  }
  return f;
}

/** A Slack hook's meta from its config: the channel is required and must look like one. */
function slackMeta(config: Record<string, string>, strict: boolean): string {
  const channel = (config.channel ?? '').trim();
  if (strict && config.channel === undefined) throw new Validation('Missing config option: channel');
  if (strict && !/^#?[a-z0-9_-]{1,80}$/.test(channel)) throw new HttpError(400, 'Invalid slack channel name');
  return JSON.stringify({ channel, username: config.username ?? '', icon_url: config.icon_url ?? '', color: config.color ?? '' });
}

function scopeOf(place: HookPlace): HookScope | 'instance' {
  return place === 'instance' ? 'instance' : place;
}

/** The hooks of a place, one page; at the instance, system (`kind` system, the default), default or all hooks. */
export async function listHooks(ctx: DbContext, place: HookPlace, page: { limit: number; offset: number }, kind = 'system'): Promise<{ rows: WebhookModel[]; count: number }> {
  assertWebhooksEnabled(place);
  if (place !== 'instance') return listWebhooks(ctx, place, page.limit, page.offset);
  if (kind === 'all') return listInstanceWebhooks(ctx, page.limit, page.offset);
  return listWebhooks(ctx, { system: kind !== 'default' }, page.limit, page.offset);
}

/** One hook of a place; 404 otherwise. */
export async function getHook(ctx: DbContext, place: HookPlace, id: number): Promise<WebhookModel> {
  assertWebhooksEnabled(place);
  const hook = await findWebhook(ctx, scopeOf(place), id);
  if (!hook) throw new NotFound();
  return hook;
}

/** Create a hook (201), checked in Gitea's order. */
export async function createHook(ctx: DbContext, place: HookPlace, o: CreateHookOption): Promise<WebhookModel> {
  assertWebhooksEnabled(place);
  const type = typeof o?.type === 'string' ? o.type.trim() : '';
  if (!HOOK_TYPES.includes(type)) throw new Validation(`Invalid hook type: ${o?.type ?? ''}`);
  const config = o.config ?? {};
  for (const key of ['url', 'content_type']) if (typeof config[key] !== 'string') throw new Validation(`Missing config option: ${key}`);
  const contentType = contentTypeOf(config.content_type);
  await assertTargetUrl(config.url);
  const system = config.is_system_webhook;
  if (system !== undefined && !/^(1|t|T|TRUE|true|True|0|f|F|FALSE|false|False)$/.test(system)) throw new Validation('Invalid is_system_webhook value');
  const secret = config.secret ?? '';
  if (Buffer.byteLength(secret) > MAX_SECRET_BYTES) throw new Validation(`[Config.secret]: longer than ${MAX_SECRET_BYTES} bytes`);
  const events = storedEvents(eventList(o.events), branchFilter(o.branch_filter));
  const meta = type === 'slack' ? slackMeta(config, true) : '';
  const at = place === 'instance' ? {} : place;
  return withTx(ctx, (tx) => insertWebhook(tx, {
    ...at, isSystemWebhook: system !== undefined && /^(1|t|true)$/i.test(system), url: config.url, httpMethod: 'POST', contentType, secret,
    events: JSON.stringify(events), isActive: o.active === true, type, meta, headerAuthorizationEncrypted: seal(o.authorization_header ?? ''),
  }));
}

/** Change a hook: what the body names, nothing else (Gitea resets omitted events, filter and header; a PATCH here does not). */
export async function editHook(ctx: DbContext, place: HookPlace, id: number, o: EditHookOption): Promise<WebhookModel> {
  const hook = await getHook(ctx, place, id);
  const config = o?.config ?? {};
  if (config.url !== undefined) await assertTargetUrl(config.url);
  const contentType = config.content_type !== undefined ? contentTypeOf(config.content_type) : hook.contentType;
  const names = eventList(o?.events);
  const events = parseStoredEvents(hook.events);
  const filter = o?.branch_filter !== undefined ? branchFilter(o.branch_filter) : events.branch_filter;
  const nextEvents = names !== undefined ? storedEvents(names, filter) : { ...events, branch_filter: filter };
  if (config.url !== undefined) hook.url = config.url;
  hook.contentType = contentType;
  hook.events = JSON.stringify(nextEvents);
  if (hook.type === 'slack' && config.channel !== undefined) hook.meta = slackMeta(config, false);
  if (o?.authorization_header !== undefined) hook.headerAuthorizationEncrypted = seal(o.authorization_header);
  if (typeof o?.active === 'boolean') hook.isActive = o.active;
  await withTx(ctx, (tx) => saveWebhook(tx, hook));
  return hook;
}

/** Delete a hook with its deliveries (204). */
export async function removeHook(ctx: DbContext, place: HookPlace, id: number): Promise<void> {
  const hook = await getHook(ctx, place, id);
  await withTx(ctx, (tx) => deleteWebhook(tx, hook.id));
}

/** A hook with its events, branch filter and Authorization header read out, for the converter. */
export function hookView(row: WebhookModel): { row: WebhookModel; events: string[]; branchFilter: string; authorizationHeader: string } {
  const e = parseStoredEvents(row.events);
  return { row, events: eventNames(e), branchFilter: e.branch_filter, authorizationHeader: open(row.headerAuthorizationEncrypted) };
}

/** The hooks of a repository, for its admins (Gitea's reqAdmin). */
export function repoHookPlace(rc: RepoContext): HookPlace {
  if (rc.perm.mode < AccessMode.Admin) throw new Forbidden('user should be an owner or a collaborator with admin write of a repository');
  return { repoId: rc.repo.id };
}

/** The hooks of an organization, for its owners. */
export async function orgHookPlace(ctx: DbContext, p: Principal, name: string): Promise<HookPlace> {
  const org = await resolveOrg(ctx, p, name);
  await assertOrgOwner(ctx, p, org);
  return { ownerId: org.id };
}

/** A hook's deliveries, newest first, one page (the history Gitea shows on a hook's page). */
export async function listDeliveries(ctx: DbContext, place: HookPlace, id: number, page: { limit: number; offset: number }): Promise<{ rows: HookTaskModel[]; count: number }> {
  const hook = await getHook(ctx, place, id);
  return listHookTasks(ctx, hook.id, page.limit, page.offset);
}

/** Send a delivery again, as Gitea's replay: a new task (a new UUID) with the same payload, sent with the hook's current settings. */
export async function replayDelivery(ctx: DbContext, place: HookPlace, id: number, uuid: string): Promise<HookTaskModel> {
  const hook = await getHook(ctx, place, id);
  const task = await findHookTask(ctx, hook.id, uuid);
  if (!task) throw new NotFound(`hook task does not exist [hook_id: ${hook.id}, uuid: ${uuid}]`);
  const fresh = crypto.randomUUID();
  await withTx(ctx, (tx) => insertHookTasks(tx, [{ hookId: hook.id, uuid: fresh, payloadContent: task.payloadContent, eventType: task.eventType }]));
  notifyEnqueued();
  return (await findHookTask(ctx, hook.id, fresh))!;
}
