/**
 * The dashboard (`/`): the signed-in user's start page, the site's front page for visitors.
 */
import express, { type Request, type Response, type Router } from 'express';
import { systemCtx } from '../../db';
import { secondFactorsOf } from '../../services/auth/two-factor.service';
import { settings } from '../../config';
import { renderPage } from './render';
import { page } from './route';

/** Dashboard and notification routes. */
export function dashboardPages(): Router {
  const r = express.Router();
  r.get('/', page(async (req: Request, res: Response) => {
    const user = req.web.principal.user;
    const mustEnrol = !!user && settings().security.twoFactorAuth === 'enforced' && !Object.values(await secondFactorsOf(systemCtx, user.id)).some(Boolean);
    await renderPage(req, res, 'home', user ? 'Dashboard' : settings().appName, { mustEnrol });
  }));
  return r;
}
