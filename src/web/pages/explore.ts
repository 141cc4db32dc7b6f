/**
 * Explore (repositories the caller may see, with search) and the profile of a user or
 * organization (its repositories the caller may see).
 */
import express, { type Request, type Response, type Router } from 'express';
import { settings } from '../../config';
import { systemCtx } from '../../db';
import { NotFound } from '../../errors';
import { toRepositoryView } from '../../convert/repo';
import { listRepos } from '../../services/repo/repo.service';
import { lookupOwner } from '../../services/user/lookup';
import { UserType } from '../../models/user.model';
import { renderPage } from './render';
import { page, pageNumber } from './route';

const PAGE_SIZE = 20;
// why: names the pages own; `/{owner}` never means them.
const RESERVED = new Set(['api', 'assets', 'explore', 'user', 'swagger', 'swagger.v1.json', 'favicon.ico', 'admin', 'repo', 'org', 'notifications', 'issues', 'pulls']);

async function repoList(req: Request, q: { keyword?: string; ownerId?: number }) {
  const pageNo = pageNumber(req);
  const { views, count } = await listRepos(systemCtx, req.web.principal, { ...q, sort: q.ownerId ? 'updated' : 'alpha', order: q.ownerId ? 'desc' : 'asc', limit: PAGE_SIZE, offset: (pageNo - 1) * PAGE_SIZE });
  return { repos: views.map((v) => toRepositoryView(v, null, settings().server.rootUrl)), total: count, pageNo, pages: Math.max(1, Math.ceil(count / PAGE_SIZE)) };
}

/** Explore and profile routes (the profile's `/{owner}` is a catch-all: mount it after the others). */
export function explorePages(): Router {
  const r = express.Router();
  r.get('/explore/repos', page(async (req: Request, res: Response) => {
    const q = typeof req.query.q === 'string' ? req.query.q.slice(0, 255) : '';
    await renderPage(req, res, 'explore/repos', 'Explore', { q, ...(await repoList(req, { keyword: q || undefined })) });
  }));
  r.get('/:owner', page(async (req: Request, res: Response) => {
    const name = String(req.params.owner);
    if (RESERVED.has(name.toLowerCase())) throw new NotFound();
    const owner = await lookupOwner(systemCtx, req.web.principal, name);
    await renderPage(req, res, 'user/profile', owner.name, {
      owner: { name: owner.name, fullName: owner.fullName, description: owner.description, website: owner.website, location: owner.location, isOrg: owner.type === UserType.Organization },
      ...(await repoList(req, { ownerId: owner.id })),
    });
  }));
  return r;
}
