/**
 * The browser UI: server-rendered pages over the same services and permission function as the
 * API. Sessions, CSRF and Origin checks (context.ts), Eta templates (render.ts), one stylesheet and
 * one script (`/assets`).
 */
import fs from 'node:fs';
import path from 'node:path';
import express, { type Router } from 'express';
import { webSession } from './context';
import { authPages } from './auth';
import { recoveryPages } from './recovery';
import { securityPages } from './security';
import { accountPages, mustChangePasswordGate } from './account';
import { settingsListPages } from './settings-lists';
import { applicationPages } from './applications';
import { oauth2AppPages } from './oauth2-apps';
import { oauth2AuthorizePages } from './oauth2-authorize';
import { keyPages } from './keys';
import { explorePages } from './explore';
import { adminPages } from './admin';
import { actionsSettingsPages, repoActionsSettingsPages } from './actions-pages';
import { adminSystemPages } from './admin-system';
import { adminUnadoptedPages } from './admin-unadopted';
import { migratePages } from './migrate';
import { wellKnownPages } from './well-known';
import { orgPages } from './orgs';
import { orgSettingsPages } from './org-settings';
import { repoPages } from './repo';
import { refPages } from './refs';
import { repoSettingsPages } from './repo-settings';
import { editorPages } from './editor';
import { issuePages } from './issues';
import { sidebarPages } from './issue-sidebar';
import { pullPages } from './pulls';
import { comparePages } from './compare';
import { socialPages } from './social';
import { blamePages } from './blame';
import { pageErrors } from './render';
import { NotFound } from '../../errors';
import { dashboardPages } from './dashboard';
import { dashboardListPages } from './dashboard-lists';
import { wikiPages } from './wiki';
import { labelPages } from './labels';
import { milestonePages } from './milestones';
import { packagePages, repoPackagePages } from './packages';
import { packageSettingsPages } from './package-settings';
import { actionPages } from './actions';
import { projectPages } from './projects';

// why: compiled code runs from dist/src/web/pages; the assets stay in the source tree.
const ASSETS = [path.resolve(__dirname, '../assets'), path.resolve(__dirname, '../../../../src/web/assets')].find((d) => fs.existsSync(path.join(d, 'forge.css'))) ?? '';

// The design foundation's files, served from their packages: Bulma's stylesheet (light scheme;
// forge.css builds on its variables), GitHub's <relative-time> element and Cropper.js. See docs/web-ui.md.
const VENDOR: Record<string, string> = {
  'bulma.css': require.resolve('bulma/css/versions/bulma-no-dark-mode.min.css'),
  // why: the package exports its modules only; its one-file bundle sits beside the main one.
  'relative-time.js': path.join(path.dirname(require.resolve('@github/relative-time-element')), 'bundle.js'),
  // The avatar form's square crop, as Gitea's (Cropper.js), loaded by that page only.
  'cropper.js': require.resolve('cropperjs/dist/cropper.min.js'),
  'cropper.css': require.resolve('cropperjs/dist/cropper.min.css'),
};

/** Every page route, with its session and error page. */
export function pagesRouter(): Router {
  const r = express.Router();
  r.get('/assets/vendor/:file', (req, res, next) => {
    const file = VENDOR[String(req.params.file)];
    if (!file) return next();
    res.sendFile(file, { maxAge: '1d', headers: { 'X-Content-Type-Options': 'nosniff' } }, (err) => err && next(err));
  });
  r.use('/assets', express.static(ASSETS, { index: false, fallthrough: false, maxAge: '1h', setHeaders: (res) => res.setHeader('X-Content-Type-Options', 'nosniff') }));
  r.use(webSession());
  r.use(mustChangePasswordGate());
  r.use(wellKnownPages());
  r.use(dashboardPages());
  r.use(dashboardListPages());
  r.use(authPages());
  r.use(oauth2AuthorizePages());
  r.use(recoveryPages());
  r.use(accountPages());
  r.use(settingsListPages());
  r.use(securityPages());
  r.use(applicationPages());
  r.use(oauth2AppPages());
  r.use(keyPages());
  r.use(adminUnadoptedPages());
  r.use(adminPages());
  r.use(adminSystemPages());
  r.use(actionsSettingsPages());
  // why: `/{owner}/-/packages/...` before the routers whose `/:owner/:repo/...` would take it.
  r.use(packagePages());
  r.use(packageSettingsPages());
  // why: `/{owner}/-/projects/...` too, before the repository routers.
  r.use(projectPages());
  r.use(orgPages());
  r.use(migratePages());
  r.use(orgSettingsPages());
  r.use(explorePages());
  r.use(editorPages());
  r.use(sidebarPages());
  r.use(issuePages());
  r.use(pullPages());
  r.use(comparePages());
  r.use(socialPages());
  r.use(blamePages());
  r.use(wikiPages());
  r.use(refPages());
  r.use(repoActionsSettingsPages());
  r.use(repoSettingsPages());
  r.use(labelPages());
  r.use(milestonePages());
  r.use(repoPackagePages());
  r.use(actionPages());
  r.use(repoPages());
  // why: a page no route knows is a 404 in the site frame, never the framework's "Cannot GET".
  r.use((_req, _res, next) => next(new NotFound()));
  r.use(pageErrors());
  return r;
}
