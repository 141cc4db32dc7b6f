/**
 * OAuth2 applications in the browser (Gitea's applications_oauth2*.tmpl): a user's own under
 * `/user/settings/applications` (listed on the applications page with the grants the user gave,
 * each with Revoke), the site's (owner 0) under `/admin/applications` for site administrators.
 * Create, edit (name, redirect URIs, confidential client, skip secondary authorization),
 * regenerate the secret (shown once, in the flash) and delete, through the same service as the API.
 */
import express, { type Request, type Response, type Router } from 'express';
import { settings } from '../../config';
import { HttpError, NotFound } from '../../errors';
import { toOAuth2Application } from '../../convert/oauth2';
import { ctxOf, doerOf } from '../../middleware/context';
import { formBody } from '../../middleware/input-guard';
import {
  applicationsOf, createApplication, deleteApplication, editApplication, ownedApplication, regenerateSecret, type ApplicationInput,
} from '../../services/oauth2/application.service';
import { revokeGrant } from '../../services/oauth2/grant.service';
import { siteAdmin } from './admin';
import { flash, flashOutcome, requireCsrf, saveIfDirty } from './context';
import { renderPage } from './render';
import { page, signedIn } from './route';

/** Where an owner's applications are managed: the user's own, or the site's. */
interface Place { base: string; owner(req: Request, res: Response): number | null; admin: boolean }

const USER: Place = { base: 'user/settings/applications', owner: (req, res) => signedIn(req, res)?.id ?? null, admin: false };
const SITE: Place = { base: 'admin/applications', owner: (req, res) => (siteAdmin(req, res) ? 0 : null), admin: true };

/** The form's fields as the service reads them (one redirect URI per line; checkboxes are `on`). */
function inputOf(body: Record<string, string>): ApplicationInput {
  return {
    name: body.application_name ?? '',
    redirect_uris: (body.redirect_uris ?? '').split(/\r?\n/).map((u) => u.trim()).filter(Boolean),
    confidential_client: body.confidential_client === 'on',
    skip_secondary_authorization: body.skip_secondary_authorization === 'on',
  };
}

const secretText = (name: string, secret: string) => `The client secret of "${name}" is ${secret}. Copy it now: it will not be shown again.`;

/** The rows the list shows of an owner's applications. */
export async function applicationRows(req: Request, ownerUid: number): Promise<ReturnType<typeof toOAuth2Application>[]> {
  return (await applicationsOf(ctxOf(req), ownerUid, 1000, 0)).rows.map((a) => toOAuth2Application(a));
}

function routes(r: Router, place: Place): void {
  const csrf = requireCsrf();
  const root = () => settings().server.rootUrl;
  const editPath = (id: number) => `${root()}${place.base}/oauth2/${id}`;
  const idOf = (req: Request) => Number(req.params.id);

  r.post(`/${place.base}/oauth2`, ...formBody(), csrf, page(async (req, res) => {
    const uid = place.owner(req, res);
    if (uid === null) return;
    try {
      const { app, secret } = await createApplication(ctxOf(req), uid, inputOf(req.body as Record<string, string>));
      flash(req, 'success', secretText(app.name, secret));
      await saveIfDirty(req);
      // why: as Gitea, a new application opens on its edit page, which shows its client id.
      res.redirect(303, editPath(app.id));
    } catch (err) {
      if (!(err instanceof HttpError) || err.status >= 500) throw err;
      flash(req, 'error', err.message);
      await saveIfDirty(req);
      res.redirect(303, `${root()}${place.base}`);
    }
  }));

  r.get(`/${place.base}/oauth2/:id`, page(async (req, res) => {
    const uid = place.owner(req, res);
    if (uid === null) return;
    const app = await ownedApplication(ctxOf(req), uid, idOf(req));
    await renderPage(req, res, 'user/settings/oauth2_edit', 'Applications', {
      app: toOAuth2Application(app), base: place.base, admin: place.admin, section: 'applications',
    });
  }));

  r.post(`/${place.base}/oauth2/:id`, ...formBody(), csrf, page(async (req, res) => {
    const uid = place.owner(req, res);
    if (uid === null) return;
    await flashOutcome(req, () => editApplication(ctxOf(req), uid, idOf(req), inputOf(req.body as Record<string, string>), false),
      ({ app }) => `The application "${app.name}" has been updated.`);
    res.redirect(303, editPath(idOf(req)));
  }));

  r.post(`/${place.base}/oauth2/:id/regenerate_secret`, ...formBody(), csrf, page(async (req, res) => {
    const uid = place.owner(req, res);
    if (uid === null) return;
    await flashOutcome(req, () => regenerateSecret(ctxOf(req), uid, idOf(req)), ({ app, secret }) => secretText(app.name, secret));
    res.redirect(303, editPath(idOf(req)));
  }));

  r.post(`/${place.base}/oauth2/:id/delete`, ...formBody(), csrf, page(async (req, res) => {
    const uid = place.owner(req, res);
    if (uid === null) return;
    await deleteApplication(ctxOf(req), uid, idOf(req));
    flash(req, 'success', 'The application has been deleted; the tokens it was given no longer work.');
    await saveIfDirty(req);
    res.redirect(303, `${root()}${place.base}`);
  }));
}

/** The OAuth2 application routes of users and of the site, and revoking a grant. */
export function oauth2AppPages(): Router {
  const r = express.Router();
  routes(r, USER);
  routes(r, SITE);

  r.get('/admin/applications', page(async (req, res) => {
    if (!siteAdmin(req, res)) return;
    await renderPage(req, res, 'admin/applications', 'Applications', { section: 'applications', apps: await applicationRows(req, 0), base: SITE.base });
  }));

  // Gitea's path: the grant's application in the path too, as its page links it.
  r.post('/user/settings/applications/oauth2/:id/revoke/:grantId', ...formBody(), requireCsrf(), page(async (req, res) => {
    if (!signedIn(req, res)) return;
    if (!(await revokeGrant(ctxOf(req), doerOf(req), Number(req.params.grantId)))) throw new NotFound('OAuth2 grant does not exist');
    flash(req, 'success', 'The application\'s access has been revoked; its tokens no longer work.');
    await saveIfDirty(req);
    res.redirect(303, `${settings().server.rootUrl}user/settings/applications`);
  }));
  return r;
}
