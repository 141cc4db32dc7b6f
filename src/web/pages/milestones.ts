/**
 * A repository's milestones page (Gitea's `/{owner}/{repo}/milestones`): open and closed tabs with
 * their counts, a name search, Gitea's sort orders, and each milestone with its description
 * rendered, its due date (overdue in red), its progress and links to its issues. Writers of the
 * tracker create, edit, close, reopen and delete milestones through the services the API calls.
 */
import express, { type Request, type Router } from 'express';
import { Validation } from '../../errors';
import { toMilestone } from '../../convert/issue';
import { ctxOf } from '../../middleware/context';
import { formBody } from '../../middleware/input-guard';
import { MILESTONE_SORTS } from '../../models/milestone.model';
import { assertTrackerReadable, assertTrackerWriter } from '../../services/issue/access';
import {
  changeMilestoneState, createMilestone, deleteMilestone, editMilestone, listMilestones, milestoneCounts,
} from '../../services/issue/milestone.service';
import { renderComments } from '../../services/markup/markup.service';
import type { RepoContext } from '../../services/repo/context';
import { flashOutcome, requireCsrf } from './context';
import { canManageTracker } from './labels';
import { renderPage } from './render';
import { repoHeader } from './repo';
import { page, pageNumber, pageRepo, repoHome, signedIn } from './route';
import { PageSlots } from './slots';

const PAGE_SIZE = 20;

/** The milestone orders the page offers, with their names (Gitea's). */
const SORTS: [string, string][] = [
  ['closestduedate', 'Closest due date'], ['furthestduedate', 'Furthest due date'], ['leastcomplete', 'Least complete'],
  ['mostcomplete', 'Most complete'], ['mostissues', 'Most issues'], ['leastissues', 'Fewest issues'],
];

/**
 * A form's due date (`<input type="date">`, YYYY-MM-DD) as the API's `due_on`: the end of that day,
 * as Gitea's form keeps it; empty for none.
 */
function dueOn(v: string | undefined): string | undefined {
  const d = (v ?? '').trim();
  if (!d) return undefined;
  if (!/^\d{4}-\d{2}-\d{2}$/.test(d) || Number.isNaN(Date.parse(d))) throw new Validation('The due date must be a date such as 2030-12-31.');
  return `${d}T23:59:59Z`;
}

/** The milestone form's fields as the milestone services read them; a milestone needs a title (Gitea's form rule). */
function milestoneOption(b: Record<string, string>) {
  const title = (b.title ?? '').trim();
  if (!title) throw new Validation('A milestone needs a title.');
  return { title, description: b.content ?? '', due_on: dueOn(b.deadline) };
}

/** The milestone routes. */
export function milestonePages(): Router {
  const r = express.Router();
  const csrf = requireCsrf();
  const repo = '/:owner/:repo';

  r.get(`${repo}/milestones`, page(async (req, res) => {
    const rc = await pageRepo(req);
    assertTrackerReadable(rc);
    const ctx = ctxOf(req);
    const state = req.query.state === 'closed' ? 'closed' : 'open';
    const sort = typeof req.query.sort === 'string' && Object.hasOwn(MILESTONE_SORTS, req.query.sort) ? req.query.sort : 'closestduedate';
    const q = typeof req.query.q === 'string' ? req.query.q.trim().slice(0, 255) : '';
    const pageNo = pageNumber(req);
    const [{ rows, count }, counts] = await Promise.all([
      listMilestones(ctx, rc, state, q || undefined, { limit: PAGE_SIZE, offset: (pageNo - 1) * PAGE_SIZE }, sort),
      milestoneCounts(ctx, rc, q || undefined),
    ]);
    const described = rows.filter((m) => m.content);
    const rendered = await renderComments(ctx, req.principal, rc, described.map((m) => m.content));
    const slots = new PageSlots();
    const html = new Map(described.map((m, k) => [m.id, slots.put(rendered[k])]));
    const now = Date.now() / 1000;
    const milestones = rows.map((m) => {
      const total = Number(m.numIssues);
      const deadline = Number(m.deadlineUnix);
      return {
        ...toMilestone(m), html: html.get(m.id) ?? '', total, percent: total > 0 ? Math.floor((Number(m.numClosedIssues) * 100) / total) : 0,
        // why: due dates are the end of a day in UTC (see dueOn), so the date input shows that day.
        dueDate: deadline > 0 ? new Date(deadline * 1000).toISOString().slice(0, 10) : '', overdue: !m.isClosed && deadline > 0 && deadline < now,
      };
    });
    // why: the tabs, search, sort and pager keep each other's choices.
    const query = (over: Record<string, string>) => new URLSearchParams(Object.entries({ state, q, sort, ...over }).filter(([, v]) => v !== '')).toString();
    await renderPage(req, res, 'repo/milestones', `Milestones - ${rc.owner.name}/${rc.repo.name}`, {
      ...(await repoHeader(req, rc, 'issues')), active: 'milestones', milestones, state, q, sort, sorts: SORTS, counts, query,
      canWrite: canManageTracker(req, rc), total: count, pageNo, pages: Math.max(1, Math.ceil(count / PAGE_SIZE)), pagerQuery: query({}),
    }, 200, slots);
  }));

  /** A form action on a milestone: the service, then back to the tab the form was on with the outcome. */
  const action = (path: string, run: (req: Request, rc: RepoContext, body: Record<string, string>) => Promise<unknown>, done: string) => {
    r.post(`${repo}/milestones/${path}`, ...formBody('1mb'), csrf, page(async (req, res) => {
      if (!signedIn(req, res)) return;
      const rc = await pageRepo(req);
      const body = req.body as Record<string, string>;
      await flashOutcome(req, () => run(req, rc, body), () => done);
      res.redirect(303, `${repoHome(rc)}/milestones${body.state === 'closed' ? '?state=closed' : ''}`);
    }));
  };
  const id = (req: Request) => String(Number(req.params.id));
  // why: a reader is refused as such before the form's fields are judged (the services check again).
  action('new', (req, rc, b) => {
    assertTrackerWriter(rc);
    return createMilestone(ctxOf(req), rc, milestoneOption(b));
  }, 'The milestone is created.');
  action(':id(\\d+)/edit', (req, rc, b) => {
    assertTrackerWriter(rc);
    return editMilestone(ctxOf(req), rc, id(req), milestoneOption(b));
  }, 'The milestone is saved.');
  action(':id(\\d+)/close', (req, rc) => changeMilestoneState(ctxOf(req), rc, id(req), true), 'The milestone is closed.');
  action(':id(\\d+)/open', (req, rc) => changeMilestoneState(ctxOf(req), rc, id(req), false), 'The milestone is reopened.');
  action(':id(\\d+)/delete', (req, rc) => deleteMilestone(ctxOf(req), rc, id(req)), 'The milestone is deleted.');
  return r;
}
