/**
 * Site administration (`/admin`, Gitea's `/-/admin`): a dashboard with counts; user accounts (list
 * and search, create, edit, delete); organizations (list and search); repositories (list and
 * search, delete); system webhooks (list, create, delete). Only site administrators see these
 * pages (anyone else gets a 404, a visitor is sent to sign in), and every action goes through the
 * service the admin API calls.
 */
import express, { type Request, type Response, type Router } from 'express';
import { settings } from '../../config';
import { NotFound } from '../../errors';
import { toRepositoryView } from '../../convert/repo';
import { toHook } from '../../convert/webhook';
import { ctxOf, doerOf } from '../../middleware/context';
import { formBody } from '../../middleware/input-guard';
import { VISIBILITY_NAMES, type UserModel } from '../../models/user.model';
import { listAllOrgs } from '../../services/org/org.service';
import { listRepos } from '../../services/repo/repo.service';
import { deleteRepo } from '../../services/lifecycle/repo-delete.service';
import { editUser } from '../../services/user/admin.service';
import { deleteUser } from '../../services/lifecycle/user-delete.service';
import { searchUsers } from '../../services/user/directory.service';
import { lookupUser } from '../../services/user/lookup';
import { createUser } from '../../services/user/user.service';
import { createHook, hookView, listHooks, removeHook } from '../../services/webhook/hook.service';
import { sendTestMail } from '../../services/mail/account-mail';
import { mailStatus } from '../../services/mail/status';
import { flash, flashOutcome, requireCsrf, saveIfDirty } from './context';
import { hookFormOption, hookFormValues } from './hooks';
import { renderPage } from './render';
import { page, pageNumber, pageRepo, signedIn } from './route';

/** Rows per page of every list (Gitea's `[ui.admin]` paging default). */
export const PAGE_SIZE = 50;

/** The signed-in site administrator; a visitor is sent to sign in (then null), anyone else gets a 404. */
export function siteAdmin(req: Request, res: Response): UserModel | null {
  const user = signedIn(req, res);
  if (user && !req.web.principal.user?.isAdmin) throw new NotFound();
  return user;
}

/** A list page's `?q=`, trimmed and bounded. */
export function keyword(req: Request): string {
  return typeof req.query.q === 'string' ? req.query.q.trim().slice(0, 255) : '';
}

/** The paging data pager.eta reads. */
export function paging(q: string, pageNo: number, count: number) {
  return { q, pageNo, pages: Math.max(1, Math.ceil(count / PAGE_SIZE)), total: count };
}

const day = (d: Date | string) => new Date(d).toISOString().slice(0, 10);

/** Site administration routes. */
export function adminPages(): Router {
  const r = express.Router();
  const csrf = requireCsrf();
  const to = (path: string) => `${settings().server.rootUrl}admin${path}`;
  const userPath = (name: string) => `/users/${encodeURIComponent(name)}`;

  r.get('/admin', page(async (req, res) => {
    if (!siteAdmin(req, res)) return;
    const ctx = ctxOf(req);
    const users = (await searchUsers(ctx, req.principal, { keyword: '', limit: 1, offset: 0 })).count;
    const orgs = (await listAllOrgs(ctx, 1, 0)).count;
    const repos = (await listRepos(ctx, req.principal, { sort: 'id', order: 'asc', limit: 1, offset: 0 })).count;
    await renderPage(req, res, 'admin/dashboard', 'Site administration', { section: '', stats: { users, orgs, repos }, mail: await mailStatus() });
  }));

  // why: as Gitea, the form is on the configuration page, and the test mail is sent at once, not queued, so the administrator reads the server's own answer.
  r.post('/admin/config/test_mail', ...formBody(), csrf, page(async (req, res) => {
    if (!siteAdmin(req, res)) return;
    const email = String((req.body as Record<string, unknown>).email ?? '').trim();
    if (!settings().mailer.enabled) flash(req, 'error', 'The mailer is not enabled ([mailer] ENABLED).');
    else if (!/^[^\s@<>]+@[^\s@<>]+$/.test(email)) flash(req, 'error', `"${email}" is not an email address.`);
    else {
      await sendTestMail(email).then(
        () => flash(req, 'success', `A test mail has been sent to "${email}".`),
        (err: Error) => flash(req, 'error', `Failed to send a test mail to "${email}": ${err.message}`),
      );
    }
    await saveIfDirty(req);
    res.redirect(303, to('/config'));
  }));

  r.get('/admin/users', page(async (req, res) => {
    if (!siteAdmin(req, res)) return;
    const q = keyword(req);
    const pageNo = pageNumber(req);
    const { rows, count } = await searchUsers(ctxOf(req), req.principal, { keyword: q, limit: PAGE_SIZE, offset: (pageNo - 1) * PAGE_SIZE });
    const users = rows.map((u) => ({
      name: u.name, fullName: u.fullName, email: u.email, admin: u.isAdmin, active: u.isActive, prohibitLogin: u.prohibitLogin,
      restricted: u.isRestricted, created: day(u.createdAt),
    }));
    await renderPage(req, res, 'admin/users', 'User accounts', { section: 'users', users, ...paging(q, pageNo, count) });
  }));

  r.get('/admin/users/new', page(async (req, res) => {
    if (!siteAdmin(req, res)) return;
    await renderPage(req, res, 'admin/user_new', 'New user account', { section: 'users' });
  }));
  r.post('/admin/users/new', ...formBody(), csrf, page(async (req, res) => {
    if (!siteAdmin(req, res)) return;
    const b = req.body as Record<string, string>;
    let made = '';
    await flashOutcome(req, async () => {
      const { user, warning } = await createUser(ctxOf(req), {
        username: b.user_name ?? '', email: b.email ?? '', password: b.password ?? '', mustChangePassword: b.must_change_password === 'on',
      }, 'admin');
      made = user.name;
      if (warning) flash(req, 'info', warning);
    }, () => `The user account "${made}" has been created.`);
    res.redirect(303, to(made ? userPath(made) : '/users/new'));
  }));

  r.get('/admin/users/:name', page(async (req, res) => {
    if (!siteAdmin(req, res)) return;
    const u = await lookupUser(ctxOf(req), req.principal, String(req.params.name));
    await renderPage(req, res, 'admin/user_edit', `Edit user account ${u.name}`, {
      section: 'users',
      user: {
        name: u.name, fullName: u.fullName, email: u.email, admin: u.isAdmin, active: u.isActive, prohibitLogin: u.prohibitLogin,
        restricted: u.isRestricted, mustChangePassword: u.mustChangePassword, self: u.id === doerOf(req).id,
      },
    });
  }));
  r.post('/admin/users/:name', ...formBody(), csrf, page(async (req, res) => {
    const admin = siteAdmin(req, res);
    if (!admin) return;
    const target = await lookupUser(ctxOf(req), req.principal, String(req.params.name));
    const b = req.body as Record<string, string>;
    await flashOutcome(req, async () => {
      const { warning } = await editUser(ctxOf(req), target, {
        loginName: target.loginName || target.name,
        fullName: b.full_name ?? '',
        // why: as Gitea's form, an empty email leaves the address as it is.
        email: b.email ? b.email : undefined,
        // why: as Gitea's form, an empty password leaves the password as it is.
        password: b.password ? b.password : undefined,
        mustChangePassword: b.must_change_password === 'on',
        admin: b.admin === 'on',
        active: b.active === 'on',
        restricted: b.restricted === 'on',
        // why: as Gitea, administrators cannot lock themselves out.
        prohibitLogin: target.id === admin.id ? false : b.prohibit_login === 'on',
      });
      if (warning) flash(req, 'info', warning);
    }, () => 'The user account has been updated.');
    res.redirect(303, to(userPath(target.name)));
  }));
  r.post('/admin/users/:name/delete', ...formBody(), csrf, page(async (req, res) => {
    if (!siteAdmin(req, res)) return;
    const target = await lookupUser(ctxOf(req), req.principal, String(req.params.name));
    let deleted = false;
    await flashOutcome(req, async () => {
      await deleteUser(ctxOf(req), doerOf(req), target, req.body.purge === 'on');
      deleted = true;
    }, () => `The user account "${target.name}" has been deleted.`);
    res.redirect(303, to(deleted ? '/users' : userPath(target.name)));
  }));

  r.get('/admin/orgs', page(async (req, res) => {
    if (!siteAdmin(req, res)) return;
    const q = keyword(req);
    const pageNo = pageNumber(req);
    const { rows, count } = await listAllOrgs(ctxOf(req), PAGE_SIZE, (pageNo - 1) * PAGE_SIZE, q);
    const orgs = rows.map((o) => ({
      name: o.name, fullName: o.fullName, visibility: VISIBILITY_NAMES[o.visibility] ?? 'public', repos: o.numRepos, created: day(o.createdAt),
    }));
    await renderPage(req, res, 'admin/orgs', 'Organizations', { section: 'orgs', orgs, ...paging(q, pageNo, count) });
  }));

  r.get('/admin/repos', page(async (req, res) => {
    if (!siteAdmin(req, res)) return;
    const q = keyword(req);
    const pageNo = pageNumber(req);
    const { views, count } = await listRepos(ctxOf(req), req.principal, {
      keyword: q || undefined, sort: 'updated', order: 'desc', limit: PAGE_SIZE, offset: (pageNo - 1) * PAGE_SIZE,
    });
    const repos = views.map((v) => toRepositoryView(v, null, settings().server.rootUrl)).map((x) => ({
      owner: x.owner.login, name: x.name, fullName: x.full_name, private: x.private, stars: x.stars_count, forks: x.forks_count,
      issues: x.open_issues_count, size: x.size, created: day(x.created_at),
    }));
    await renderPage(req, res, 'admin/repos', 'Repositories', { section: 'repos', repos, ...paging(q, pageNo, count) });
  }));
  r.post('/admin/repos/:owner/:repo/delete', ...formBody(), csrf, page(async (req, res) => {
    if (!siteAdmin(req, res)) return;
    const rc = await pageRepo(req);
    await flashOutcome(req, () => deleteRepo(ctxOf(req), doerOf(req), rc), () => `The repository ${rc.owner.name}/${rc.repo.name} has been deleted.`);
    res.redirect(303, to('/repos'));
  }));

  r.get('/admin/hooks', page(async (req, res) => {
    if (!siteAdmin(req, res)) return;
    const pageNo = pageNumber(req);
    const { rows, count } = await listHooks(ctxOf(req), 'instance', { limit: PAGE_SIZE, offset: (pageNo - 1) * PAGE_SIZE });
    const hooks = rows.map((row) => toHook(hookView(row))).map((h) => ({
      id: h.id, url: h.config.url, contentType: h.config.content_type, events: h.events, active: h.active,
    }));
    await renderPage(req, res, 'admin/hooks', 'System webhooks', { section: 'hooks', hooks, ...paging('', pageNo, count) });
  }));
  r.get('/admin/hooks/new', page(async (req, res) => {
    if (!siteAdmin(req, res)) return;
    await renderPage(req, res, 'admin/hook_new', 'New system webhook', { section: 'hooks', hook: hookFormValues() });
  }));
  r.post('/admin/hooks/new', ...formBody(), csrf, page(async (req, res) => {
    if (!siteAdmin(req, res)) return;
    const b = req.body as Record<string, string>;
    let made = false;
    await flashOutcome(req, async () => {
      const o = hookFormOption(b);
      await createHook(ctxOf(req), 'instance', { ...o, type: 'gitea', config: { ...o.config, is_system_webhook: 'true' } });
      made = true;
    }, () => 'The webhook has been added.');
    res.redirect(303, to(made ? '/hooks' : '/hooks/new'));
  }));
  r.post('/admin/hooks/:id/delete', ...formBody(), csrf, page(async (req, res) => {
    if (!siteAdmin(req, res)) return;
    const id = Number(req.params.id);
    if (!Number.isInteger(id) || id < 1) throw new NotFound();
    await flashOutcome(req, () => removeHook(ctxOf(req), 'instance', id), () => 'The webhook has been deleted.');
    res.redirect(303, to('/hooks'));
  }));
  return r;
}
