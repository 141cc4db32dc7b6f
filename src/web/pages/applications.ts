/**
 * The user's access tokens (`/user/settings/applications`): the list, a new token with its scopes
 * (read or read-and-write per category, Gitea's names) shown once, and deletion; below them the
 * user's OAuth2 applications and the ones they authorized (oauth2-apps.ts has their routes).
 */
import express, { type Router } from 'express';
import { settings } from '../../config';
import { NotFound } from '../../errors';
import { ctxOf, doerOf } from '../../middleware/context';
import { formBody } from '../../middleware/input-guard';
import { SCOPE_CATEGORIES } from '../../services/auth/scope';
import { createAccessToken, deleteOwnToken, tokensOf } from '../../services/user/token.service';
import { grantsOf } from '../../services/oauth2/grant.service';
import { flash, flashOutcome, requireCsrf, saveIfDirty } from './context';
import { applicationRows } from './oauth2-apps';
import { renderPage } from './render';
import { page, signedIn } from './route';

const PATH = 'user/settings/applications';

/** Token settings routes. */
export function applicationPages(): Router {
  const r = express.Router();
  const csrf = requireCsrf();
  const back = () => `${settings().server.rootUrl}${PATH}`;

  r.get(`/${PATH}`, page(async (req, res) => {
    if (!signedIn(req, res)) return;
    const tokens = (await tokensOf(ctxOf(req), doerOf(req))).map((t) => ({ id: t.id, name: t.name, scope: t.scope, lastEight: t.tokenLastEight }));
    // why: as Gitea's page, the OAuth2 applications the user registered and those they authorized are listed here too.
    const oauth2 = settings().oauth2.enabled;
    const apps = oauth2 ? await applicationRows(req, doerOf(req).id) : [];
    const grants = oauth2 ? await grantsOf(ctxOf(req), doerOf(req)) : [];
    await renderPage(req, res, 'user/settings/applications', 'Applications', {
      tokens, categories: SCOPE_CATEGORIES, oauth2, apps, grants, base: PATH,
    });
  }));

  r.post(`/${PATH}`, ...formBody(), csrf, page(async (req, res) => {
    if (!signedIn(req, res)) return;
    const b = req.body as Record<string, string>;
    const scopes = SCOPE_CATEGORIES.filter((c) => b[`scope-${c}`] === 'read' || b[`scope-${c}`] === 'write').map((c) => `${b[`scope-${c}`]}:${c}`);
    // why: the new token's value is shown once, in the flash of the page the form returns to.
    await flashOutcome(req, () => createAccessToken(ctxOf(req), doerOf(req), b.name ?? '', scopes),
      (t) => `Your new token "${t.row.name}" is ${t.raw}. Copy it now: it will not be shown again.`);
    res.redirect(303, back());
  }));

  r.post(`/${PATH}/delete`, ...formBody(), csrf, page(async (req, res) => {
    if (!signedIn(req, res)) return;
    if (!(await deleteOwnToken(ctxOf(req), doerOf(req), Number(req.body.id)))) throw new NotFound('access token does not exist');
    flash(req, 'success', 'The token has been deleted; applications using it no longer have access.');
    await saveIfDirty(req);
    res.redirect(303, back());
  }));
  return r;
}
