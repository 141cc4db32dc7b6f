/**
 * The Actions settings of each scope: a repository's (`/{owner}/{repo}/settings/actions`, its
 * owners as the API's runner and secret endpoints require), an organization's
 * (`/org/{org}/settings/actions`, its owners), the signed-in user's (`/user/settings/actions`) and
 * the site's runners (`/admin/actions/runners`, site administrators). Anyone else gets a 404 in the
 * site frame, as for the other settings pages.
 */
import express, { type Router } from 'express';
import { settings } from '../../config';
import { HttpError, NotFound } from '../../errors';
import { ctxOf } from '../../middleware/context';
import { orgActionsScope, repoActionsScope, userActionsScope } from '../../services/actions/settings.service';
import { actionsRoutes, type ActionsArea, type ActionsView } from './actions-settings';
import { renderPage } from './render';
import { repoHeader } from './repo';
import { pageRepo, repoHome, signedIn } from './route';

/** Run a permission check whose refusal (403) must read as a missing page (404), as Gitea's settings do. */
async function hidden<T>(check: () => T | Promise<T>): Promise<T> {
  try {
    return await check();
  } catch (err) {
    if (err instanceof HttpError && err.status === 403) throw new NotFound();
    throw err;
  }
}

const sub = (v: ActionsView) => (v === 'runner' ? 'runners' : v);

/** The repository, organization and user Actions settings routes. */
export function actionsSettingsPages(): Router {
  const r = express.Router();
  const root = () => new URL(settings().server.rootUrl).pathname;

  actionsRoutes(r, '/user/settings/actions', async (req, res) => {
    const user = signedIn(req, res);
    if (!user) return null;
    const base = `${root()}user/settings/actions`;
    return {
      scope: userActionsScope(user), base, settings: true,
      show: (view, title, data) => renderPage(req, res, 'user/settings/actions', title, { section: 'actions', actionsView: view, actionsSection: sub(view), ...data }),
    } satisfies ActionsArea;
  });

  actionsRoutes(r, '/org/:org/settings/actions', async (req, res) => {
    if (!signedIn(req, res)) return null;
    const name = String(req.params.org);
    const scope = await hidden(() => orgActionsScope(ctxOf(req), req.principal, name));
    const settingsBase = `${root()}org/${encodeURIComponent(name)}/settings`;
    return {
      scope, base: `${settingsBase}/actions`, settings: true,
      show: (view, title, data) => renderPage(req, res, 'org/settings/actions', `${title} - ${name}`, {
        org: { name, isMember: true, isOwner: true }, settingsBase, section: 'actions', actionsView: view, actionsSection: sub(view), ...data,
      }),
    } satisfies ActionsArea;
  });

  // why: the site's pages are Runners only, as this task's Gitea has them; its variables have no page yet.
  actionsRoutes(r, '/admin/actions', async (req, res) => {
    if (!signedIn(req, res)) return null;
    if (!req.web.principal.user?.isAdmin) throw new NotFound();
    return {
      scope: { ownerId: 0, repoId: 0 }, base: `${root()}admin/actions`, settings: false,
      show: (view, title, data) => renderPage(req, res, 'admin/actions', title, { section: 'runners', actionsView: view, actionsSection: sub(view), ...data }),
    } satisfies ActionsArea;
  });
  return r;
}

/** The repository Actions settings routes (mounted before the repository pages, whose `/:owner/:repo/*` would take them). */
export function repoActionsSettingsPages(): Router {
  const r = express.Router();
  actionsRoutes(r, '/:owner/:repo/settings/actions', async (req, res) => {
    if (!signedIn(req, res)) return null;
    const rc = await pageRepo(req);
    const scope = await hidden(() => repoActionsScope(rc));
    return {
      scope, repoOwnerId: rc.owner.id, base: `${repoHome(rc)}/settings/actions`, settings: true,
      show: async (view, title, data) => renderPage(req, res, 'repo/settings/actions', `${title} - ${rc.owner.name}/${rc.repo.name}`, {
        ...(await repoHeader(req, rc, 'settings')), section: 'actions', actionsView: view, actionsSection: sub(view), ...data,
      }),
    } satisfies ActionsArea;
  });
  return r;
}

