/**
 * Pull request pages: the list, the new pull request form, and a pull request's conversation (its
 * timeline, reviews, review requests and the merge box offering the allowed styles and saying why a
 * merge is blocked), commits and files changed (the diff, a review with a verdict, and comments on
 * lines). Each action calls the service the API's handler calls.
 */
import express, { type Request, type Router } from 'express';
import { Validation } from '../../errors';
import { toPullRequest } from '../../convert/pull';
import { toTimelineComment } from '../../convert/issue';
import { ctxOf, doerOf, viewerOf } from '../../middleware/context';
import { formBody } from '../../middleware/input-guard';
import { readCapped } from '../../middleware/upload';
import { canWriteIssues } from '../../services/issue/access';
import { timeline } from '../../services/issue/timeline.service';
import { renderComments } from '../../services/markup/markup.service';
import { pullCommits, pullDiff, pullFiles } from '../../services/pull/diff.service';
import { mergeBox, mergePull } from '../../services/pull/merge.service';
import { createPull, getPull, listPulls, newPullTarget } from '../../services/pull/pull.service';
import { changeReviewRequests } from '../../services/pull/review-request.service';
import { createPullReview, listPullReviews } from '../../services/pull/review.service';
import type { RepoContext } from '../../services/repo/context';
import { parseDiff, type DiffFile } from './diff';
import { WeightedLru } from '../../git/lru';
import { flashOutcome, requireCsrf, unlessRefused } from './context';
import { sidebarData } from './issue-sidebar';
import { renderFragment, renderPage } from './render';
import { PageSlots } from './slots';
import { listState, page, pageIndex, pageNumber, pageRepo, repoHome, signedIn } from './route';

const PAGE_SIZE = 20;
// why: as Gitea's [git] MAX_GIT_DIFF_FILES, a page shows the diffs of this many files; the list names them all.
const DIFF_FILES_PER_PAGE = 100;
// why: a page holds at most this much diff; past it the files are listed without their lines.
const MAX_PAGE_DIFF_BYTES = 4 * 1024 * 1024;
/** A diff's files with their tables as HTML. */
type ShownFile = Omit<DiffFile, 'lines'> & { html: string };
// why: the diff of two commits never changes; its tables (tens of thousands of rows for a large
// pull request) are made once per pair of commits and kept, weighed by their size.
const shownDiffs = new WeightedLru<ShownFile[]>(64 * 1024 * 1024, (fs) => fs.reduce((n, f) => n + f.html.length + 200, 0));

/** What every tab of a pull request shows at its top. */
async function pullHead(req: Request, rc: RepoContext, index: number, tab: string) {
  const pull = toPullRequest(await getPull(ctxOf(req), req.principal, rc, index), viewerOf(req));
  return { base: repoHome(rc), pull, tab, canWrite: canWriteIssues(rc, true), signedIn: !!req.principal.user };
}

/** Pull request routes. */
export function pullPages(): Router {
  const r = express.Router();
  const csrf = requireCsrf();
  const repo = '/:owner/:repo';

  r.get(`${repo}/pulls`, page(async (req, res) => {
    const rc = await pageRepo(req);
    const state = listState(req);
    const pageNo = pageNumber(req);
    const { items, total } = await listPulls(ctxOf(req), req.principal, rc, { isClosed: state === 'all' ? undefined : state === 'closed' }, { limit: PAGE_SIZE, offset: (pageNo - 1) * PAGE_SIZE });
    await renderPage(req, res, 'pulls/list', `Pull requests - ${rc.owner.name}/${rc.repo.name}`, {
      base: repoHome(rc), repoName: `${rc.owner.name}/${rc.repo.name}`, pulls: items.map((v) => toPullRequest(v, viewerOf(req))), state, total, pageNo, pages: Math.max(1, Math.ceil(total / PAGE_SIZE)),
      pagerQuery: `state=${state}`,
    });
  }));

  r.get(`${repo}/pulls/new`, page(async (req, res) => {
    if (!signedIn(req, res)) return;
    const rc = await pageRepo(req);
    await renderPage(req, res, 'pulls/new', `New pull request - ${rc.owner.name}/${rc.repo.name}`, {
      base: repoHome(rc), baseBranch: String(req.query.base ?? rc.repo.defaultBranch), headBranch: String(req.query.head ?? ''), title: '', body: '',
    });
  }));

  // why: the link `git push` prints for a new branch (Gitea's /pulls/new/{branch}); a fork's branch proposes to its parent.
  r.get(`${repo}/pulls/new/*`, page(async (req, res) => {
    const rc = await pageRepo(req);
    const t = await newPullTarget(ctxOf(req), req.principal, rc, String(req.params[0] ?? ''));
    const q = new URLSearchParams({ base: t.base, head: t.head });
    res.redirect(303, `${repoHome({ owner: { name: t.owner }, repo: { name: t.repo } })}/pulls/new?${q}`);
  }));

  r.post(`${repo}/pulls/new`, ...formBody('1mb'), csrf, page(async (req, res) => {
    if (!signedIn(req, res)) return;
    const rc = await pageRepo(req);
    const b = req.body as Record<string, string>;
    const v = await unlessRefused(req, () => createPull(ctxOf(req), doerOf(req), req.principal, rc, { base: b.base, head: b.head, title: b.title, body: b.content }),
      (status) => renderPage(req, res, 'pulls/new', `New pull request - ${rc.owner.name}/${rc.repo.name}`, {
        base: repoHome(rc), baseBranch: b.base ?? '', headBranch: b.head ?? '', title: b.title ?? '', body: b.content ?? '',
      }, status));
    if (v) res.redirect(303, `${repoHome(rc)}/pulls/${v.issue.row.index}`);
  }));

  r.get(`${repo}/pulls/:index`, page(async (req, res) => {
    const rc = await pageRepo(req);
    const index = pageIndex(req);
    const head = await pullHead(req, rc, index, 'conversation');
    const events = (await timeline(ctxOf(req), req.principal, rc, index, {})).map((t) => toTimelineComment(t, viewerOf(req)));
    const commented = events.filter((e) => (e.type === 'comment' || e.type === 'review') && e.body);
    const rendered = await renderComments(ctxOf(req), req.principal, rc, [head.pull.body, ...commented.map((e) => e.body)]);
    const slots = new PageSlots();
    const html = Object.fromEntries(commented.map((e, k) => [e.id, slots.put(rendered[k + 1])]));
    const { reviews } = await listPullReviews(ctxOf(req), req.principal.user, rc, index);
    const box = req.principal.user ? await mergeBox(ctxOf(req), req.principal.user, rc, index) : null;
    await renderPage(req, res, 'pulls/view', `${head.pull.title} - #${index} - ${rc.owner.name}/${rc.repo.name}`, {
      ...head, events, html, bodyHtml: head.pull.body ? slots.put(rendered[0]) : '', box,
      reviews: reviews.map((v) => ({ id: v.id, type: v.type, reviewer: v.reviewerId })), side: await sidebarData(req, rc, index, true),
    }, 200, slots);
  }));

  r.get(`${repo}/pulls/:index/commits`, page(async (req, res) => {
    const rc = await pageRepo(req);
    const index = pageIndex(req);
    const head = await pullHead(req, rc, index, 'commits');
    const list = await pullCommits(ctxOf(req), rc, index, { skip: 0, limit: 250 }, { stat: false, files: false, verification: false });
    await renderPage(req, res, 'pulls/commits', `Commits - ${head.pull.title}`, { ...head, commits: list.commits, total: list.total });
  }));

  r.get(`${repo}/pulls/:index/files`, page(async (req, res) => {
    const rc = await pageRepo(req);
    const index = pageIndex(req);
    const head = await pullHead(req, rc, index, 'files');
    const key = `${rc.repo.id}\0${head.pull.merge_base}\0${head.pull.head.sha}`;
    let files: ShownFile[] | null | undefined = shownDiffs.get(key);
    if (!files) {
      const text = (await readCapped(await pullDiff(ctxOf(req), rc, index, 'diff', false), MAX_PAGE_DIFF_BYTES))?.toString('utf8') ?? null;
      files = text === null ? null : parseDiff(text).map(({ lines, ...f }) => ({ ...f, html: renderFragment('pulls/diff-table', { lines }) }));
      if (files) shownDiffs.set(key, files);
    }
    const listed = files ? null : (await pullFiles(ctxOf(req), rc, index, {})).files;
    const pageNo = pageNumber(req);
    const pages = Math.max(1, Math.ceil((files?.length ?? 0) / DIFF_FILES_PER_PAGE));
    await renderPage(req, res, 'pulls/files', `Files changed - ${head.pull.title}`, {
      ...head, all: files, files: files?.slice((pageNo - 1) * DIFF_FILES_PER_PAGE, pageNo * DIFF_FILES_PER_PAGE) ?? null, listed, pageNo, pages, perPage: DIFF_FILES_PER_PAGE,
    });
  }));

  r.post(`${repo}/pulls/:index/reviews`, ...formBody('1mb'), csrf, page(async (req, res) => {
    if (!signedIn(req, res)) return;
    const rc = await pageRepo(req);
    const index = pageIndex(req);
    const b = req.body as Record<string, string>;
    const line = Number(b.line);
    const comments = b.path && b.line_comment?.trim() ? [{ path: b.path, body: b.line_comment, ...(b.side === 'old' ? { old_position: line } : { new_position: line }) }] : [];
    const event = b.path ? 'COMMENT' : b.event;
    await flashOutcome(req, async () => {
      if (b.path && (!Number.isInteger(line) || line < 1)) throw new Validation('a line comment needs the number of a line of the diff');
      await createPullReview(ctxOf(req), doerOf(req), rc, index, { body: b.content ?? '', event, comments });
    }, () => (b.path ? 'The comment is added.' : 'Your review is submitted.'));
    res.redirect(303, `${repoHome(rc)}/pulls/${index}${b.path ? '/files' : ''}`);
  }));

  r.post(`${repo}/pulls/:index/merge`, ...formBody(), csrf, page(async (req, res) => {
    if (!signedIn(req, res)) return;
    const rc = await pageRepo(req);
    const index = pageIndex(req);
    const b = req.body as Record<string, string>;
    await flashOutcome(
      req,
      () => mergePull(ctxOf(req), doerOf(req), req.principal, rc, index, { Do: b.style as never, MergeTitleField: b.title || undefined, MergeMessageField: b.message || undefined, delete_branch_after_merge: b.delete_branch === 'on' }),
      (done) => (done === 'scheduled' ? 'The merge is scheduled for when the checks succeed.' : 'The pull request is merged.'),
    );
    res.redirect(303, `${repoHome(rc)}/pulls/${index}`);
  }));

  r.post(`${repo}/pulls/:index/requested_reviewers`, ...formBody(), csrf, page(async (req, res) => {
    if (!signedIn(req, res)) return;
    const rc = await pageRepo(req);
    const index = pageIndex(req);
    const b = req.body as Record<string, string>;
    await flashOutcome(
      req,
      () => changeReviewRequests(ctxOf(req), doerOf(req), rc, index, { reviewers: [b.reviewer ?? ''] }, b.action !== 'remove'),
      () => (b.action === 'remove' ? `The review request of ${b.reviewer} is removed.` : `A review is requested from ${b.reviewer}.`),
    );
    res.redirect(303, `${repoHome(rc)}/pulls/${index}`);
  }));
  return r;
}
