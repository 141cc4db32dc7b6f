/**
 * Explore (repositories, users and organizations the caller may see, with search) and the profile
 * of a user or organization (its repositories the caller may see; an organization's page links its
 * members, and its teams for members).
 */
import express, { type Request, type Response, type Router } from 'express';
import { ctxOf } from '../../middleware/context';
import { settings } from '../../config';
import { NotFound } from '../../errors';
import { toRepositoryView } from '../../convert/repo';
import { listRepos } from '../../services/repo/repo.service';
import { listExploreOrgs } from '../../services/org/org.service';
import { seesAllMembers } from '../../services/org/member.service';
import { searchUsers } from '../../services/user/directory.service';
import { lookupOwner } from '../../services/user/lookup';
import { userHeatmap } from '../../services/activity/feed.service';
import { heatmapCalendar } from './heatmap';
import { UserType, type UserModel } from '../../models/user.model';
import { ownsOrg } from './orgs';
import { renderPage } from './render';
import { page, pageNumber } from './route';

const PAGE_SIZE = 20;
// why: names the pages own; `/{owner}` never means them.
const RESERVED = new Set(['api', 'assets', 'explore', 'user', 'swagger', 'swagger.v1.json', 'favicon.ico', 'admin', 'repo', 'org', 'notifications', 'issues', 'pulls']);

async function repoList(req: Request, q: { keyword?: string; ownerId?: number }) {
  const pageNo = pageNumber(req);
  const { views, count } = await listRepos(ctxOf(req), req.principal, { ...q, sort: q.ownerId ? 'updated' : 'alpha', order: q.ownerId ? 'desc' : 'asc', limit: PAGE_SIZE, offset: (pageNo - 1) * PAGE_SIZE });
  return { repos: views.map((v) => toRepositoryView(v, null, settings().server.rootUrl)), total: count, pageNo, pages: Math.max(1, Math.ceil(count / PAGE_SIZE)) };
}

function searchTerm(req: Request): string {
  return typeof req.query.q === 'string' ? req.query.q.slice(0, 255) : '';
}

/** What a list of users or organizations shows of each. */
function ownerRows(rows: UserModel[]) {
  return rows.map((u) => ({ name: u.name, fullName: u.fullName, description: u.description }));
}

/** Explore and profile routes (the profile's `/{owner}` is a catch-all: mount it after the others). */
export function explorePages(): Router {
  const r = express.Router();
  r.get('/explore/repos', page(async (req: Request, res: Response) => {
    const q = searchTerm(req);
    await renderPage(req, res, 'explore/repos', 'Explore', { q, tab: 'repos', ...(await repoList(req, { keyword: q || undefined })) });
  }));
  r.get('/explore/users', page(async (req: Request, res: Response) => {
    const q = searchTerm(req);
    const pageNo = pageNumber(req);
    const { rows, count } = await searchUsers(ctxOf(req), req.principal, { keyword: q, limit: PAGE_SIZE, offset: (pageNo - 1) * PAGE_SIZE });
    await renderPage(req, res, 'explore/owners', 'Explore users', { q, tab: 'users', owners: ownerRows(rows), total: count, pageNo, pages: Math.max(1, Math.ceil(count / PAGE_SIZE)) });
  }));
  r.get('/explore/organizations', page(async (req: Request, res: Response) => {
    const q = searchTerm(req);
    const pageNo = pageNumber(req);
    const { rows, count } = await listExploreOrgs(ctxOf(req), req.principal, PAGE_SIZE, (pageNo - 1) * PAGE_SIZE, q);
    await renderPage(req, res, 'explore/owners', 'Explore organizations', { q, tab: 'organizations', owners: ownerRows(rows), total: count, pageNo, pages: Math.max(1, Math.ceil(count / PAGE_SIZE)) });
  }));
  r.get('/:owner', page(async (req: Request, res: Response) => {
    const name = String(req.params.owner);
    if (RESERVED.has(name.toLowerCase())) throw new NotFound();
    const owner = await lookupOwner(ctxOf(req), req.principal, name);
    const isOrg = owner.type === UserType.Organization;
    // why: as Gitea, individual profiles show the contribution calendar while [service] ENABLE_USER_HEATMAP;
    // a user who keeps its activity private shows none to others (the API's answer is empty then).
    const readable = !owner.hideActivity || req.principal.user?.isAdmin || req.principal.user?.id === owner.id;
    const heatmap = !isOrg && settings().service.enableUserHeatmap && readable ? heatmapCalendar(await userHeatmap(ctxOf(req), req.principal, owner)) : null;
    await renderPage(req, res, 'user/profile', owner.name, {
      heatmap, activityPrivate: !isOrg && owner.hideActivity,
      owner: { name: owner.name, fullName: owner.fullName, description: owner.description, website: owner.website, location: owner.location, isOrg },
      org: isOrg ? { name: owner.name, isMember: await seesAllMembers(ctxOf(req), req.principal, owner), isOwner: await ownsOrg(req, owner) } : null,
      ...(await repoList(req, { ownerId: owner.id })),
    });
  }));
  return r;
}
