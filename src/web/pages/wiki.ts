/**
 * Wiki pages, after Gitea's web wiki: the Home page (a welcome, with a button for writers, while the
 * wiki has no page), the list of pages, one page rendered in wiki mode with the wiki's `_Sidebar` and
 * `_Footer`, its revisions, the forms that create, edit (a new title renames) and delete pages with a
 * server-rendered Preview, and the raw files of the wiki's tree (the images pages show). Pages are
 * named by their web path, read still escaped as the API reads `{pageName}`; every read and change
 * calls the wiki services the API's handlers call, so the same permissions, names and refusals apply.
 */
import { Readable } from 'node:stream';
import express, { type Request, type Response, type Router } from 'express';
import { settings } from '../../config';
import { BadRequest, HttpError, NotFound } from '../../errors';
import { entriesAt, readBlob, readBlobHead, streamBlob, type TreeEntry } from '../../git/objects';
import { ctxOf, doerOf } from '../../middleware/context';
import { formBody } from '../../middleware/input-guard';
import { sendRawFile } from '../../middleware/send';
import { AccessMode, UnitType } from '../../models/perm';
import { serveHeaders } from '../../services/content/raw.service';
import { contentType } from '../../services/content/view';
import { renderDocument } from '../../services/markup/markup.service';
import { isSafeGitPath, queryUnescape, webPathFromRequest, webPathToGitPath, webPathToTitle } from '../../services/wiki/wiki-path';
import { wikiHead, wikiRepo, type WikiRepo } from '../../services/wiki/wiki-repo';
import { findPage, getPage, listPages, pageRevisions, REVISIONS_PER_PAGE, wikiCommitOr404 } from '../../services/wiki/wiki-read.service';
import { addPage, deletePage, editPage } from '../../services/wiki/wiki-write.service';
import { flashOutcome, requireCsrf, unlessRefused } from './context';
import { renderPage } from './render';
import { repoHeader } from './repo';
import { page, pageNumber, repoHome, signedIn } from './route';

const PAGES_PER_LIST = 50;
// why: a web path's escapes are part of the page's name, so it is taken from the URL before Express
// unescapes it into req.params.
const WIKI_PATH = /^\/[^/?#]+\/[^/?#]+\/wiki\/([^?#]*)/;

/** The web path the request names after `/wiki/` and the route's fixed `prefix` ('' for the wiki's root). */
function webPathOf(req: Request, prefix = ''): string {
  return webPathFromRequest((WIKI_PATH.exec(req.url)?.[1] ?? '').slice(prefix.length));
}

const wikiOf = (req: Request, need: 'read' | 'write' = 'read') => wikiRepo(ctxOf(req), req.principal, String(req.params.owner), String(req.params.repo), need);
const wikiBase = (w: WikiRepo) => `${repoHome(w)}/wiki`;
const decode = (base64: string) => Buffer.from(base64, 'base64').toString('utf8');
const missing = (err: unknown) => (err instanceof HttpError && err.status === 404 ? null : Promise.reject(err));

/** May the caller change this wiki (Gitea's CanWriteWiki)? */
function canEdit(req: Request, w: WikiRepo): boolean {
  return !!req.principal.user && !w.repo.isArchived && w.perm.can(UnitType.Wiki, AccessMode.Write);
}

/** A wiki text as HTML: `[[Links]]` and relative links point into the wiki, images to its raw files. */
function wikiHtml(req: Request, w: WikiRepo, text: string): Promise<string> {
  const root = settings().server.rootUrl;
  return renderDocument(ctxOf(req), req.principal, { mode: 'wiki', text, links: { app: root, repo: `${root}${w.owner.name}/${w.repo.name}` } }, w);
}

/** What every wiki view shows: the repository header, the wiki's links and clone URL, the writer's rights. */
async function frame(req: Request, w: WikiRepo) {
  const header = await repoHeader(req, w, 'wiki');
  return { ...header, wikiBase: wikiBase(w), canEdit: canEdit(req, w), cloneUrl: header.repo.clone_url.replace(/\.git$/, '.wiki.git') };
}

const titleOf = (w: WikiRepo, what: string) => `${what} - Wiki - ${w.owner.name}/${w.repo.name}`;

/** The welcome of a wiki without pages. */
async function start(req: Request, res: Response, w: WikiRepo): Promise<void> {
  await renderPage(req, res, 'wiki/start', titleOf(w, 'Welcome'), await frame(req, w));
}

/** One page with its sidebar and footer, or a 404 that offers writers to create it. */
async function showPage(req: Request, res: Response, w: WikiRepo, wp: string): Promise<void> {
  const p = await getPage(w, wp).catch(missing);
  if (!p) return renderPage(req, res, 'wiki/missing', titleOf(w, webPathToTitle(wp)), { ...(await frame(req, w)), title: webPathToTitle(wp) }, 404);
  const [html, sidebar, footer] = await Promise.all([
    wikiHtml(req, w, decode(p.content_base64)),
    p.sidebar ? wikiHtml(req, w, decode(p.sidebar)) : null,
    p.footer ? wikiHtml(req, w, decode(p.footer)) : null,
  ]);
  await renderPage(req, res, 'wiki/view', titleOf(w, p.title), { ...(await frame(req, w)), wiki: p, html, sidebar, footer });
}

/** A page's revisions, REVISIONS_PER_PAGE at a time. */
async function showRevisions(req: Request, res: Response, w: WikiRepo, wp: string): Promise<void> {
  const pageNo = pageNumber(req);
  const { commits, count } = await pageRevisions(w, wp, { offset: (pageNo - 1) * REVISIONS_PER_PAGE, limit: REVISIONS_PER_PAGE });
  await renderPage(req, res, 'wiki/revisions', titleOf(w, `Revisions of ${webPathToTitle(wp)}`), {
    ...(await frame(req, w)), title: webPathToTitle(wp), wp, commits, count, pageNo, pages: Math.max(1, Math.ceil(count / REVISIONS_PER_PAGE)),
  });
}

/** A page being written: what the form holds. */
interface Draft { title: string; content: string; message: string }

/** The new-page form, or the edit form of page `editing`, with a preview when one was asked for. */
async function pageForm(req: Request, res: Response, w: WikiRepo, editing: string | null, draft: Draft, preview: string | null = null, status = 200): Promise<void> {
  const action = editing === null ? `${wikiBase(w)}/_new` : `${wikiBase(w)}/${editing}?action=_edit`;
  await renderPage(req, res, 'wiki/form', titleOf(w, editing === null ? 'New page' : `Edit ${webPathToTitle(editing)}`), {
    ...(await frame(req, w)), action, editing: editing !== null, draft, preview,
  }, status);
}

/** The form's fields. */
function draftOf(req: Request): Draft {
  const b = req.body as Record<string, string>;
  // why: a browser sends a textarea's line breaks as CRLF; the wiki keeps LF, as pages pushed with git have.
  return { title: b.title ?? '', content: (b.content ?? '').replace(/\r\n/g, '\n'), message: b.message ?? '' };
}

/** The form's Preview (null on its Write tab): nothing is saved either way. */
function previewOf(req: Request, w: WikiRepo, draft: Draft): Promise<string | null> {
  return req.body.action === 'preview' ? wikiHtml(req, w, draft.content) : Promise.resolve(null);
}

/**
 * The tree entry `/wiki/raw/{wp}` names, as Gitea's WikiRaw finds it: the page's file (or the file
 * a `.md` path names), else the path itself, each also query-unescaped (files in subdirectories).
 */
async function rawEntry(w: WikiRepo, commit: string, wp: string): Promise<TreeEntry | null> {
  const found = await findPage(w.gitDir, commit, wp);
  if (found) return found.entry;
  const file = webPathToGitPath(wp).replace(/\.md$/, '');
  const alt = queryUnescape(file);
  const candidates = [file, ...(alt !== null && alt !== file ? [alt] : [])].filter((p) => isSafeGitPath(p, false));
  const entries = await entriesAt(w.gitDir, commit, candidates);
  return candidates.map((p) => entries.get(p)).find((e) => e?.type === 'blob') ?? null;
}

/** Stream a wiki file with the headers of the repository's raw files (never active content). */
async function sendWikiFile(req: Request, res: Response, w: WikiRepo, e: TreeEntry): Promise<void> {
  const name = e.path.slice(e.path.lastIndexOf('/') + 1);
  const small = e.size <= 64 * 1024;
  const head = small ? await readBlob(w.gitDir, e.oid) : await readBlobHead(w.gitDir, e.oid, 1024);
  let body: Readable = Readable.from([head]);
  if (!small) {
    const child = streamBlob(w.gitDir, e.oid);
    child.stderr.resume();
    body = child.stdout;
  }
  sendRawFile(req, res, { status: 200, headers: serveHeaders(name, head.subarray(0, 1024), e.size, e.oid, contentType(e)), body });
}

/** Wiki routes (mounted before the repository's catch-all routes). */
export function wikiPages(): Router {
  const r = express.Router();
  const csrf = requireCsrf();
  const wiki = '/:owner/:repo/wiki';

  r.get(`${wiki}/raw/*`, page(async (req, res) => {
    const w = await wikiOf(req);
    const e = await rawEntry(w, await wikiCommitOr404(w), webPathOf(req, 'raw/'));
    if (!e) throw new NotFound();
    await sendWikiFile(req, res, w, e);
  }));

  r.get(`${wiki}/_pages`, page(async (req, res) => {
    const w = await wikiOf(req);
    if (!(await wikiHead(w))) return start(req, res, w);
    const pageNo = pageNumber(req);
    const { pages, total } = await listPages(w, { offset: (pageNo - 1) * PAGES_PER_LIST, limit: PAGES_PER_LIST });
    await renderPage(req, res, 'wiki/pages', titleOf(w, 'Pages'), { ...(await frame(req, w)), wikiPages: pages, pageNo, pages: Math.max(1, Math.ceil(total / PAGES_PER_LIST)) });
  }));

  r.get(`${wiki}/_new`, page(async (req, res) => {
    if (!signedIn(req, res)) return;
    const w = await wikiOf(req);
    if (!canEdit(req, w)) throw new NotFound();
    // why: as Gitea, the first page of a wiki is offered as Home.
    const title = typeof req.query.title === 'string' ? req.query.title : (await wikiHead(w)) ? '' : 'Home';
    await pageForm(req, res, w, null, { title, content: '', message: '' });
  }));

  r.post(`${wiki}/_new`, ...formBody('1mb'), csrf, page(async (req, res) => {
    if (!signedIn(req, res)) return;
    const w = await wikiOf(req, 'write');
    const draft = draftOf(req);
    if (req.body.action === 'preview' || req.body.action === 'write') return pageForm(req, res, w, null, draft, await previewOf(req, w, draft));
    const wp = await unlessRefused(req, () => {
      if (draft.title.trim() === '') throw new BadRequest('A page needs a title.');
      return addPage(w, doerOf(req), draft.title, Buffer.from(draft.content, 'utf8'), draft.message);
    }, (status) => pageForm(req, res, w, null, draft, null, status));
    if (wp !== null) res.redirect(303, `${wikiBase(w)}/${wp}`);
  }));

  const view = page(async (req, res) => {
    const w = await wikiOf(req);
    const action = req.query.action;
    // why: Gitea's own links name these two as `/wiki/?action=...`.
    if (action === '_pages' || action === '_new') return res.redirect(`${wikiBase(w)}/${action}`);
    if (!(await wikiHead(w))) return start(req, res, w);
    const wp = webPathOf(req) || 'Home';
    if (action === '_revision') return showRevisions(req, res, w, wp);
    if (action !== '_edit') return showPage(req, res, w, wp);
    if (!signedIn(req, res)) return;
    if (!canEdit(req, w)) throw new NotFound();
    const found = await findPage(w.gitDir, await wikiCommitOr404(w), wp);
    // why: the wiki service reads no text past [api] DEFAULT_MAX_BLOB_SIZE; an empty form saved would wipe the page.
    if (found && found.entry.size > settings().api.defaultMaxBlobSize) throw new HttpError(413, 'this page is too large to edit in the browser: clone the wiki to change it');
    const p = await getPage(w, wp);
    await pageForm(req, res, w, wp, { title: p.title, content: decode(p.content_base64), message: '' });
  });
  r.get(wiki, view);
  r.get(`${wiki}/*`, view);

  r.post(`${wiki}/*`, ...formBody('1mb'), csrf, page(async (req, res) => {
    if (!signedIn(req, res)) return;
    const w = await wikiOf(req, 'write');
    const wp = webPathOf(req) || 'Home';
    if (req.query.action === '_delete') {
      await flashOutcome(req, () => deletePage(w, doerOf(req), wp), () => `The page "${webPathToTitle(wp)}" is deleted.`);
      return res.redirect(303, `${wikiBase(w)}/_pages`);
    }
    if (req.query.action !== '_edit') throw new NotFound();
    const draft = draftOf(req);
    if (req.body.action === 'preview' || req.body.action === 'write') return pageForm(req, res, w, wp, draft, await previewOf(req, w, draft));
    // why: an unchanged title keeps the page's file as it is, even one named in an older spelling.
    const title = draft.title.trim() === webPathToTitle(wp) ? '' : draft.title;
    const saved = await unlessRefused(req, () => editPage(w, doerOf(req), wp, title, Buffer.from(draft.content, 'utf8'), draft.message),
      (status) => pageForm(req, res, w, wp, draft, null, status));
    if (saved !== null) res.redirect(303, `${wikiBase(w)}/${saved}`);
  }));
  return r;
}
