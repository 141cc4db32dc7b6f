/**
 * The user's appearance (`/user/settings/appearance`: the colour theme among `[ui] THEMES`) and
 * the lists under the user's settings: their repositories (`/user/settings/repos`), their
 * organizations with Leave (`/user/settings/organization`), blocked users
 * (`/user/settings/blocked_users`) and their own webhooks (`/user/settings/hooks`, the hooks of
 * Gitea's `/user/hooks`), each through the service the API calls.
 */
import express, { type Router } from 'express';
import { settings } from '../../config';
import { ctxOf, doerOf } from '../../middleware/context';
import { formBody } from '../../middleware/input-guard';
import { blockUser, listBlocked, unblockUser } from '../../services/user/block.service';
import { lookupUser } from '../../services/user/lookup';
import { listRepos } from '../../services/repo/repo.service';
import { listOrgsOf } from '../../services/org/org.service';
import { resolveOrg } from '../../services/org/guard';
import { removeMember } from '../../services/org/member.service';
import { VISIBILITY_NAMES } from '../../models/user.model';
import { flashOutcome, requireCsrf } from './context';
import { Validation } from '../../errors';
import { changeSettings } from '../../services/user/settings.service';
import { hookRoutes } from './hooks';
import { renderPage, themeOf } from './render';
import { page, pageNumber, signedIn } from './route';

const PAGE_SIZE = 50;

/** The user's appearance, repository, organization, blocked-user and webhook settings routes. */
export function settingsListPages(): Router {
  const r = express.Router();
  const csrf = requireCsrf();
  const to = (path: string) => `${settings().server.rootUrl}user/settings${path}`;

  r.get('/user/settings/appearance', page(async (req, res) => {
    const user = signedIn(req, res);
    if (!user) return;
    await renderPage(req, res, 'user/settings/appearance', 'Appearance', { themes: settings().ui.themes, current: themeOf(user.theme) });
  }));
  r.post('/user/settings/appearance', ...formBody(), csrf, page(async (req, res) => {
    const user = signedIn(req, res);
    if (!user) return;
    const theme = String(req.body.theme ?? '');
    await flashOutcome(req, async () => {
      // why: as Gitea, only a theme the site offers can be chosen here.
      if (!settings().ui.themes.includes(theme)) throw new Validation('This theme is not offered on this site.');
      await changeSettings(ctxOf(req), user, { theme });
    }, () => 'Your theme has been changed.');
    res.redirect(303, to('/appearance'));
  }));

  r.get('/user/settings/repos', page(async (req, res) => {
    const user = signedIn(req, res);
    if (!user) return;
    const pageNo = pageNumber(req);
    const { views, count } = await listRepos(ctxOf(req), req.principal, { ownerId: user.id, sort: 'alpha', order: 'asc', limit: PAGE_SIZE, offset: (pageNo - 1) * PAGE_SIZE });
    const repos = views.map((v) => ({ name: v.repo.name, private: v.repo.isPrivate, fork: v.repo.isFork, mirror: v.repo.isMirror, archived: v.repo.isArchived, size: v.repo.size }));
    await renderPage(req, res, 'user/settings/repos', 'Repositories', { repos, owner: user.name, pageNo, pages: Math.max(1, Math.ceil(count / PAGE_SIZE)), total: count });
  }));

  r.get('/user/settings/organization', page(async (req, res) => {
    const user = signedIn(req, res);
    if (!user) return;
    const { rows } = await listOrgsOf(ctxOf(req), req.principal, user, 1000, 0);
    await renderPage(req, res, 'user/settings/organization', 'Organizations', {
      orgs: rows.map((o) => ({ name: o.name, fullName: o.fullName, visibility: VISIBILITY_NAMES[o.visibility] })),
      canCreate: user.allowCreateOrganization,
    });
  }));
  r.post('/user/settings/organization/leave', ...formBody(), csrf, page(async (req, res) => {
    const user = signedIn(req, res);
    if (!user) return;
    const name = String(req.body.org ?? '');
    await flashOutcome(req, async () => removeMember(ctxOf(req), await resolveOrg(ctxOf(req), req.principal, name), user), () => `You have left ${name}.`);
    res.redirect(303, to('/organization'));
  }));

  r.get('/user/settings/blocked_users', page(async (req, res) => {
    if (!signedIn(req, res)) return;
    const { rows } = await listBlocked(ctxOf(req), doerOf(req), 1000, 0);
    await renderPage(req, res, 'user/settings/blocked', 'Blocked users', { blocked: rows.map((u) => u.name) });
  }));
  r.post('/user/settings/blocked_users', ...formBody(), csrf, page(async (req, res) => {
    if (!signedIn(req, res)) return;
    const b = req.body as Record<string, string>;
    await flashOutcome(req, async () => {
      const other = await lookupUser(ctxOf(req), req.principal, b.name ?? '');
      if (b.action === 'unblock') await unblockUser(ctxOf(req), doerOf(req), other);
      else await blockUser(ctxOf(req), doerOf(req), doerOf(req), other, b.note ?? '');
    }, () => (b.action === 'unblock' ? `${b.name} is no longer blocked.` : `${b.name} is blocked.`));
    res.redirect(303, to('/blocked_users'));
  }));

  hookRoutes(r, '/user/settings/hooks', async (req, res) => {
    const user = signedIn(req, res);
    return user && {
      place: { ownerId: user.id }, base: `${new URL(settings().server.rootUrl).pathname}user/settings/hooks`,
      show: (view, title, data) => renderPage(req, res, `user/settings/${view}`, title, data),
    };
  });
  return r;
}
