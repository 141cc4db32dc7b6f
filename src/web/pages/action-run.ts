/**
 * A run's page (Gitea's `/{owner}/{repo}/actions/runs/{run}` and `/jobs/{job}`, the `html_url`
 * the API gives): the run, its jobs, the chosen job's steps folding with their log lines, ANSI
 * colours as classes, artifacts, and the writers' Rerun, Cancel and Approve. The log is served in
 * pieces: the page carries the open steps' last lines, and the page script fetches the rest and
 * the new lines (`POST .../jobs/{job}` with a cursor per step, as Gitea's log view) while the job runs.
 */
import { pipeline } from 'node:stream';
import express, { type Request, type Response, type Router } from 'express';
import { NotFound } from '../../errors';
import { STATUS_NAMES } from '../../convert/actions';
import { ctxOf } from '../../middleware/context';
import { formBody } from '../../middleware/input-guard';
import { ActionStatus, isDone } from '../../models/action-run.model';
import { workflowName } from '../../services/actions/run.service';
import { approveRepoRun, cancelRepoRun, jobLog, rerunRepoRun } from '../../services/actions/view.service';
import { artifactZipUrl } from '../../services/actions/artifact.service';
import { runActors, runArtifacts, runByIndex, runPageState, sectionLines, type LogSection, type RunPageState } from '../../services/actions/run-view.service';
import { splitLogLine } from '../../services/storage/log-lines';
import type { RepoContext } from '../../services/repo/context';
import { ansiSegments, type Segment } from './ansi';
import { assertActionsWriter, canWriteActions, durationOf, formatDuration } from './action-parts';
import { ensureSession, flashOutcome, requireCsrf } from './context';
import { renderPage } from './render';
import { repoHeader } from './repo';
import { jsonBody, jsonRoute, page, pageRepo, repoHome, signedIn } from './route';

// why: the first view carries this many of an open step's last lines; the script fetches earlier ones on demand.
const TAIL = 200;
// why: one answer carries at most this many lines of a step; the script asks again for the rest.
const MAX_LINES = 5000;

/** A log line as the page and the script draw it: its number in its step, its time, its text in coloured pieces. */
export interface LineView { n: number; time: string; segs: Segment[] }

const num = (req: Request, key: string) => Number(req.params[key]);
const statusWord = (s: ActionStatus) => STATUS_NAMES[s];

/** Lines `[from, to)` of a section as the page draws them. */
async function lineViews(state: RunPageState, s: LogSection, from: number, to: number): Promise<LineView[]> {
  const lines = await sectionLines(state.task, s, from, to);
  return lines.map((l, k) => {
    const { time, content } = splitLogLine(l);
    return { n: from + k + 1, time, segs: ansiSegments(content) };
  });
}

/** The state the script refreshes: the run, its jobs and the chosen job's sections. */
function liveState(state: RunPageState) {
  const { run, jobs, job, sections } = state;
  return {
    run: { status: statusWord(run.status), done: isDone(run.status), duration: formatDuration(durationOf(run, run.previousDuration)) },
    jobs: jobs.map((j, index) => ({ index, status: statusWord(j.status), duration: formatDuration(durationOf(j)) })),
    job: {
      status: statusWord(job.status), done: isDone(job.status), attempt: job.attempt, duration: formatDuration(durationOf(job)),
      sections: sections.map((s) => ({ index: s.index, name: s.name, status: statusWord(s.status), total: s.to - s.from, duration: formatDuration(durationOf(s)) })),
    },
  };
}

/** The run's page for the job at `jobIndex`. */
async function showRun(req: Request, res: Response, jobIndex: number): Promise<void> {
  const rc = await pageRepo(req);
  const ctx = ctxOf(req);
  const state = await runPageState(ctx, rc, num(req, 'run'), jobIndex);
  const { run, job, sections } = state;
  const live = !isDone(run.status) || !isDone(job.status);
  // why: the live fetch is a POST with the session's CSRF token, which an anonymous reader gets here.
  if (live) await ensureSession(req, res);
  const jobDone = isDone(job.status);
  // why: as Gitea, the running step is open, and once the job is done the steps that failed.
  const open = new Set(sections.filter((s) => (s.status === ActionStatus.Running) || (jobDone && s.status === ActionStatus.Failure)).map((s) => s.index));
  const steps = await Promise.all(sections.map(async (s) => {
    const total = s.to - s.from;
    const first = Math.max(0, total - TAIL);
    return { ...s, status: statusWord(s.status), total, first, open: open.has(s.index), duration: formatDuration(durationOf(s)), lines: open.has(s.index) ? await lineViews(state, s, first, total) : [] };
  }));
  const base = repoHome(rc);
  const actor = (await runActors(ctx, [run])).get(run.triggerUserId);
  const artifacts = (await runArtifacts(ctx, rc, run)).map((a) => ({ name: a.artifactName, size: Number(a.fileSize), href: `${base}/actions/runs/${run.index}/artifacts/${encodeURIComponent(a.artifactName)}` }));
  const canWrite = canWriteActions(rc);
  const runHref = `${base}/actions/runs/${run.index}`;
  await renderPage(req, res, 'repo/actions/run', `${run.title.split('\n')[0]} - Actions - ${rc.owner.name}/${rc.repo.name}`, {
    ...(await repoHeader(req, rc, 'actions')),
    run: {
      index: run.index, title: run.title.split('\n')[0], workflow: workflowName(run, state.jobs[0]), workflowId: run.workflowId, event: run.triggerEvent,
      sha: run.commitSha, branch: run.ref.replace(/^refs\/(heads|tags)\//, ''), created: new Date(Number(run.created) * 1000),
      needApproval: run.needApproval && !run.approvedBy, actor: actor?.name ?? '', href: runHref,
    },
    jobs: state.jobs.map((j, index) => ({ index, name: j.name, href: `${runHref}/jobs/${index}` })),
    job: { index: jobIndex, name: job.name, attempt: job.attempt, started: !!state.task }, steps, live, state: liveState(state), artifacts, canWrite,
    fetchUrl: `${runHref}/jobs/${jobIndex}`, logUrl: `${runHref}/jobs/${jobIndex}/logs`,
  });
}

/** The cursors a fetch asks for: `[{ step, cursor, limit? }]`, at most one per section. */
function cursorsOf(body: unknown): { step: number; cursor: number; limit: number }[] {
  const list = (body as { logCursors?: unknown })?.logCursors;
  if (!Array.isArray(list)) return [];
  return list.slice(0, 64).flatMap((c) => {
    const step = Number((c as Record<string, unknown>)?.step);
    const cursor = Number((c as Record<string, unknown>)?.cursor);
    const limit = Number((c as Record<string, unknown>)?.limit ?? MAX_LINES);
    if (!Number.isInteger(step) || !Number.isInteger(cursor) || step < 0 || cursor < 0) return [];
    return [{ step, cursor, limit: Number.isInteger(limit) && limit > 0 ? Math.min(limit, MAX_LINES) : MAX_LINES }];
  });
}

/** The run pages' routes. */
export function runPages(): Router {
  const r = express.Router();
  const csrf = requireCsrf();
  const run = '/:owner/:repo/actions/runs/:run(\\d+)';

  r.get(run, page((req, res) => showRun(req, res, 0)));
  r.get(`${run}/jobs/:job(\\d+)`, page((req, res) => showRun(req, res, num(req, 'job'))));

  // The live view: the state, and each asked step's lines from its cursor (only lines not sent before).
  r.post(`${run}/jobs/:job(\\d+)`, ...jsonBody(), csrf, jsonRoute(async (req, res) => {
    const rc = await pageRepo(req);
    const state = await runPageState(ctxOf(req), rc, num(req, 'run'), num(req, 'job'));
    const logs = await Promise.all(cursorsOf(req.body).flatMap(({ step, cursor, limit }) => {
      const s = state.sections.find((x) => x.index === step);
      return s ? [lineViews(state, s, cursor, cursor + limit).then((lines) => ({ step, cursor, lines }))] : [];
    }));
    res.setHeader('Cache-Control', 'no-store');
    res.json({ state: liveState(state), logs });
  }));

  r.get(`${run}/jobs/:job(\\d+)/logs`, page(async (req, res) => {
    const rc = await pageRepo(req);
    const state = await runPageState(ctxOf(req), rc, num(req, 'run'), num(req, 'job'));
    const log = await jobLog(ctxOf(req), rc, state.job.id);
    res.setHeader('Content-Type', 'text/plain; charset=utf-8');
    res.setHeader('Content-Disposition', `attachment; filename="${log.filename.replace(/[^\w.-]/g, '_')}"`);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    pipeline(log.stream, res, () => undefined);
  }));

  r.get(`${run}/artifacts/:name`, page(async (req, res) => {
    const rc = await pageRepo(req);
    const found = (await runArtifacts(ctxOf(req), rc, await runByIndex(ctxOf(req), rc, num(req, 'run')))).find((a) => a.artifactName === req.params.name);
    if (!found) throw new NotFound('artifact not found');
    res.redirect(302, await artifactZipUrl(ctxOf(req), rc, found.id));
  }));

  /** A writer's button: refused as an error page for a reader, else the service and back to the page with the outcome. */
  const action = (path: string, act: (req: Request, rc: RepoContext, state: RunPageState) => Promise<unknown>, done: string, jobPage: boolean) => {
    r.post(`${run}${path}`, ...formBody('64kb'), csrf, page(async (req, res) => {
      const user = signedIn(req, res);
      if (!user) return;
      const rc = await pageRepo(req);
      assertActionsWriter(rc);
      const jobIndex = req.params.job === undefined ? 0 : num(req, 'job');
      const state = await runPageState(ctxOf(req), rc, num(req, 'run'), jobIndex);
      await flashOutcome(req, () => act(req, rc, state), () => done);
      res.redirect(303, `${repoHome(rc)}/actions/runs/${state.run.index}${jobPage ? `/jobs/${jobIndex}` : ''}`);
    }));
  };
  action('/cancel', (req, rc, s) => cancelRepoRun(ctxOf(req), rc, s.run.id), 'The run is cancelled.', false);
  action('/approve', (req, rc, s) => approveRepoRun(ctxOf(req), rc, s.run.id, req.web.principal.user!.id), 'The run is approved: its jobs wait for a runner.', false);
  action('/rerun', (req, rc, s) => rerunRepoRun(ctxOf(req), rc, s.run.id), 'The run starts again.', false);
  action('/jobs/:job(\\d+)/rerun', (req, rc, s) => rerunRepoRun(ctxOf(req), rc, s.run.id, s.job.id), 'The job starts again.', true);
  return r;
}
