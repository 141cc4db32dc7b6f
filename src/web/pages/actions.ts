/**
 * A repository's Actions tab (Gitea's `/{owner}/{repo}/actions`): the default branch's workflows
 * (a file that does not parse with its error), the runs filtered by workflow, actor, status and
 * event, and for writers a workflow's Disable/Enable and its "Run workflow" form (a
 * `workflow_dispatch` with its inputs). The run pages are in action-run.ts.
 */
import express, { type Request, type Router } from 'express';
import { NotFound, Validation } from '../../errors';
import { STATUS_NAMES } from '../../convert/actions';
import { ctxOf } from '../../middleware/context';
import { formBody } from '../../middleware/input-guard';
import type { ActionStatus, ActionRunModel } from '../../models/action-run.model';
import { listRunsWhere } from '../../services/actions/view.service';
import { dispatchWorkflow, setWorkflowEnabled, workflowEntries } from '../../services/actions/workflow.service';
import { runActors } from '../../services/actions/run-view.service';
import type { RepoContext } from '../../services/repo/context';
import { flashOutcome, requireCsrf } from './context';
import { renderPage } from './render';
import { repoHeader } from './repo';
import { page, pageNumber, pageRepo, repoHome, signedIn } from './route';
import { runPages } from './action-run';
import { assertActionsWriter, canWriteActions, durationOf, formatDuration } from './action-parts';

const PAGE_SIZE = 20;

/** The status filter's choices: the word the API's `status` takes, and its name. */
const STATUS_FILTERS: [string, string][] = [
  ['success', 'Success'], ['failure', 'Failure'], ['cancelled', 'Cancelled'], ['skipped', 'Skipped'], ['queued', 'Waiting'], ['in_progress', 'Running'], ['waiting', 'Blocked'],
];
/** The events a run may come from, for the event filter. */
const EVENTS = ['push', 'pull_request', 'pull_request_target', 'workflow_dispatch', 'schedule', 'release', 'issues', 'issue_comment', 'create', 'delete', 'workflow_run'];

/** A query value as a short string ('' when absent). */
const queryWord = (req: Request, key: string) => (typeof req.query[key] === 'string' ? (req.query[key] as string).trim().slice(0, 255) : '');

/** The Actions tab's routes, and the run pages'. */
export function actionPages(): Router {
  const r = express.Router();
  const csrf = requireCsrf();
  const repo = '/:owner/:repo';

  r.get(`${repo}/actions`, page(async (req, res) => {
    const rc = await pageRepo(req);
    const ctx = ctxOf(req);
    const workflows = await workflowEntries(ctx, rc);
    const workflow = queryWord(req, 'workflow');
    const actor = queryWord(req, 'actor');
    const status = STATUS_FILTERS.some(([k]) => k === queryWord(req, 'status')) ? queryWord(req, 'status') : '';
    const event = EVENTS.includes(queryWord(req, 'event')) ? queryWord(req, 'event') : '';
    const pageNo = pageNumber(req);
    const { rows, count } = await listRunsWhere(ctx, { repoId: rc.repo.id }, {
      status: status ? [status] : [], ...(actor ? { actor } : {}), ...(event ? { event } : {}), ...(workflow ? { workflowId: workflow } : {}),
    }, { limit: PAGE_SIZE, offset: (pageNo - 1) * PAGE_SIZE });
    const actors = await runActors(ctx, rows);
    const base = repoHome(rc);
    const runs = rows.map((run: ActionRunModel) => ({
      index: run.index, title: run.title.split('\n')[0], workflow: run.workflowId, event: run.triggerEvent, status: STATUS_NAMES[run.status as ActionStatus],
      branch: run.ref.replace(/^refs\/(heads|tags)\//, ''), sha: run.commitSha, actor: actors.get(run.triggerUserId)?.name ?? '', created: new Date(Number(run.created) * 1000),
      duration: formatDuration(durationOf(run, run.previousDuration)), href: `${base}/actions/runs/${run.index}`, needApproval: run.needApproval && !run.approvedBy,
    }));
    const query = (over: Record<string, string>) => new URLSearchParams(Object.entries({ workflow, actor, status, event, ...over }).filter(([, v]) => v !== '')).toString();
    const selected = workflows.find((wf) => wf.id === workflow) ?? null;
    await renderPage(req, res, 'repo/actions/list', `Actions - ${rc.owner.name}/${rc.repo.name}`, {
      ...(await repoHeader(req, rc, 'actions')), workflows, workflow, selected, actor, status, event, runs, statuses: STATUS_FILTERS, events: EVENTS,
      canWrite: canWriteActions(rc), query, total: count, pageNo, pages: Math.max(1, Math.ceil(count / PAGE_SIZE)), pagerQuery: query({}),
    });
  }));

  const workflowOf = (req: Request, body: Record<string, string>) => {
    const id = String(req.query.workflow ?? body.workflow ?? '');
    if (!id) throw new NotFound('workflow not found');
    return id;
  };
  const back = (rc: RepoContext, id: string) => `${repoHome(rc)}/actions?workflow=${encodeURIComponent(id)}`;

  // why: Gitea's paths (`/actions/disable?workflow=`, `/actions/enable`, `/actions/run`); a reader is refused by the services.
  for (const [path, enabled] of [['disable', false], ['enable', true]] as const) {
    r.post(`${repo}/actions/${path}`, ...formBody('64kb'), csrf, page(async (req, res) => {
      if (!signedIn(req, res)) return;
      const rc = await pageRepo(req);
      assertActionsWriter(rc);
      const id = workflowOf(req, req.body as Record<string, string>);
      await flashOutcome(req, () => setWorkflowEnabled(ctxOf(req), rc, id, enabled), () => `The workflow ${id} is ${enabled ? 'enabled' : 'disabled'}.`);
      res.redirect(303, back(rc, id));
    }));
  }

  r.post(`${repo}/actions/run`, ...formBody('1mb'), csrf, page(async (req, res) => {
    const user = signedIn(req, res);
    if (!user) return;
    const rc = await pageRepo(req);
    const body = req.body as Record<string, string>;
    assertActionsWriter(rc);
    const id = workflowOf(req, body);
    await flashOutcome(req, async () => {
      const entry = (await workflowEntries(ctxOf(req), rc)).find((wf) => wf.id === id);
      if (!entry?.dispatch) throw new Validation(`The workflow ${id} cannot be run by hand: it has no workflow_dispatch trigger.`);
      // why: an unticked box sends nothing, which is "false", not the input's default.
      const inputs = Object.fromEntries(entry.dispatch.flatMap((i) => {
        const v = body[`inputs.${i.name}`];
        if (i.type === 'boolean') return [[i.name, v === 'true' || v === 'on' ? 'true' : 'false']];
        return v === undefined ? [] : [[i.name, v]];
      }));
      await dispatchWorkflow(ctxOf(req), rc, user, id, { ref: body.ref ?? '', inputs });
    }, () => `The workflow ${id} is queued to run.`);
    res.redirect(303, back(rc, id));
  }));

  r.use(runPages());
  return r;
}
