/**
 * Webhook pages shared by the repository settings, the organization settings and the site
 * administration: the hook form's fields as the webhook service reads them, and (for repositories
 * and organizations) the list, new and edit pages with the delivery history, a redelivery and,
 * where there is one, a test delivery.
 */
import type { Request, Response, Router } from 'express';
import type { CreateHookOption, Hook } from '../../api/webhook';
import { Validation } from '../../errors';
import { toHook, toHookDelivery } from '../../convert/webhook';
import { ctxOf } from '../../middleware/context';
import { formBody } from '../../middleware/input-guard';
import type { WebhookModel } from '../../models/webhook.model';
import { STORED_KEYS } from '../../services/webhook/events';
import { createHook, editHook, getHook, hookView, listDeliveries, listHooks, removeHook, replayDelivery, type HookPlace } from '../../services/webhook/hook.service';
import { flashOutcome, requireCsrf } from './context';
import { page, pageNumber } from './route';

const DELIVERIES_PER_PAGE = 20;

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

/** Where a page's hooks live, once the caller is known to manage them. */
export interface HookArea {
  place: HookPlace;
  /** The hooks' pages, `.../settings/hooks`. */
  base: string;
  /** Render `view` (`hooks` or `hook`) of this area with the data given. */
  show(view: 'hooks' | 'hook', title: string, data: Record<string, unknown>): Promise<void>;
  /** Send a test delivery of the hook (repositories have one). */
  test?(hook: WebhookModel): Promise<unknown>;
}

/**
 * The webhook routes under `path` (`/:owner/:repo/settings/hooks`, ...): `area` resolves the
 * caller's right to them (null after it answered, such as a redirect to sign in).
 */
export function hookRoutes(r: Router, path: string, area: (req: Request, res: Response) => Promise<HookArea | null>): void {
  const csrf = requireCsrf();
  const id = (req: Request) => Number(req.params.id) || 0;
  r.get(path, page(async (req, res) => {
    const a = await area(req, res);
    if (!a) return;
    const { rows } = await listHooks(ctxOf(req), a.place, { limit: 100, offset: 0 });
    await a.show('hooks', 'Webhooks', { section: 'hooks', hookBase: a.base, hooks: rows.map((row) => toHook(hookView(row))) });
  }));
  r.get(`${path}/new`, page(async (req, res) => {
    const a = await area(req, res);
    if (a) await a.show('hook', 'New webhook', { section: 'hooks', hookBase: a.base, hook: hookFormValues(), id: 0, deliveries: [], editing: false, testable: false });
  }));
  r.get(`${path}/:id`, page(async (req, res) => {
    const a = await area(req, res);
    if (!a) return;
    const hook = toHook(hookView(await getHook(ctxOf(req), a.place, id(req))));
    const pageNo = pageNumber(req);
    const { rows, count } = await listDeliveries(ctxOf(req), a.place, id(req), { limit: DELIVERIES_PER_PAGE, offset: (pageNo - 1) * DELIVERIES_PER_PAGE });
    await a.show('hook', 'Webhook', {
      section: 'hooks', hookBase: a.base, hook: hookFormValues(hook), id: id(req), editing: true, testable: !!a.test,
      deliveries: rows.map(toHookDelivery), pageNo, pages: Math.max(1, Math.ceil(count / DELIVERIES_PER_PAGE)),
    });
  }));
  /** A hook form: run it, flash the outcome, go back to the list or the hook's page. */
  const action = (sub: string, run: (req: Request, a: HookArea, b: Record<string, string>) => Promise<unknown>, done: string, toHookPage: boolean) => {
    r.post(`${path}${sub}`, ...formBody(), csrf, page(async (req, res) => {
      const a = await area(req, res);
      if (!a) return;
      await flashOutcome(req, () => run(req, a, req.body as Record<string, string>), () => done);
      res.redirect(303, toHookPage ? `${a.base}/${id(req)}` : a.base);
    }));
  };
  action('/new', (req, a, b) => createHook(ctxOf(req), a.place, { ...hookFormOption(b), type: 'gitea' }), 'The webhook is added.', false);
  action('/:id', (req, a, b) => editHook(ctxOf(req), a.place, id(req), hookFormOption(b)), 'The webhook is saved.', true);
  action('/:id/delete', (req, a) => removeHook(ctxOf(req), a.place, id(req)), 'The webhook is deleted.', false);
  action('/:id/replay/:uuid', (req, a) => replayDelivery(ctxOf(req), a.place, id(req), String(req.params.uuid)), 'The delivery is queued again.', true);
  action('/:id/test', async (req, a) => {
    if (!a.test) throw new Validation('this webhook has no test delivery');
    return a.test(await getHook(ctxOf(req), a.place, id(req)));
  }, 'A test delivery is queued.', true);
}
