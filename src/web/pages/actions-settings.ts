/**
 * The Actions settings pages every scope shares (Gitea's `shared/actions` and `shared/secrets`):
 * runners (the ones the scope can use with their status, labels, version and owner; the
 * registration token and its reset; a runner it owns edited or deleted), and, where the scope has
 * them, secrets (never shown, only replaced or deleted) and variables (added, edited, deleted).
 * Each scope (repository, organization, user, site) mounts these routes with an `ActionsArea` that
 * says who may use them; every form calls the service the API calls, so the same name rules and
 * refusals apply, shown as a flash with nothing changed.
 */
import type { Request, Response, Router } from 'express';
import { NotFound } from '../../errors';
import { ctxOf } from '../../middleware/context';
import { formBody } from '../../middleware/input-guard';
import type { ActionsScope } from '../../models/actions-scope';
import { deleteScopeRunner, registrationToken } from '../../services/actions/runner.service';
import { editRunnerDescription, listUsableRunners, ownedRunner, resetRegistrationToken } from '../../services/actions/runner-pages.service';
import { createVariable, deleteSecret, deleteVariable, listSecrets, listVariables, putSecret, updateVariable } from '../../services/actions/settings.service';
import { flashOutcome, requireCsrf } from './context';
import { page, pageNumber } from './route';

const RUNNERS_PER_PAGE = 50;

/** The sub-pages of the Actions settings. */
export type ActionsView = 'runners' | 'runner' | 'secrets' | 'variables';

/** Where a page's Actions settings live, once the caller is known to manage them. */
export interface ActionsArea {
  scope: ActionsScope;
  /** The owner of the repository, for a repository's scope (its runners are usable there too). */
  repoOwnerId?: number;
  /** The pages' base, `.../settings/actions`. */
  base: string;
  /** Whether the scope has secrets and variables pages (the site's has runners only). */
  settings: boolean;
  /** Render the area's frame around `view` with the data given. */
  show(view: ActionsView, title: string, data: Record<string, unknown>): Promise<void>;
}

/**
 * The Actions routes under `path` (`/:owner/:repo/settings/actions`, ...): `area` resolves the
 * caller's right to them (a 404 for anyone else; null after it answered, such as a redirect to sign in).
 */
export function actionsRoutes(r: Router, path: string, area: (req: Request, res: Response) => Promise<ActionsArea | null>): void {
  const csrf = requireCsrf();
  const runnerId = (req: Request) => {
    const id = Number(req.params.id);
    if (!Number.isInteger(id) || id < 1) throw new NotFound();
    return id;
  };
  /** An area that has secrets and variables (404 elsewhere). */
  const settingsArea = async (req: Request, res: Response) => {
    const a = await area(req, res);
    if (a && !a.settings) throw new NotFound();
    return a;
  };
  /** A form: run it in the area, flash the outcome, go back to `back`. */
  const action = (sub: string, find: typeof area, run: (req: Request, a: ActionsArea, b: Record<string, string>) => Promise<unknown>, done: (b: Record<string, string>) => string, back: (a: ActionsArea, req: Request) => string) => {
    r.post(`${path}${sub}`, ...formBody(), csrf, page(async (req, res) => {
      const a = await find(req, res);
      if (!a) return;
      const b = req.body as Record<string, string>;
      await flashOutcome(req, () => run(req, a, b), () => done(b));
      res.redirect(303, back(a, req));
    }));
  };

  r.get(`${path}/runners`, page(async (req, res) => {
    const a = await area(req, res);
    if (!a) return;
    const pageNo = pageNumber(req);
    const { rows, count } = await listUsableRunners(ctxOf(req), a.scope, { limit: RUNNERS_PER_PAGE, offset: (pageNo - 1) * RUNNERS_PER_PAGE }, a.repoOwnerId);
    await a.show('runners', 'Runners', {
      actionsBase: a.base, hasSettings: a.settings, runners: rows, token: await registrationToken(ctxOf(req), a.scope),
      pageNo, pages: Math.max(1, Math.ceil(count / RUNNERS_PER_PAGE)), total: count, q: '',
    });
  }));
  action('/runners/reset_registration_token', area, (req, a) => resetRegistrationToken(ctxOf(req), a.scope),
    () => 'The registration token has been reset; runners must register with the new one.', (a) => `${a.base}/runners`);
  r.get(`${path}/runners/:id`, page(async (req, res) => {
    const a = await area(req, res);
    if (!a) return;
    const runner = await ownedRunner(ctxOf(req), a.scope, runnerId(req));
    await a.show('runner', `Runner ${runner.name}`, { actionsBase: a.base, hasSettings: a.settings, runner });
  }));
  action('/runners/:id', area, (req, a, b) => editRunnerDescription(ctxOf(req), a.scope, runnerId(req), (b.description ?? '').trim()),
    () => 'The runner has been updated.', (a, req) => `${a.base}/runners/${runnerId(req)}`);
  action('/runners/:id/delete', area, (req, a) => deleteScopeRunner(ctxOf(req), a.scope, runnerId(req)),
    () => 'The runner has been deleted.', (a) => `${a.base}/runners`);

  r.get(`${path}/secrets`, page(async (req, res) => {
    const a = await settingsArea(req, res);
    if (!a) return;
    const { rows } = await listSecrets(ctxOf(req), a.scope);
    const secrets = rows.map((s) => ({ name: s.name, description: s.description, created: new Date(Number(s.createdUnix) * 1000) }));
    await a.show('secrets', 'Secrets', { actionsBase: a.base, hasSettings: true, secrets });
  }));
  // why: as Gitea's form and the API's PUT, adding a secret whose name exists replaces its value.
  action('/secrets', settingsArea, (req, a, b) => putSecret(ctxOf(req), a.scope, (b.name ?? '').trim(), { data: b.data ?? '', description: b.description ?? '' }),
    (b) => `The secret "${(b.name ?? '').trim().toUpperCase()}" has been saved.`, (a) => `${a.base}/secrets`);
  action('/secrets/delete', settingsArea, (req, a, b) => deleteSecret(ctxOf(req), a.scope, b.name ?? ''),
    () => 'The secret has been deleted.', (a) => `${a.base}/secrets`);

  r.get(`${path}/variables`, page(async (req, res) => {
    const a = await settingsArea(req, res);
    if (!a) return;
    const { rows } = await listVariables(ctxOf(req), a.scope);
    const variables = rows.map((v) => ({ name: v.name, value: v.data, description: v.description, created: new Date(Number(v.createdUnix) * 1000) }));
    await a.show('variables', 'Variables', { actionsBase: a.base, hasSettings: true, variables });
  }));
  action('/variables/new', settingsArea, (req, a, b) => createVariable(ctxOf(req), a.scope, (b.name ?? '').trim(), { value: b.data ?? '', description: b.description ?? '' }),
    (b) => `The variable "${(b.name ?? '').trim().toUpperCase()}" has been added.`, (a) => `${a.base}/variables`);
  action('/variables/:name/edit', settingsArea, (req, a, b) => updateVariable(ctxOf(req), a.scope, String(req.params.name), { name: (b.name ?? '').trim(), value: b.data ?? '', description: b.description ?? '' }),
    () => 'The variable has been saved.', (a) => `${a.base}/variables`);
  action('/variables/:name/delete', settingsArea, (req, a) => deleteVariable(ctxOf(req), a.scope, String(req.params.name)),
    () => 'The variable has been deleted.', (a) => `${a.base}/variables`);
}
