/**
 * Site administration of unadopted repositories (Gitea's `/-/admin/repos/unadopted`): bare
 * repositories on disk whose owner exists but that have no row, searched by `owner/name` globs,
 * each with "Adopt files" and "Delete files". Site administrators only; the actions go through the
 * service the admin API calls, so the same refusals apply.
 */
import express, { type Router } from 'express';
import { settings } from '../../config';
import { ctxOf, doerOf } from '../../middleware/context';
import { formBody } from '../../middleware/input-guard';
import { adoptRepository, deleteUnadopted, listUnadopted } from '../../services/lifecycle/unadopted.service';
import { PAGE_SIZE, keyword, paging, siteAdmin } from './admin';
import { flashOutcome, requireCsrf } from './context';
import { renderPage } from './render';
import { page, pageNumber } from './route';

/** The unadopted repositories page and its two actions. */
export function adminUnadoptedPages(): Router {
  const r = express.Router();
  const csrf = requireCsrf();
  const back = () => `${settings().server.rootUrl}admin/repos/unadopted`;
  const param = (v: unknown) => (typeof v === 'string' ? v : '');

  r.get('/admin/repos/unadopted', page(async (req, res) => {
    if (!siteAdmin(req, res)) return;
    const q = keyword(req);
    const pageNo = pageNumber(req);
    const { names, count } = await listUnadopted(ctxOf(req), q, PAGE_SIZE, (pageNo - 1) * PAGE_SIZE);
    const repos = names.map((full) => ({ full, owner: full.slice(0, full.indexOf('/')), name: full.slice(full.indexOf('/') + 1) }));
    await renderPage(req, res, 'admin/unadopted', 'Unadopted repositories', { section: 'repos', repos, ...paging(q, pageNo, count) });
  }));
  r.post('/admin/repos/unadopted/:owner/:repo/adopt', ...formBody(), csrf, page(async (req, res) => {
    if (!siteAdmin(req, res)) return;
    const [owner, repo] = [param(req.params.owner), param(req.params.repo)];
    await flashOutcome(req, () => adoptRepository(ctxOf(req), doerOf(req), owner, repo), (made) => `The files of ${owner}/${made.name} have been adopted as a repository.`);
    res.redirect(303, back());
  }));
  r.post('/admin/repos/unadopted/:owner/:repo/delete', ...formBody(), csrf, page(async (req, res) => {
    if (!siteAdmin(req, res)) return;
    const [owner, repo] = [param(req.params.owner), param(req.params.repo)];
    await flashOutcome(req, () => deleteUnadopted(ctxOf(req), owner, repo), () => `The files of ${owner}/${repo} have been deleted.`);
    res.redirect(303, back());
  }));
  return r;
}
