/**
 * Issue pages: the list with its filters, the new-issue form with Gitea's template chooser (no
 * blank issue when `blank_issues_enabled` is false and templates exist), and the issue page: the
 * body and the timeline rendered, a comment form with a server-rendered Preview, close and reopen,
 * pin and unpin, and the stopwatch with separate Start and Stop actions. Every action calls the
 * service the API's handler calls, so the same permissions and refusals apply.
 */
import express, { type Request, type Response, type Router } from 'express';
import { settings } from '../../config';
import { Validation } from '../../errors';
import { toIssueOf, toTimelineComment } from '../../convert/issue';
import { CommentType } from '../../models/comment.model';
import { ctxOf, doerOf, viewerOf } from '../../middleware/context';
import { formBody } from '../../middleware/input-guard';
import { canWriteIssues } from '../../services/issue/access';
import { createComment } from '../../services/issue/comment.service';
import { editIssue } from '../../services/issue/issue-edit.service';
import { createIssue, getIssue, listIssues } from '../../services/issue/issue.service';
import { listLabels, repoOwner, usableLabels } from '../../services/issue/label.service';
import { listMilestones } from '../../services/issue/milestone.service';
import { pinIssue, unpinIssue } from '../../services/issue/pin.service';
import { blankIssueAllowed, listIssueTemplates, loadIssueConfig } from '../../services/issue/template';
import { startStopwatch, stopStopwatch, stopwatchRunning } from '../../services/issue/time.service';
import { timeline } from '../../services/issue/timeline.service';
import { renderComments, renderDocument } from '../../services/markup/markup.service';
import type { RepoContext } from '../../services/repo/context';
import { flash, requireCsrf, saveIfDirty, unlessRefused } from './context';
import { projectEventTexts, sidebarData } from './issue-sidebar';
import { repoHeader } from './repo';
import { eventText } from './names';
import { renderPage } from './render';
import { PageSlots } from './slots';
import { listState, page, pageIndex, pageNumber, pageRepo, repoHome, signedIn } from './route';

const PAGE_SIZE = 20;


/** A comment's (or body's) HTML as Gitea renders comments: references to this repository, line breaks. */
function commentHtml(req: Request, rc: RepoContext, text: string): Promise<string> {
  return renderDocument(ctxOf(req), req.principal, { mode: 'comment', text, links: { app: settings().server.rootUrl, repo: `${settings().server.rootUrl}${rc.owner.name}/${rc.repo.name}` } }, rc, 'once');
}

/** The commit title a commit_ref entry's body (Gitea's `<a href=...>title</a>`) holds, as text. */
function commitTitleOf(body: string): string {
  const m = />([^<]*)<\/a>\s*$/.exec(body);
  const entities: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&#34;': '"', '&#39;': "'", '&quot;': '"' };
  return (m ? m[1] : '').replace(/&(amp|lt|gt|quot|#34|#39);/g, (e) => entities[e]);
}

/** The issue page's data. */
async function issuePage(req: Request, res: Response, rc: RepoContext, index: number, extra: { draft?: string; preview?: string | null } = {}, status = 200): Promise<void> {
  const ctx = ctxOf(req);
  const view = await getIssue(ctx, rc, index);
  if (view.row.isPull) return res.redirect(303, `${repoHome(rc)}/pulls/${index}`);
  const issue = toIssueOf(view, viewerOf(req));
  const views = await timeline(ctx, req.principal, rc, index, {});
  const events = views.map((t) => toTimelineComment(t, viewerOf(req)));
  // why: an entry a commit made links to the commit in its own repository (null when the reader may not read it).
  const commits = Object.fromEntries(views.filter((v) => v.commitRepo && v.row.commitSha).map((v) => [v.row.id, {
    url: `${v.commitRepo!.rootUrl}${encodeURIComponent(v.commitRepo!.owner)}/${encodeURIComponent(v.commitRepo!.repo)}/commit/${v.row.commitSha}`,
    short: v.row.commitSha.slice(0, 10), title: v.row.type === CommentType.CommitRef ? commitTitleOf(v.row.content) : '',
  }]));
  // why: a migrated entry whose author has no account here names the source's user, as Gitea shows it.
  const migratedAuthors = Object.fromEntries(views.filter((v) => v.row.originalAuthor).map((v) => [v.row.id, v.row.originalAuthor]));
  const commented = events.filter((e) => e.type === 'comment' && e.body);
  const rendered = await renderComments(ctx, req.principal, rc, [issue.body, ...commented.map((e) => e.body)]);
  const slots = new PageSlots();
  const html = new Map(commented.map((e, k) => [e.id, slots.put(rendered[k + 1])]));
  const user = req.principal.user;
  const running = user ? await stopwatchRunning(ctx, user, view.row.id) : false;
  await renderPage(req, res, 'issues/view', `${issue.title} - #${index} - ${rc.owner.name}/${rc.repo.name}`, {
    ...(await repoHeader(req, rc, 'issues')), issue, bodyHtml: issue.body ? slots.put(rendered[0]) : '', events, html: Object.fromEntries(html), commits, eventText, repoFullName: `${rc.owner.name}/${rc.repo.name}`,
    migratedAuthors, migratedFrom: rc.repo.originalUrl ? new URL(rc.repo.originalUrl).host : '',
    canWrite: canWriteIssues(rc, false), signedIn: !!user, running, pinned: issue.pin_order > 0, draft: extra.draft ?? '', preview: extra.preview ?? null,
    timetracking: settings().service.enableTimetracking, side: await sidebarData(req, rc, index, false), projectText: await projectEventTexts(req, views),
  }, status, slots);
}

/** Issue routes. */
export function issuePages(): Router {
  const r = express.Router();
  const csrf = requireCsrf();
  const repo = '/:owner/:repo';

  r.get(`${repo}/issues`, page(async (req, res) => {
    const rc = await pageRepo(req);
    const ctx = ctxOf(req);
    const state = listState(req);
    const q = typeof req.query.q === 'string' ? req.query.q.slice(0, 255) : '';
    const label = Math.max(0, Math.floor(Number(req.query.labels)) || 0);
    const milestone = Math.max(0, Math.floor(Number(req.query.milestone)) || 0);
    const pageNo = pageNumber(req);
    const { items, total } = await listIssues(ctx, rc, {
      type: 'issues', isClosed: state === 'all' ? undefined : state === 'closed', keyword: q || undefined,
      allLabelIds: label ? [label] : undefined, milestoneIds: milestone ? [milestone] : undefined,
    }, { limit: PAGE_SIZE, offset: (pageNo - 1) * PAGE_SIZE });
    // why: every link of the page (tabs, filters, pager) keeps the other filters.
    const filters = { q, labels: label || '', milestone: milestone || '' };
    const query = (over: Record<string, unknown>) => new URLSearchParams(Object.entries({ state, ...filters, ...over }).filter(([, v]) => v !== '').map(([k, v]): [string, string] => [k, String(v)])).toString();
    await renderPage(req, res, 'issues/list', `Issues - ${rc.owner.name}/${rc.repo.name}`, {
      ...(await repoHeader(req, rc, 'issues')), repoName: `${rc.owner.name}/${rc.repo.name}`, issues: items.map((v) => toIssueOf(v, viewerOf(req))), state, q, label, milestone,
      labels: await usableLabels(ctx, rc), milestones: (await listMilestones(ctx, rc, 'all', undefined)).rows.map((m) => ({ id: m.id, title: m.name })),
      stateQuery: (s: string) => query({ state: s }), total, pageNo, pages: Math.max(1, Math.ceil(total / PAGE_SIZE)), pagerQuery: query({}),
    });
  }));

  r.get(`${repo}/issues/new`, page(async (req, res) => {
    if (!signedIn(req, res)) return;
    const rc = await pageRepo(req);
    const { templates } = await listIssueTemplates(rc);
    const contactLinks = (await loadIssueConfig(rc)).config.contact_links ?? [];
    const chosen = typeof req.query.template === 'string' ? (templates ?? []).find((t) => t.file_name === req.query.template) : undefined;
    const blank = await blankIssueAllowed(ctxOf(req), rc);
    // why: as Gitea, the chooser is shown while there are templates or contact links (HasTemplatesOrContactLinks).
    if (!chosen && (templates?.length || contactLinks.length) && (req.query.template === undefined || !blank)) {
      return renderPage(req, res, 'issues/choose', `New issue - ${rc.owner.name}/${rc.repo.name}`, { ...(await repoHeader(req, rc, 'issues')), templates: templates ?? [], contactLinks, blank });
    }
    const body = chosen ? chosen.content || (chosen.body ?? []).filter((f) => f.type !== 'markdown').map((f) => `### ${String(f.attributes?.label ?? f.id)}\n\n`).join('') : '';
    await renderPage(req, res, 'issues/new', `New issue - ${rc.owner.name}/${rc.repo.name}`, {
      ...(await repoHeader(req, rc, 'issues')), title: chosen?.title ?? '', body, template: chosen?.file_name ?? '', preview: null,
    });
  }));

  r.post(`${repo}/issues/new`, ...formBody('1mb'), csrf, page(async (req, res) => {
    if (!signedIn(req, res)) return;
    const rc = await pageRepo(req);
    const body = req.body as Record<string, string>;
    const again = async (preview: string | null, status: number) => renderPage(req, res, 'issues/new', `New issue - ${rc.owner.name}/${rc.repo.name}`, {
      ...(await repoHeader(req, rc, 'issues')), title: body.title ?? '', body: body.content ?? '', template: body.template ?? '', preview,
    }, status);
    if (body.action === 'preview') return again(await commentHtml(req, rc, body.content ?? ''), 200);
    const { templates } = await listIssueTemplates(rc);
    const template = (templates ?? []).find((t) => t.file_name === body.template);
    if (!template && !(await blankIssueAllowed(ctxOf(req), rc))) throw new Validation('choose one of the issue templates: blank issues are disabled in this repository');
    // why: a template's labels go on the new issue in its own transaction; createIssue keeps them for writers only, as Gitea.
    const wanted = new Set((template?.labels ?? []).map((l) => l.toLowerCase()));
    const labels = wanted.size ? (await listLabels(ctxOf(req), repoOwner(rc), undefined)).rows.filter((l) => wanted.has(l.name.toLowerCase())).map((l) => l.id) : [];
    const created = await unlessRefused(req, () => createIssue(ctxOf(req), doerOf(req), rc, { title: body.title ?? '', body: body.content ?? '', labels }), (status) => again(null, status));
    if (created) res.redirect(303, `${repoHome(rc)}/issues/${created.row.index}`);
  }));

  r.get(`${repo}/issues/:index`, page(async (req, res) => issuePage(req, res, await pageRepo(req), pageIndex(req))));

  r.post(`${repo}/issues/:index/comments`, ...formBody('1mb'), csrf, page(async (req, res) => {
    if (!signedIn(req, res)) return;
    const rc = await pageRepo(req);
    const index = pageIndex(req);
    const body = req.body as Record<string, string>;
    const text = body.content ?? '';
    if (body.action === 'preview') return issuePage(req, res, rc, index, { draft: text, preview: await commentHtml(req, rc, text) });
    const done = await unlessRefused(req, async () => {
      if (text.trim() !== '') await createComment(ctxOf(req), doerOf(req), rc, index, text);
      if (body.action === 'close' || body.action === 'reopen') await editIssue(ctxOf(req), doerOf(req), rc, index, { state: body.action === 'close' ? 'closed' : 'open' });
      else if (text.trim() === '') throw new Validation('a comment needs some text');
      return true;
    }, (status) => issuePage(req, res, rc, index, { draft: text }, status));
    if (done) res.redirect(303, `${repoHome(rc)}/issues/${index}`);
  }));

  const action = (name: string, run: (req: Request, rc: RepoContext, index: number) => Promise<unknown>, done: string) => {
    r.post(`${repo}/issues/:index/${name}`, ...formBody(), csrf, page(async (req, res) => {
      if (!signedIn(req, res)) return;
      const rc = await pageRepo(req);
      const index = pageIndex(req);
      await run(req, rc, index);
      flash(req, 'success', done);
      await saveIfDirty(req);
      res.redirect(303, `${repoHome(rc)}/issues/${index}`);
    }));
  };
  action('pin', (req, rc, index) => pinIssue(ctxOf(req), doerOf(req), rc, index), 'The issue is pinned.');
  action('unpin', (req, rc, index) => unpinIssue(ctxOf(req), doerOf(req), rc, index), 'The issue is unpinned.');
  action('stopwatch/start', (req, rc, index) => startStopwatch(ctxOf(req), doerOf(req), rc, index), 'The stopwatch is running.');
  action('stopwatch/stop', (req, rc, index) => stopStopwatch(ctxOf(req), doerOf(req), rc, index), 'The stopwatch is stopped and its time is recorded.');
  return r;
}
