/**
 * The dashboard (`/`): for a signed-in user, its activity feed (Gitea's dashboard feed: its own
 * acts and the events of the repositories it watches, only of repositories it can read), paged,
 * each event a sentence with links and, for a push, its commits; beside it the user's
 * repositories. Visitors get the site's front page. Also the notifications page (`/notifications`):
 * the user's threads, unread (with pinned) or read, marked read, unread or pinned one by one, or
 * all read at once. Everything goes through the services the API's feed, repository and
 * notification handlers call, so the same visibility rules apply.
 */
import express, { type Request, type Response, type Router } from 'express';
import { settings } from '../../config';
import { BadRequest } from '../../errors';
import { toNotificationThread } from '../../convert/notification';
import { ctxOf, doerOf, viewerOf } from '../../middleware/context';
import { formBody } from '../../middleware/input-guard';
import { opTypeName } from '../../models/action.model';
import { secondFactorsOf } from '../../services/auth/two-factor.service';
import { userFeed, type FeedEntry } from '../../services/activity/feed.service';
import { pathEscape, pathEscapeSegments } from '../../services/content/refs';
import { countUnread, listThreads, readThread, readThreads } from '../../services/notification/notification.service';
import { listRepos } from '../../services/repo/repo.service';
import { flashOutcome, requireCsrf } from './context';
import { renderPage } from './render';
import { page, pageNumber, signedIn } from './route';

/** Events per dashboard page (Gitea's FEED_PAGING_NUM). */
const FEED_PAGE = 20;
/** Repositories in the dashboard's side list. */
const REPO_LIST = 20;
/** Threads per notifications page (Gitea's default). */
const THREAD_PAGE = 20;
/** Commits a push's event lists (Gitea's FEED_MAX_COMMIT_NUM). */
const PUSH_COMMITS = 5;

/** A piece of a feed sentence: text, a link when `href` is set. */
interface Piece { text: string; href?: string }

/** One feed event as the dashboard shows it. */
interface FeedItem {
  id: number;
  op: string;
  /** The sentence: the actor, then what it did, where. */
  line: Piece[];
  /** ISO time, and how it is written. */
  when: string;
  whenText: string;
  commits: { sha: string; href: string; subject: string }[];
  /** Commits of a push beyond those listed. */
  moreCommits: number;
  /** The issue or pull request's title (a link to the comment for comments). */
  title: Piece | null;
  /** A comment's excerpt, a review's first line, a dismissal's reason. */
  excerpt: string;
}

/** A push's commits as its event stores them (Gitea's PushCommits JSON); an unreadable one is empty. */
function pushOf(content: string): { commits: { Sha1: string; Message: string }[]; len: number } {
  try {
    const v = JSON.parse(content) as { Commits?: { Sha1?: unknown; Message?: unknown }[] | null; Len?: unknown };
    const commits = (Array.isArray(v.Commits) ? v.Commits : []).filter((c) => typeof c?.Sha1 === 'string').map((c) => ({ Sha1: String(c.Sha1), Message: String(c.Message ?? '') }));
    return { commits, len: typeof v.Len === 'number' ? v.Len : commits.length };
  } catch {
    return { commits: [], len: 0 };
  }
}

/** An issue event's content, `index|rest` (Gitea's GetIssueInfos): the index and the rest. */
function issueInfo(content: string): { index: string; rest: string } {
  const bar = content.indexOf('|');
  return bar < 0 ? { index: content, rest: '' } : { index: content.slice(0, bar), rest: content.slice(bar + 1) };
}

const PULL_OPS = new Set(['create_pull_request', 'merge_pull_request', 'close_pull_request', 'reopen_pull_request', 'approve_pull_request', 'reject_pull_request',
  'comment_pull', 'pull_review_dismissed', 'pull_request_ready_for_review', 'auto_merge_pull_request']);
/** What each issue or pull request event says before the reference. */
const ISSUE_VERBS: Record<string, string> = {
  create_issue: 'opened issue', create_pull_request: 'created pull request', comment_issue: 'commented on issue', comment_pull: 'commented on pull request',
  close_issue: 'closed issue', reopen_issue: 'reopened issue', close_pull_request: 'closed pull request', reopen_pull_request: 'reopened pull request',
  merge_pull_request: 'merged pull request', auto_merge_pull_request: 'automatically merged pull request', approve_pull_request: 'approved',
  reject_pull_request: 'suggested changes for', pull_request_ready_for_review: 'marked ready for review pull request',
};

/** One event as a sentence with links, Gitea's feed wording in spirit. */
function feedItem(e: FeedEntry, root: string): FeedItem {
  const op = opTypeName(e.row.opType);
  const content = e.row.content ?? '';
  const created = new Date(Number(e.row.createdUnix) * 1000);
  const item: FeedItem = {
    id: Number(e.row.id), op, line: [], when: created.toISOString(), whenText: `${created.toISOString().slice(0, 16).replace('T', ' ')} UTC`,
    commits: [], moreCommits: 0, title: null, excerpt: '',
  };
  const actor = e.actUser;
  item.line.push(actor ? { text: actor.name, href: `${root}${pathEscape(actor.name)}` } : { text: 'Ghost' });
  const say = (...pieces: Piece[]) => { item.line.push(...pieces); };
  const repoName = e.repo ? `${e.repo.owner.name}/${e.repo.repo.name}` : 'a removed repository';
  const repoLink = e.repo ? `${root}${pathEscape(e.repo.owner.name)}/${pathEscape(e.repo.repo.name)}` : undefined;
  const repo: Piece = { text: repoName, href: repoLink };
  const ref = e.row.refName ?? '';
  const branch = ref.replace(/^refs\/heads\//, '');
  const tag = ref.replace(/^refs\/tags\//, '');
  const at = (kind: 'branch' | 'tag', name: string): Piece => ({ text: name, href: repoLink && `${repoLink}/src/${kind}/${pathEscapeSegments(name)}` });

  if (Object.hasOwn(ISSUE_VERBS, op) || op === 'pull_review_dismissed') {
    const { index, rest } = issueInfo(content);
    const issueLink = repoLink && /^\d+$/.test(index) ? `${repoLink}/${PULL_OPS.has(op) ? 'pulls' : 'issues'}/${index}` : undefined;
    const target: Piece = { text: `${repoName}#${index}`, href: issueLink };
    if (op === 'pull_review_dismissed') {
      const bar = rest.indexOf('|');
      say({ text: ' dismissed the review of ' }, { text: bar < 0 ? rest : rest.slice(0, bar) }, { text: ' for ' }, target);
      item.excerpt = bar < 0 ? '' : rest.slice(bar + 1);
    } else {
      say({ text: ` ${ISSUE_VERBS[op]} ` }, target);
    }
    const issueTitle = e.comment?.issue.name ?? '';
    if (op === 'create_issue' || op === 'create_pull_request') item.title = { text: rest, href: issueLink };
    else if (op === 'merge_pull_request' || op === 'auto_merge_pull_request') item.title = { text: rest || issueTitle };
    else if (issueTitle) item.title = { text: issueTitle, href: issueLink && e.comment ? `${issueLink}#issuecomment-${e.comment.row.id}` : issueLink };
    if (['comment_issue', 'comment_pull', 'approve_pull_request', 'reject_pull_request'].includes(op)) item.excerpt = rest;
    return item;
  }
  switch (op) {
    case 'create_repo': say({ text: ' created repository ' }, repo); break;
    case 'rename_repo': say({ text: ` renamed repository from ${content} to ` }, repo); break;
    case 'transfer_repo': say({ text: ` transferred repository ${content} to ` }, repo); break;
    case 'star_repo': say({ text: ' starred ' }, repo); break;
    case 'watch_repo': say({ text: ' started watching ' }, repo); break;
    case 'commit_repo':
    case 'mirror_sync_push': {
      if (op === 'commit_repo' && !content) {
        say({ text: ' created branch ' }, at('branch', branch), { text: ' in ' }, repo);
        break;
      }
      say({ text: op === 'commit_repo' ? ' pushed to ' : ' synced commits to ' }, at('branch', branch), { text: ' at ' }, repo);
      const push = pushOf(content);
      const shown = push.commits.slice(0, PUSH_COMMITS);
      item.commits = shown.map((c) => ({ sha: c.Sha1, href: repoLink ? `${repoLink}/commit/${pathEscape(c.Sha1)}` : '', subject: c.Message.split('\n')[0] }));
      item.moreCommits = Math.max(0, push.len - shown.length);
      break;
    }
    case 'push_tag': say({ text: ' pushed tag ' }, at('tag', tag), { text: ' to ' }, repo); break;
    case 'delete_tag': say({ text: ' deleted tag ' }, { text: tag }, { text: ' at ' }, repo); break;
    case 'delete_branch': say({ text: ' deleted branch ' }, { text: branch }, { text: ' at ' }, repo); break;
    case 'mirror_sync_create': say({ text: ' synced new reference ' }, at('branch', branch), { text: ' to ' }, repo); break;
    case 'mirror_sync_delete': say({ text: ' synced and deleted reference ' }, { text: branch }, { text: ' at ' }, repo); break;
    case 'publish_release':
      say({ text: ' released ' }, { text: content || tag, href: repoLink && `${repoLink}/releases/tag/${pathEscapeSegments(tag)}` }, { text: ' at ' }, repo);
      break;
    default: say({ text: ` did ${op} at ` }, repo);
  }
  return item;
}

/** The signed-in user's dashboard: a page of its feed and its repositories. */
async function dashboard(req: Request) {
  const user = doerOf(req);
  const ctx = ctxOf(req);
  const root = new URL(settings().server.rootUrl).pathname;
  const pageNo = pageNumber(req);
  const { entries, count } = await userFeed(ctx, req.principal, user, false, { limit: FEED_PAGE, offset: (pageNo - 1) * FEED_PAGE });
  const { views, count: repoCount } = await listRepos(ctx, req.principal, { ownerId: user.id, collaboratorOf: user.id, sort: 'updated', order: 'desc', limit: REPO_LIST, offset: 0 });
  return {
    feed: entries.map((e) => feedItem(e, root)), pageNo, pages: Math.max(1, Math.ceil(count / FEED_PAGE)),
    repos: views.map((v) => ({ fullName: `${v.owner.name}/${v.repo.name}`, href: `${root}${pathEscape(v.owner.name)}/${pathEscape(v.repo.name)}`, private: v.repo.isPrivate })),
    moreRepos: Math.max(0, repoCount - views.length),
  };
}

/** The notifications tab a request names: `read`, else `unread` (which shows pinned threads too, as Gitea). */
function tabOf(v: unknown): 'unread' | 'read' {
  return v === 'read' ? 'read' : 'unread';
}

/** A page of the user's threads on one tab, as the notifications page lists them. */
async function notificationList(req: Request, tab: 'unread' | 'read') {
  const ctx = ctxOf(req);
  const user = doerOf(req);
  const pageNo = pageNumber(req);
  const statusTypes = tab === 'read' ? ['read'] : ['unread', 'pinned'];
  const { entries, count } = await listThreads(ctx, req.principal, user, undefined, { statusTypes }, { limit: THREAD_PAGE, offset: (pageNo - 1) * THREAD_PAGE });
  const rootUrl = settings().server.rootUrl;
  const threads = entries.map((e) => {
    const t = toNotificationThread(e, viewerOf(req), rootUrl);
    const s = t.subject;
    return {
      id: t.id, unread: t.unread, pinned: t.pinned, updated: t.updated_at,
      repo: t.repository?.full_name ?? '', repoHref: t.repository?.html_url ?? '',
      type: s?.type ?? '', title: s?.title ?? '', state: s?.state ?? '', href: s?.html_url ?? t.repository?.html_url ?? '', number: e.issue ? Number(e.issue.index) : 0,
    };
  });
  return { threads, total: count, pageNo, pages: Math.max(1, Math.ceil(count / THREAD_PAGE)), unreadCount: await countUnread(ctx, req.principal, user) };
}

const STATUS_DONE: Record<string, string> = { read: 'The notification is marked read.', unread: 'The notification is marked unread.', pinned: 'The notification is pinned.' };

/** Dashboard and notification routes. */
export function dashboardPages(): Router {
  const r = express.Router();
  const csrf = requireCsrf();

  r.get('/', page(async (req: Request, res: Response) => {
    const user = req.principal.user;
    const mustEnrol = !!user && settings().security.twoFactorAuth === 'enforced' && !Object.values(await secondFactorsOf(ctxOf(req), user.id)).some(Boolean);
    // why: a user who must enrol a second factor reaches no repository, so the feed of their contents is not shown either.
    const data = user && !mustEnrol ? await dashboard(req) : null;
    await renderPage(req, res, 'home', user ? 'Dashboard' : settings().appName, { mustEnrol, ...(data ?? {}) });
  }));

  r.get('/notifications', page(async (req, res) => {
    if (!signedIn(req, res)) return;
    const tab = tabOf(req.query.q);
    await renderPage(req, res, 'notifications/list', 'Notifications', { q: tab, tab, ...(await notificationList(req, tab)) });
  }));

  /** Back to the tab and page the form was on. */
  const back = (b: Record<string, string>) => {
    const n = Math.max(1, Math.floor(Number(b.page)) || 1);
    return `${settings().server.rootUrl}notifications?q=${tabOf(b.q)}${n > 1 ? `&page=${n}` : ''}`;
  };
  r.post('/notifications/status', ...formBody(), csrf, page(async (req, res) => {
    const user = signedIn(req, res);
    if (!user) return;
    const b = req.body as Record<string, string>;
    const status = (b.status ?? '').trim().toLowerCase();
    await flashOutcome(req, async () => {
      if (!Object.hasOwn(STATUS_DONE, status)) throw new BadRequest('status must be read, unread or pinned');
      // why: Gitea's form names the thread notification_id; the API calls it a thread.
      return readThread(ctxOf(req), req.principal, user, String(b.thread_id ?? b.notification_id ?? ''), status);
    }, () => STATUS_DONE[status]);
    res.redirect(303, back(b));
  }));

  r.post('/notifications/purge', ...formBody(), csrf, page(async (req, res) => {
    const user = signedIn(req, res);
    if (!user) return;
    await flashOutcome(req, () => readThreads(ctxOf(req), req.principal, user, undefined, {}),
      (changed) => (changed.length === 1 ? '1 notification is marked read.' : `${changed.length} notifications are marked read.`));
    res.redirect(303, back(req.body as Record<string, string>));
  }));
  return r;
}
