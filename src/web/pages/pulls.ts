/**
 * Pull request pages: the list, the new pull request form, and a pull request's conversation (its
 * timeline, reviews, review requests and the merge box offering the allowed styles and saying why a
 * merge is blocked), commits and files changed (the diff, a review with a verdict, and comments on
 * lines). Each action calls the service the API's handler calls.
 */
import { pipeline } from 'node:stream';
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
import { combinedStatus } from '../../services/history/status.service';
import { createPull, getPull, listPulls, newPullTarget } from '../../services/pull/pull.service';
import { changeReviewRequests } from '../../services/pull/review-request.service';
import { addPendingLineComment, createPullReview, dismissPullReview, listPullReviews, submitPullReview } from '../../services/pull/review.service';
import { codeConversations, markThread, replyToThread, type CodeThread, type Conversations } from '../../services/pull/conversation.service';
import { ReviewType, type ReviewModel } from '../../models/review.model';
import { isRepoAdmin } from '../../services/repo/access';
import { toUser } from '../../convert/user';
import { settings } from '../../config';
import type { RepoContext } from '../../services/repo/context';
import type { UserModel } from '../../models/user.model';
import { csrfToken } from '../../services/auth/session.service';
import { parseDiff } from './diff';
import { eventText, MERGE_STYLE_NAMES } from './names';
import { diffOf, diffTable, DIFF_FILES_PER_PAGE, pageTables, tableWith } from './diff-view';
import { flashOutcome, requireCsrf, unlessRefused } from './context';
import { projectEventTexts, sidebarData } from './issue-sidebar';
import { renderFragment, renderPage } from './render';
import { repoHeader } from './repo';
import { PageSlots } from './slots';
import { listState, page, pageIndex, pageNumber, pageRepo, repoHome, signedIn } from './route';

const PAGE_SIZE = 20;
// why: a page holds at most this much diff; past it the files are listed without their lines.
const MAX_PAGE_DIFF_BYTES = 4 * 1024 * 1024;

/** What a review's state reads as, in the timeline and the sidebar. */
const REVIEW_STATES: Record<number, { key: string; text: string; icon: string }> = {
  [ReviewType.Approve]: { key: 'approved', text: 'approved these changes', icon: 'check' },
  [ReviewType.Reject]: { key: 'changes', text: 'requested changes', icon: 'file-diff' },
  [ReviewType.Comment]: { key: 'commented', text: 'reviewed', icon: 'eye' },
  [ReviewType.Request]: { key: 'requested', text: 'was asked for a review', icon: 'dot-fill' },
  [ReviewType.Pending]: { key: 'pending', text: 'started a review', icon: 'eye' },
};

/**
 * Each thread as HTML, by the id of its first comment: its comments rendered, and the reply and
 * resolve forms for those who may use them; `context` adds the diff lines it was made on.
 */
async function threadHtml(req: Request, rc: RepoContext, index: number, posterId: number, conv: Conversations, threads: CodeThread[], context: boolean): Promise<Map<number, string>> {
  const comments = threads.flatMap((t) => t.comments);
  const bodies = await renderComments(ctxOf(req), req.principal, rc, comments.map((c) => c.content));
  const html = new Map(comments.map((c, k) => [c.id, bodies[k].toString()]));
  const user = req.principal.user;
  const root = settings().server.rootUrl;
  const canComment = !!user && !rc.repo.isArchived;
  const canResolve = canComment && (user!.id === posterId || canWriteIssues(rc, true));
  const out = new Map<number, string>();
  for (const t of threads) {
    const id = t.comments[0].id;
    const lines = context && t.comments[0].patch ? parseDiff(t.comments[0].patch)[0] : null;
    out.set(id, renderFragment('pulls/thread', {
      id, t, base: repoHome(rc), index, canComment, canResolve, csrf: req.web.session ? csrfToken(req.web.session) : '',
      context: lines ? diffTable(lines, false).html : '',
      comments: t.comments.map((c) => ({ id: c.id, user: conv.user(c.posterId) ? toUser(conv.user(c.posterId)!, viewerOf(req), root) : null, created: new Date(c.createdUnix * 1000), html: html.get(c.id) ?? '', pending: t.pending })),
      resolver: t.resolver?.name ?? null,
    }));
  }
  return out;
}

/** Each reviewer's latest state (a verdict, a comment review or an open request), for the sidebar. */
function reviewerStates(req: Request, reviews: ReviewModel[], user: (id: number) => UserModel | null) {
  const latest = new Map<number, ReviewModel>();
  for (const r of reviews) if (r.reviewerId > 0 && r.type !== ReviewType.Pending) latest.set(r.reviewerId, r);
  const root = settings().server.rootUrl;
  return [...latest.values()].flatMap((r) => {
    const u = user(r.reviewerId);
    return u ? [{ id: r.id, user: toUser(u, viewerOf(req), root), state: REVIEW_STATES[r.type], dismissed: r.dismissed, stale: r.stale, verdict: r.type === ReviewType.Approve || r.type === ReviewType.Reject }] : [];
  });
}

/** What every tab of a pull request shows at its top. */
async function pullHead(req: Request, rc: RepoContext, index: number, tab: string) {
  const pull = toPullRequest(await getPull(ctxOf(req), req.principal, rc, index), viewerOf(req));
  return { ...(await repoHeader(req, rc, 'pulls')), pull, pullTab: tab, canWrite: canWriteIssues(rc, true), signedIn: !!req.principal.user };
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
      ...(await repoHeader(req, rc, 'pulls')), repoName: `${rc.owner.name}/${rc.repo.name}`, pulls: items.map((v) => toPullRequest(v, viewerOf(req))), state, total, pageNo, pages: Math.max(1, Math.ceil(total / PAGE_SIZE)),
      pagerQuery: `state=${state}`,
    });
  }));

  // why: a pull request is opened from the compare page, which shows what it would bring; these
  // addresses (Gitea's, and the link `git push` prints for a new branch) lead there. A fork's
  // branch proposes to its parent.
  r.get(`${repo}/pulls/new`, page(async (req, res) => {
    const rc = await pageRepo(req);
    const base = String(req.query.base ?? '') || rc.repo.defaultBranch;
    res.redirect(303, `${repoHome(rc)}/compare/${encodeURI(base)}...${encodeURI(String(req.query.head ?? '') || base)}`);
  }));

  r.get(`${repo}/pulls/new/*`, page(async (req, res) => {
    const rc = await pageRepo(req);
    const t = await newPullTarget(ctxOf(req), req.principal, rc, String(req.params[0] ?? ''));
    res.redirect(303, `${repoHome({ owner: { name: t.owner }, repo: { name: t.repo } })}/compare/${encodeURI(t.base)}...${encodeURI(t.head)}`);
  }));

  r.post(`${repo}/pulls/new`, ...formBody('1mb'), csrf, page(async (req, res) => {
    if (!signedIn(req, res)) return;
    const rc = await pageRepo(req);
    const b = req.body as Record<string, string>;
    const v = await unlessRefused(req, () => createPull(ctxOf(req), doerOf(req), req.principal, rc, { base: b.base, head: b.head, title: b.title, body: b.content }),
      async (status) => renderPage(req, res, 'pulls/new', `New pull request - ${rc.owner.name}/${rc.repo.name}`, {
        ...(await repoHeader(req, rc, 'pulls')), baseBranch: b.base ?? '', headBranch: b.head ?? '', title: b.title ?? '', body: b.content ?? '',
      }, status));
    if (v) res.redirect(303, `${repoHome(rc)}/pulls/${v.issue.row.index}`);
  }));

  // The pull request as a diff or patch, byte for byte the API's.
  r.get(`${repo}/pulls/:index.:kind(diff|patch)`, page(async (req, res) => {
    const rc = await pageRepo(req);
    const body = await pullDiff(ctxOf(req), rc, pageIndex(req), req.params.kind as 'diff' | 'patch', false);
    res.type('text/plain; charset=utf-8').setHeader('X-Content-Type-Options', 'nosniff');
    pipeline(body, res, () => undefined);
  }));

  r.get(`${repo}/pulls/:index`, page(async (req, res) => {
    const rc = await pageRepo(req);
    const index = pageIndex(req);
    const head = await pullHead(req, rc, index, 'conversation');
    const views = await timeline(ctxOf(req), req.principal, rc, index, {});
    const events = views.map((t) => toTimelineComment(t, viewerOf(req)));
    const commented = events.filter((e) => (e.type === 'comment' || e.type === 'review' || e.type === 'dismiss_review') && e.body);
    const rendered = await renderComments(ctxOf(req), req.principal, rc, [head.pull.body, ...commented.map((e) => e.body)]);
    const slots = new PageSlots();
    const html = Object.fromEntries(commented.map((e, k) => [e.id, slots.put(rendered[k + 1])]));
    const conv = await codeConversations(ctxOf(req), req.principal.user, rc, index);
    const threads = await threadHtml(req, rc, index, head.pull.user.id, conv, conv.threads.filter((t) => !t.pending), true);
    // the threads each review started, shown under it in the timeline
    const byReview = new Map<number, string[]>();
    for (const t of conv.threads) {
      const h = threads.get(t.comments[0].id);
      if (h) byReview.set(t.comments[0].reviewId, [...(byReview.get(t.comments[0].reviewId) ?? []), slots.put(Buffer.from(h))]);
    }
    const reviewOf = new Map(conv.reviews.map((r) => [r.id, r]));
    const box = req.principal.user ? await mergeBox(ctxOf(req), req.principal.user, rc, index) : null;
    const checks = await combinedStatus(ctxOf(req), rc, head.pull.head.sha);
    await renderPage(req, res, 'pulls/view', `${head.pull.title} - #${index} - ${rc.owner.name}/${rc.repo.name}`, {
      ...head, events, html, bodyHtml: head.pull.body ? slots.put(rendered[0]) : '', box, styleNames: MERGE_STYLE_NAMES, eventText,
      // why: an Actions job's status links to its page by a path on the forge (as Gitea's), followed as such; never `//host`.
      checks: checks.latest.length ? { state: checks.state, list: checks.latest.map((c) => ({ state: c.state, context: c.context, description: c.description, url: /^https?:\/\//i.test(c.targetUrl) || /^\/(?![/\\])/.test(c.targetUrl) ? c.targetUrl : '' })) } : null,
      reviewState: (id: number) => REVIEW_STATES[reviewOf.get(id)?.type ?? ReviewType.Comment], reviewRow: (id: number) => reviewOf.get(id) ?? null,
      reviewThreads: (id: number) => byReview.get(id) ?? [],
      reviewers: reviewerStates(req, conv.reviews, conv.user), canDismiss: isRepoAdmin(rc) && !head.pull.merged && head.pull.state === 'open',
      side: await sidebarData(req, rc, index, true), projectText: await projectEventTexts(req, views),
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
    const split = req.query.style === 'split';
    const key = `${rc.repo.id}\0${head.pull.merge_base}\0${head.pull.head.sha}`;
    const files = await diffOf(key, async () => (await readCapped(await pullDiff(ctxOf(req), rc, index, 'diff', false), MAX_PAGE_DIFF_BYTES))?.toString('utf8') ?? null);
    const listed = files ? null : (await pullFiles(ctxOf(req), rc, index, {})).files;
    const pageNo = pageNumber(req);
    const pages = Math.max(1, Math.ceil((files?.length ?? 0) / DIFF_FILES_PER_PAGE));
    const shown = files ? pageTables(key, files, pageNo, split) : null;
    // the live threads of the shown files, each after its line
    const conv = await codeConversations(ctxOf(req), req.principal.user, rc, index);
    const paths = new Set(shown?.map((f) => f.newPath) ?? []);
    const live = conv.threads.filter((t) => !t.outdated && paths.has(t.path));
    const threads = await threadHtml(req, rc, index, head.pull.user.id, conv, live, false);
    const slots = new PageSlots();
    const tables = (shown ?? []).map((f) => {
      const after = new Map<string, string>();
      for (const t of live.filter((x) => x.path === f.newPath)) {
        const k = `${t.line < 0 ? 'L' : 'R'}${Math.abs(t.line)}`;
        after.set(k, `${after.get(k) ?? ''}<tr class="thread-row"><td colspan="${f.columns}">${threads.get(t.comments[0].id)}</td></tr>`);
      }
      return slots.put(Buffer.from(tableWith(f, after).html));
    });
    const pending = conv.reviews.find((r) => r.type === ReviewType.Pending && r.reviewerId === req.principal.user?.id) ?? null;
    await renderPage(req, res, 'pulls/files', `Files changed - ${head.pull.title}`, {
      ...head, all: files, files: shown, tables, listed, pageNo, pages, perPage: DIFF_FILES_PER_PAGE, split,
      canComment: !!req.principal.user && !rc.repo.isArchived, pending: pending ? conv.threads.filter((t) => t.comments.some((c) => c.reviewId === pending.id)).length : null,
      isPoster: req.principal.user?.id === head.pull.user.id,
    }, 200, slots);
  }));

  // A comment on a line (alone, or into the caller's pending review) or a reply to a thread.
  r.post(`${repo}/pulls/:index/files/reviews/comments`, ...formBody('1mb'), csrf, page(async (req, res) => {
    if (!signedIn(req, res)) return;
    const rc = await pageRepo(req);
    const index = pageIndex(req);
    const b = req.body as Record<string, string>;
    let anchor = '';
    await flashOutcome(req, async () => {
      if (b.reply) {
        const c = await replyToThread(ctxOf(req), doerOf(req), rc, index, Number(b.reply), b.content);
        anchor = `#issuecomment-${c.id}`;
        return 'Your reply is added.';
      }
      const line = Number(b.line);
      if (!Number.isSafeInteger(line) || line < 1) throw new Validation('a line comment needs the number of a line of the diff');
      const comment = { path: b.path, body: b.content, ...(b.side === 'L' ? { old_position: line } : { new_position: line }) };
      if (b.pending) await addPendingLineComment(ctxOf(req), doerOf(req), rc, index, comment);
      else await createPullReview(ctxOf(req), doerOf(req), rc, index, { event: 'COMMENT', body: '', comments: [comment] });
      return b.pending ? 'The comment is added to your review; submit the review to show it.' : 'The comment is added.';
    }, (text) => text);
    res.redirect(303, `${repoHome(rc)}/pulls/${index}${b.from === 'conversation' ? '' : '/files'}${anchor}`);
  }));

  r.post(`${repo}/pulls/:index/conversations/:comment`, ...formBody(), csrf, page(async (req, res) => {
    if (!signedIn(req, res)) return;
    const rc = await pageRepo(req);
    const index = pageIndex(req);
    const b = req.body as Record<string, string>;
    const resolve = b.action !== 'unresolve';
    await flashOutcome(req, () => markThread(ctxOf(req), doerOf(req), rc, index, Number(req.params.comment), resolve),
      () => (resolve ? 'The conversation is marked as resolved.' : 'The conversation is open again.'));
    res.redirect(303, `${repoHome(rc)}/pulls/${index}${b.from === 'conversation' ? '' : '/files'}`);
  }));

  // Submit a review: the caller's pending review with its line comments, or a new one.
  r.post(`${repo}/pulls/:index/reviews`, ...formBody('1mb'), csrf, page(async (req, res) => {
    if (!signedIn(req, res)) return;
    const rc = await pageRepo(req);
    const index = pageIndex(req);
    const b = req.body as Record<string, string>;
    await flashOutcome(req, async () => {
      const { reviews } = await listPullReviews(ctxOf(req), req.principal.user, rc, index);
      const pending = reviews.find((v) => v.type === ReviewType.Pending && v.reviewerId === req.principal.user!.id);
      const o = { body: b.content ?? '', event: b.event };
      if (pending) await submitPullReview(ctxOf(req), doerOf(req), rc, index, pending.id, o, true);
      else await createPullReview(ctxOf(req), doerOf(req), rc, index, o);
    }, () => 'Your review is submitted.');
    res.redirect(303, `${repoHome(rc)}/pulls/${index}`);
  }));

  r.post(`${repo}/pulls/:index/reviews/:id/dismiss`, ...formBody(), csrf, page(async (req, res) => {
    if (!signedIn(req, res)) return;
    const rc = await pageRepo(req);
    const index = pageIndex(req);
    const b = req.body as Record<string, string>;
    await flashOutcome(req, () => dismissPullReview(ctxOf(req), doerOf(req), rc, index, Number(req.params.id), true, b.message ?? ''), () => 'The review is dismissed.');
    res.redirect(303, `${repoHome(rc)}/pulls/${index}`);
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
