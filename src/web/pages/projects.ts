/**
 * Project boards (Gitea 1.24's `/{owner}/{repo}/projects` and `/{owner}/-/projects`): the list with
 * its open and closed tabs, search and sort; a new project from a template; editing, closing,
 * reopening and deleting; and the board, its columns side by side with their cards. The column and
 * card actions are in project-board.ts. Every form calls the project services, behind the same
 * rules (./services/project/access.ts); a refusal changes nothing and comes back as a flash, or as
 * the form shown again with its values.
 */
import express, { type Request, type Response, type Router } from 'express';
import { settings } from '../../config';
import { NotFound } from '../../errors';
import { ctxOf, doerOf } from '../../middleware/context';
import { formBody } from '../../middleware/input-guard';
import { ownerProjects, repoProjects, type ProjectScope } from '../../services/project/access';
import { projectBoard } from '../../services/project/board.service';
import {
  createProject, deleteProject, editProject, getProject, isProjectSort, listProjectsOf, PROJECT_TEMPLATES, setProjectClosed, type ProjectForm,
} from '../../services/project/project.service';
import { renderDocument } from '../../services/markup/markup.service';
import type { RepoContext } from '../../services/repo/context';
import { flashOutcome, requireCsrf, unlessRefused } from './context';
import { ownerHead } from './packages';
import { boardRoutes, boardView, CARD_ICONS } from './project-board';
import { renderPage } from './render';
import { repoHeader } from './repo';
import { page, pageNumber, pageRepo, repoHome, signedIn } from './route';

const PAGE_SIZE = 20;
const SORTS: [string, string][] = [
  ['newest', 'Newest'], ['oldest', 'Oldest'], ['recentupdate', 'Recently updated'], ['leastupdate', 'Least recently updated'],
  ['alphabetically', 'Alphabetically'], ['reversealphabetically', 'Reverse alphabetically'],
];

/**
 * Where a projects page is: the scope, the list's path, the header the views draw (read only for a
 * page: a form's answer is a redirect), and the name in titles.
 */
export interface ProjectPlace { scope: ProjectScope; base: string; head: () => Promise<Record<string, unknown>>; name: string; rc: RepoContext | null }

/** A repository's projects (`/{owner}/{repo}/projects`). */
async function repoPlace(req: Request): Promise<ProjectPlace> {
  const rc = await pageRepo(req);
  const scope = await repoProjects(ctxOf(req), rc, req.principal);
  return { scope, rc, base: `${repoHome(rc)}/projects`, head: async () => ({ ...(await repoHeader(req, rc, 'projects')), repoPage: true }), name: `${rc.owner.name}/${rc.repo.name}` };
}

/** An owner's projects (`/{owner}/-/projects`). */
async function ownerPlace(req: Request): Promise<ProjectPlace> {
  const scope = await ownerProjects(ctxOf(req), req.principal, String(req.params.owner));
  const root = new URL(settings().server.rootUrl).pathname;
  return { scope, rc: null, base: `${root}${scope.owner.name}/-/projects`, head: async () => ({ ...(await ownerHead(req, scope.owner)), repoPage: false }), name: scope.owner.name };
}

/** The `:id` of a project route (0 for anything but a positive integer: no project has it). */
const projectId = (req: Request): number => (/^\d{1,9}$/.test(String(req.params.id)) ? Number(req.params.id) : 0);

/** A project's description as HTML (Markdown, with the repository's references when it has one). */
function descriptionHtml(req: Request, place: ProjectPlace, text: string): Promise<string> {
  const app = settings().server.rootUrl;
  const rc = place.rc;
  return renderDocument(ctxOf(req), req.principal, { mode: 'comment', text, links: { app, repo: rc ? `${app}${rc.owner.name}/${rc.repo.name}` : undefined } }, rc);
}

/** The project form's fields. */
const formOf = (b: Record<string, string>): ProjectForm => ({ title: b.title ?? '', description: b.content ?? '', template: Number(b.template_type ?? 0) });

/** Register the project pages under `base` (`/:owner/-/projects` or `/:owner/:repo/projects`), resolved by `resolve`. */
function projectRoutes(r: Router, base: string, resolve: (req: Request) => Promise<ProjectPlace>): void {
  const csrf = requireCsrf();
  const show = async (req: Request, res: Response, place: ProjectPlace, view: string, title: string, data: Record<string, unknown>, status = 200) =>
    renderPage(req, res, `projects/${view}`, `${title} - ${place.name}`, { ...(await place.head()), projectsBase: place.base, canWrite: place.scope.canWrite, ...data }, status);
  const form = (req: Request, res: Response, place: ProjectPlace, values: { title: string; content: string; template_type: string } | null, editing: number, status = 200) =>
    show(req, res, place, 'form', editing ? 'Edit project' : 'New project', { values: values ?? { title: '', content: '', template_type: '0' }, editing, templates: PROJECT_TEMPLATES }, status);

  r.get(base, page(async (req, res) => {
    const place = await resolve(req);
    const state = req.query.state === 'closed' ? 'closed' : 'open';
    const q = typeof req.query.q === 'string' ? req.query.q.trim().slice(0, 255) : '';
    const sort = isProjectSort(req.query.sort) ? req.query.sort : 'newest';
    const pageNo = pageNumber(req);
    const list = await listProjectsOf(ctxOf(req), req.principal, place.scope, { closed: state === 'closed', keyword: q, sort, limit: PAGE_SIZE, offset: (pageNo - 1) * PAGE_SIZE });
    const query = (over: Record<string, string>) => new URLSearchParams(Object.entries({ state, q, sort, ...over }).filter(([, v]) => v !== '')).toString();
    await show(req, res, place, 'list', 'Projects', {
      projects: list.rows.map((p) => ({ ...p, cards: list.cards.get(p.id) ?? { open: 0, closed: 0 } })), counts: { open: list.open, closed: list.closed },
      state, q, sort, sorts: SORTS, query, pageNo, pages: Math.max(1, Math.ceil(list.total / PAGE_SIZE)), pagerQuery: query({}),
    });
  }));

  r.get(`${base}/new`, page(async (req, res) => {
    if (!signedIn(req, res)) return;
    const place = await resolve(req);
    if (!place.scope.canWrite) throw new NotFound();
    await form(req, res, place, null, 0);
  }));
  r.post(`${base}/new`, ...formBody('1mb'), csrf, page(async (req, res) => {
    if (!signedIn(req, res)) return;
    const place = await resolve(req);
    const b = req.body as Record<string, string>;
    const values = { title: b.title ?? '', content: b.content ?? '', template_type: b.template_type ?? '0' };
    const made = await unlessRefused(req, () => createProject(ctxOf(req), doerOf(req), place.scope, formOf(b)), (status) => form(req, res, place, values, 0, status));
    if (made) res.redirect(303, `${place.base}/${made.id}`);
  }));

  r.get(`${base}/:id/edit`, page(async (req, res) => {
    if (!signedIn(req, res)) return;
    const place = await resolve(req);
    const project = await getProject(ctxOf(req), place.scope, projectId(req));
    if (!place.scope.canWrite) throw new NotFound();
    await form(req, res, place, { title: project.title, content: project.description, template_type: String(project.templateType) }, project.id);
  }));
  r.post(`${base}/:id/edit`, ...formBody('1mb'), csrf, page(async (req, res) => {
    if (!signedIn(req, res)) return;
    const place = await resolve(req);
    const id = projectId(req);
    const b = req.body as Record<string, string>;
    const values = { title: b.title ?? '', content: b.content ?? '', template_type: '0' };
    const saved = await unlessRefused(req, () => editProject(ctxOf(req), place.scope, id, formOf(b)), (status) => form(req, res, place, values, id, status));
    if (saved) res.redirect(303, `${place.base}/${saved.id}`);
  }));

  r.post(`${base}/:id/:action(open|close)`, ...formBody(), csrf, page(async (req, res) => {
    if (!signedIn(req, res)) return;
    const place = await resolve(req);
    const closing = req.params.action === 'close';
    await flashOutcome(req, () => setProjectClosed(ctxOf(req), place.scope, projectId(req), closing), () => (closing ? 'The project is closed.' : 'The project is open again.'));
    res.redirect(303, `${place.base}?state=${closing ? 'closed' : 'open'}`);
  }));
  r.post(`${base}/:id/delete`, ...formBody(), csrf, page(async (req, res) => {
    if (!signedIn(req, res)) return;
    const place = await resolve(req);
    await flashOutcome(req, () => deleteProject(ctxOf(req), place.scope, projectId(req)), () => 'The project is deleted.');
    res.redirect(303, place.base);
  }));

  r.get(`${base}/:id`, page(async (req, res) => {
    const place = await resolve(req);
    const board = await projectBoard(ctxOf(req), req.principal, place.scope, projectId(req));
    const p = board.project;
    await show(req, res, place, 'view', p.title, {
      project: p, descriptionHtml: p.description ? await descriptionHtml(req, place, p.description) : '', board: boardView(place, board),
      boardUrl: `${place.base}/${p.id}`, icons: CARD_ICONS,
    });
  }));
  boardRoutes(r, base, resolve);
}

/** The project pages: owners' first, since `/{owner}/-/projects` would otherwise read as a repository named `-`. */
export function projectPages(): Router {
  const r = express.Router();
  projectRoutes(r, '/:owner/-/projects', ownerPlace);
  projectRoutes(r, '/:owner/:repo/projects', repoPlace);
  return r;
}
