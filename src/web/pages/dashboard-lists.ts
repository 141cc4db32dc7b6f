/**
 * The signed-in user's overviews across repositories, as Gitea's dashboard has them: `/issues` and
 * `/pulls` (a filter: in your repositories, assigned to you, created by you, mentioning you, and
 * for pull requests review requested and reviewed by you; open or closed with their totals;
 * keywords; an order; pages) and `/milestones` (the milestones of the repositories the user works
 * on, chosen by repository, open or closed, with their progress and due dates). The services are
 * the API's issue search and the milestone service, so the same repositories are readable.
 * Visitors are sent to sign in.
 */
import express, { type Request, type Router } from 'express';
import { settings } from '../../config';
import { toIssueOf } from '../../convert/issue';
import { ctxOf, viewerOf } from '../../middleware/context';
import { pathEscape } from '../../services/content/refs';
import { filtersOf, issueOverview, OVERVIEW_FILTERS, type OverviewFilter, type OverviewItem } from '../../services/issue/dashboard.service';
import { milestoneOverview } from '../../services/issue/milestone.service';
import { renderPage } from './render';
import { page, pageNumber, signedIn } from './route';

/** Rows per page (Gitea's [ui] ISSUE_PAGING_NUM). */
const PAGE_SIZE = 20;

/** What each filter is called in the menu. */
const FILTER_NAMES: Record<OverviewFilter, string> = {
  your_repositories: 'In your repositories', assigned: 'Assigned to you', created_by: 'Created by you', mentioned: 'Mentioning you',
  review_requested: 'Review requested', reviewed_by: 'Reviewed by you',
};

/** The orders of the issue overviews, as Gitea's sort menu names them; recently updated first by default. */
const ISSUE_SORTS: [string, string][] = [
  ['recentupdate', 'Recently updated'], ['leastupdate', 'Least recently updated'], ['latest', 'Newest'], ['oldest', 'Oldest'],
  ['mostcomment', 'Most commented'], ['leastcomment', 'Least commented'], ['nearduedate', 'Nearest due date'], ['farduedate', 'Farthest due date'],
];

/** The orders of the milestone overview. */
const MILESTONE_SORTS: [string, string][] = [
  ['closestduedate', 'Closest due date'], ['furthestduedate', 'Furthest due date'], ['leastcomplete', 'Least complete'],
  ['mostcomplete', 'Most complete'], ['mostissues', 'Most issues'], ['leastissues', 'Least issues'],
];

/** A query string of the given values, leaving out empty ones. */
function query(values: Record<string, string | number>): string {
  return new URLSearchParams(Object.entries(values).filter(([, v]) => v !== '').map(([k, v]): [string, string] => [k, String(v)])).toString();
}

/** A single query value as text (the first of repeated ones), at most `max` characters. */
function text(v: unknown, max = 255): string {
  const s = Array.isArray(v) ? v[0] : v;
  return typeof s === 'string' ? s.slice(0, max) : '';
}

/** One of `allowed` (by its first element), or the first one. */
function oneOf(v: string, allowed: [string, string][]): string {
  return allowed.some(([k]) => k === v) ? v : allowed[0][0];
}

/** Gitea's `repos` parameter, `[1,2,]`: the ids (none for anything else). */
function repoIdsOf(v: string): number[] {
  if (!/^\[\d+(,\d+)*,?\]$/.test(v)) return [];
  return [...new Set(v.slice(1, -1).split(',').filter((s) => s && s !== '0').map(Number).filter(Number.isSafeInteger))];
}

/** Gitea's `repos` value for ids. */
const reposParam = (ids: number[]) => (ids.length ? `[${ids.join(',')}]` : '');

/** The icon, its colour class and its words for a row's state. */
function stateOf(it: OverviewItem): { icon: string; tone: string; words: string } {
  const { row } = it.view;
  if (!row.isPull) return row.isClosed ? { icon: 'issue-closed', tone: 'closed', words: 'Closed issue' } : { icon: 'issue-opened', tone: 'open', words: 'Open issue' };
  if (it.merged) return { icon: 'git-merge', tone: 'merged', words: 'Merged pull request' };
  if (row.isClosed) return { icon: 'git-pull-request-closed', tone: 'closed', words: 'Closed pull request' };
  if (it.draft) return { icon: 'git-pull-request-draft', tone: 'draft', words: 'Draft pull request' };
  return { icon: 'git-pull-request', tone: 'open', words: 'Open pull request' };
}

/** A row of the issue overview as the view draws it. */
function rowOf(req: Request, it: OverviewItem, root: string) {
  const issue = toIssueOf(it.view, viewerOf(req));
  const { owner, repo } = it.view.repo;
  const repoHref = `${root}${pathEscape(owner)}/${pathEscape(repo)}`;
  const href = `${repoHref}/${it.view.row.isPull ? 'pulls' : 'issues'}/${issue.number}`;
  const event = it.merged ? 'merged' : issue.state === 'closed' ? 'closed' : 'opened';
  const when = it.merged && it.mergedUnix ? new Date(it.mergedUnix * 1000).toISOString() : event === 'closed' && issue.closed_at ? issue.closed_at : issue.created_at;
  return {
    ...stateOf(it), title: issue.title, href, repoName: `${owner}/${repo}`, repoHref, number: issue.number, labels: issue.labels,
    author: issue.user.login, authorHref: `${root}${pathEscape(issue.user.login)}`, event, when, comments: issue.comments,
    milestone: issue.milestone ? { title: issue.milestone.title, href: `${repoHref}/issues?milestone=${issue.milestone.id}` } : null,
    assignees: issue.assignees ?? [],
  };
}

/** The `/issues` or `/pulls` page. */
async function issuesPage(req: Request, isPull: boolean) {
  const root = new URL(settings().server.rootUrl).pathname;
  const offered = filtersOf(isPull);
  const asked = text(req.query.type) as OverviewFilter;
  const filter = OVERVIEW_FILTERS.includes(asked) && offered.includes(asked) ? asked : 'your_repositories';
  const closed = req.query.state === 'closed';
  const q = text(req.query.q).trim();
  const sort = oneOf(text(req.query.sort), ISSUE_SORTS);
  const pageNo = pageNumber(req);
  const o = await issueOverview(ctxOf(req), req.principal, {
    isPull, filter, closed, keyword: q || undefined, sort: sort === 'latest' ? 'newest' : sort, limit: PAGE_SIZE, offset: (pageNo - 1) * PAGE_SIZE,
  });
  const state = closed ? 'closed' : 'open';
  // why: every link keeps the other choices, as Gitea's do; a filter or state change starts at page 1.
  const keep = (over: Record<string, string>) => query({ type: filter, state, sort: sort === ISSUE_SORTS[0][0] ? '' : sort, q, ...over });
  const shown = closed ? o.closed : o.open;
  return {
    isPull, kind: isPull ? 'pulls' : 'issues', filter, state, q, sort, sorts: ISSUE_SORTS,
    filters: offered.map((f) => ({ key: f, text: FILTER_NAMES[f], count: o.counts[f] ?? 0, active: f === filter, href: `?${keep({ type: f })}` })),
    open: o.open, closed: o.closed, openHref: `?${keep({ state: 'open' })}`, closedHref: `?${keep({ state: 'closed' })}`,
    rows: o.items.map((it) => rowOf(req, it, root)),
    pageNo, pages: Math.max(1, Math.ceil(shown / PAGE_SIZE)), pagerQuery: keep({}),
  };
}

/** The `/milestones` page. */
async function milestonesPage(req: Request) {
  const root = new URL(settings().server.rootUrl).pathname;
  const closed = req.query.state === 'closed';
  const q = text(req.query.q).trim();
  const sort = oneOf(text(req.query.sort), MILESTONE_SORTS);
  const pageNo = pageNumber(req);
  const o = await milestoneOverview(ctxOf(req), req.principal, {
    closed, keyword: q || undefined, repoIds: repoIdsOf(text(req.query.repos, 4096)), sort, limit: PAGE_SIZE, offset: (pageNo - 1) * PAGE_SIZE,
  });
  const state = closed ? 'closed' : 'open';
  const keep = (over: Record<string, string>) => query({ repos: reposParam(o.selected), state, sort: sort === MILESTONE_SORTS[0][0] ? '' : sort, q, ...over });
  const now = Date.now() / 1000;
  const repoHref = (r: { owner: string; name: string }) => `${root}${pathEscape(r.owner)}/${pathEscape(r.name)}`;
  return {
    state, q, sort, sorts: MILESTONE_SORTS, reposValue: reposParam(o.selected),
    repos: [
      { text: 'All repositories', count: o.total, active: o.selected.length === 0, href: `?${keep({ repos: '' })}` },
      ...o.repos.map((r) => {
        const on = o.selected.includes(r.id);
        // why: as Gitea's menu, a repository's link adds it to the chosen ones, or takes it out.
        const next = on ? o.selected.filter((id) => id !== r.id) : [...o.selected, r.id];
        return { text: `${r.owner}/${r.name}`, count: r.count, active: on, href: `?${keep({ repos: reposParam(next) })}` };
      }),
    ],
    open: o.open, closed: o.closed, openHref: `?${keep({ state: 'open' })}`, closedHref: `?${keep({ state: 'closed' })}`,
    milestones: o.milestones.map(({ row, repo }) => {
      const total = Number(row.numIssues);
      const done = Number(row.numClosedIssues);
      const deadline = Number(row.deadlineUnix);
      return {
        id: row.id, title: row.name, repoName: `${repo.owner}/${repo.name}`, repoHref: repoHref(repo), href: `${repoHref(repo)}/issues?milestone=${row.id}`,
        open: total - done, closed: done, percent: total ? Math.floor((done * 100) / total) : 0, isClosed: row.isClosed,
        due: deadline ? new Date(deadline * 1000).toISOString() : null, overdue: !row.isClosed && deadline > 0 && deadline < now,
        closedAt: row.isClosed && Number(row.closedDateUnix) ? new Date(Number(row.closedDateUnix) * 1000).toISOString() : null,
      };
    }),
    pageNo, pages: Math.max(1, Math.ceil((closed ? o.closed : o.open) / PAGE_SIZE)), pagerQuery: keep({}),
  };
}

/** The overview routes. */
export function dashboardListPages(): Router {
  const r = express.Router();
  r.get('/issues', page(async (req, res) => {
    if (!signedIn(req, res)) return;
    await renderPage(req, res, 'user/dashboard/issues', 'Issues', await issuesPage(req, false));
  }));
  r.get('/pulls', page(async (req, res) => {
    if (!signedIn(req, res)) return;
    await renderPage(req, res, 'user/dashboard/issues', 'Pull requests', await issuesPage(req, true));
  }));
  r.get('/milestones', page(async (req, res) => {
    if (!signedIn(req, res)) return;
    await renderPage(req, res, 'user/dashboard/milestones', 'Milestones', await milestonesPage(req));
  }));
  return r;
}
