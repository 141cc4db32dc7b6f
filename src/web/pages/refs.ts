/**
 * Branches, tags and releases pages: lists with their commits, creating and deleting branches and
 * tags, and releases with their notes rendered, their assets (uploaded from the form, streamed to
 * the same store as the API's) and the forms to write, edit and delete them. Each action calls the
 * service the API's handler calls, so the same rules and refusals apply.
 */
import express, { type Request, type Response, type Router } from 'express';
import { settings } from '../../config';
import { NotFound } from '../../errors';
import { toRelease } from '../../convert/release';
import { ctxOf, doerOf } from '../../middleware/context';
import { formBody } from '../../middleware/input-guard';
import { repoUrls } from '../../services/content/view';
import { canWrite, UnitType } from '../../services/repo/access';
import { createBranch, deleteBranch, divergence, listBranches } from '../../services/refs/branch.service';
import { createTag, deleteTag, listTags } from '../../services/refs/tag.service';
import { assertCanUpload, createAsset, deleteAsset } from '../../services/release/attachment.service';
import { createRelease, deleteRelease, editRelease, getRelease, getReleaseByTag, listReleases, type ReleaseView } from '../../services/release/release.service';
import { renderComments } from '../../services/markup/markup.service';
import type { RepoContext } from '../../services/repo/context';
import { flashOutcome, formUpload, requireCsrf } from './context';
import { renderPage } from './render';
import { PageSlots } from './slots';
import { repoHeader } from './repo';
import { page, pageNumber, pageRepo, repoHome, signedIn } from './route';

const PAGE_SIZE = 20;
const rest = (req: Request) => String((req.params as unknown as Record<string, string>)[0] ?? '');

/** Releases as the API shows them, with their notes rendered as comments are. */
async function releaseViews(req: Request, rc: RepoContext, views: ReleaseView[], slots: PageSlots) {
  const root = settings().server.rootUrl;
  const notes = await renderComments(ctxOf(req), req.principal, rc, views.map((v) => v.row.note));
  return views.map((v, k) => ({ ...toRelease(v.row, repoUrls(root, rc.owner.name, rc.repo.name), v.publisher, v.assets, root), html: slots.put(notes[k]) }));
}

/** The release form's fields as the release services read them. */
function releaseOption(body: Record<string, string>) {
  return { tag_name: body.tag_name ?? '', target_commitish: body.target || undefined, name: body.title ?? '', body: body.content ?? '', draft: body.draft === 'on', prerelease: body.prerelease === 'on' };
}

/** Branch, tag and release routes. */
export function refPages(): Router {
  const r = express.Router();
  const csrf = requireCsrf();
  const repo = '/:owner/:repo';
  /** A form action that redirects back to `back` with its outcome as a flash. */
  const action = (path: string, run: (req: Request, rc: RepoContext, body: Record<string, string>) => Promise<unknown>, done: string, back: (rc: RepoContext) => string) => {
    r.post(`${repo}/${path}`, ...formBody('1mb'), csrf, page(async (req, res) => {
      if (!signedIn(req, res)) return;
      const rc = await pageRepo(req);
      await flashOutcome(req, () => run(req, rc, req.body as Record<string, string>), () => done);
      res.redirect(303, back(rc));
    }));
  };

  r.get(`${repo}/branches`, page(async (req, res) => {
    const rc = await pageRepo(req);
    const pageNo = pageNumber(req);
    const { items, total } = await listBranches(ctxOf(req), rc, req.principal.user, { limit: PAGE_SIZE, offset: (pageNo - 1) * PAGE_SIZE });
    await renderPage(req, res, 'repo/branches', `Branches - ${rc.owner.name}/${rc.repo.name}`, {
      ...(await repoHeader(req, rc, 'branches')), branches: items, total, pageNo, pages: Math.max(1, Math.ceil(total / PAGE_SIZE)),
      counts: await divergence(rc, items), canPropose: !!req.principal.user && !rc.repo.isArchived,
      canWrite: canWrite(rc, UnitType.Code) && !rc.repo.isArchived && !!req.principal.user,
    });
  }));
  const branches = (rc: RepoContext) => `${repoHome(rc)}/branches`;
  action('branches/new', (req, rc, b) => createBranch(ctxOf(req), doerOf(req), rc, { new_branch_name: b.name ?? '', old_ref_name: b.from || undefined }), 'The branch is created.', branches);
  action('branches/delete', (req, rc, b) => deleteBranch(ctxOf(req), doerOf(req), rc, b.name ?? ''), 'The branch is deleted.', branches);

  r.get(`${repo}/tags`, page(async (req, res) => {
    const rc = await pageRepo(req);
    const pageNo = pageNumber(req);
    const { items, total } = await listTags(ctxOf(req), rc, { limit: PAGE_SIZE, offset: (pageNo - 1) * PAGE_SIZE });
    await renderPage(req, res, 'repo/tags', `Tags - ${rc.owner.name}/${rc.repo.name}`, {
      ...(await repoHeader(req, rc, 'tags')), tags: items, total, pageNo, pages: Math.max(1, Math.ceil(total / PAGE_SIZE)),
      canWrite: canWrite(rc, UnitType.Code) && !rc.repo.isArchived && !!req.principal.user,
    });
  }));
  const tags = (rc: RepoContext) => `${repoHome(rc)}/tags`;
  action('tags/new', (req, rc, b) => createTag(ctxOf(req), doerOf(req), rc, { tag_name: b.name ?? '', target: b.target || undefined, message: b.message || undefined }), 'The tag is created.', tags);
  action('tags/delete', (req, rc, b) => deleteTag(ctxOf(req), doerOf(req), rc, b.name ?? ''), 'The tag is deleted.', tags);

  const showReleases = async (req: Request, res: Response, rc: RepoContext, views: ReleaseView[], total: number, single: boolean) => {
    const pageNo = pageNumber(req);
    const slots = new PageSlots();
    await renderPage(req, res, 'repo/releases', `Releases - ${rc.owner.name}/${rc.repo.name}`, {
      ...(await repoHeader(req, rc, 'releases')), releases: await releaseViews(req, rc, views, slots), single, total, pageNo, pages: Math.max(1, Math.ceil(total / PAGE_SIZE)),
      canWrite: canWrite(rc, UnitType.Releases) && !rc.repo.isArchived && !!req.principal.user, uploads: settings().attachment.enabled,
    }, 200, slots);
  };
  r.get(`${repo}/releases`, page(async (req, res) => {
    const rc = await pageRepo(req);
    const pageNo = pageNumber(req);
    const { items, total } = await listReleases(ctxOf(req), rc, {}, { limit: PAGE_SIZE, offset: (pageNo - 1) * PAGE_SIZE });
    await showReleases(req, res, rc, items, total, false);
  }));
  r.get(`${repo}/releases/tag/*`, page(async (req, res) => {
    const rc = await pageRepo(req);
    await showReleases(req, res, rc, [await getReleaseByTag(ctxOf(req), rc, rest(req))], 1, true);
  }));

  const releaseForm = async (req: Request, res: Response, rc: RepoContext, values: Record<string, unknown>, status = 200) => renderPage(req, res, 'repo/release-form', `Release - ${rc.owner.name}/${rc.repo.name}`, {
    ...(await repoHeader(req, rc, 'releases')), values,
  }, status);
  r.get(`${repo}/releases/new`, page(async (req, res) => {
    if (!signedIn(req, res)) return;
    const rc = await pageRepo(req);
    if (!canWrite(rc, UnitType.Releases)) throw new NotFound();
    await releaseForm(req, res, rc, { id: 0, tag_name: typeof req.query.tag === 'string' ? req.query.tag : '', target: rc.repo.defaultBranch, title: '', content: '', draft: false, prerelease: false });
  }));
  r.get(`${repo}/releases/edit/:id`, page(async (req, res) => {
    if (!signedIn(req, res)) return;
    const rc = await pageRepo(req);
    const v = await getRelease(ctxOf(req), rc, Number(req.params.id) || 0);
    if (!canWrite(rc, UnitType.Releases)) throw new NotFound();
    await releaseForm(req, res, rc, { id: v.row.id, tag_name: v.row.tagName, target: v.row.target, title: v.row.title, content: v.row.note, draft: v.row.isDraft, prerelease: v.row.isPrerelease });
  }));
  const releases = (rc: RepoContext) => `${repoHome(rc)}/releases`;
  action('releases/new', (req, rc, b) => createRelease(ctxOf(req), doerOf(req), rc, releaseOption(b)), 'The release is published.', releases);
  action('releases/edit/:id', (req, rc, b) => editRelease(ctxOf(req), doerOf(req), rc, Number(req.params.id) || 0, releaseOption(b)), 'The release is saved.', releases);
  action('releases/:id/delete', (req, rc) => deleteRelease(ctxOf(req), doerOf(req), rc, Number(req.params.id) || 0), 'The release is deleted.', releases);
  action('releases/:id/assets/:asset/delete', (req, rc) => deleteAsset(ctxOf(req), rc, Number(req.params.id) || 0, Number(req.params.asset) || 0), 'The file is deleted.', releases);
  r.post(`${repo}/releases/:id/assets`, page(async (req, res) => {
    if (!signedIn(req, res)) return;
    const rc = await pageRepo(req);
    const ctx = ctxOf(req);
    await flashOutcome(req, async () => {
      const rel = await assertCanUpload(ctx, rc, Number(req.params.id) || 0);
      return formUpload(req, 'attachment', (filename, data) => createAsset(ctx, doerOf(req), rc, rel, filename, data));
    }, (a) => `${a.name} is uploaded.`);
    res.redirect(303, releases(rc));
  }));
  return r;
}
