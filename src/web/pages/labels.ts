/**
 * A repository's labels page (Gitea's `/{owner}/{repo}/labels`): its labels in their colours with
 * their open issues, its organization's labels apart and read-only, and for writers of the tracker
 * the forms to create, edit and delete labels or to start from a label set. Each action calls the
 * service the API's handler calls, behind the same writer check, so the same refusals apply.
 */
import express, { type Request, type Router } from 'express';
import { settings } from '../../config';
import { Validation } from '../../errors';
import { toLabel } from '../../convert/issue';
import { ctxOf } from '../../middleware/context';
import { formBody } from '../../middleware/input-guard';
import { LABEL_SORTS, type LabelModel } from '../../models/label.model';
import { assertTrackerReadable, assertTrackerWriter, canWriteIssues } from '../../services/issue/access';
import {
  createLabel, deleteLabel, editLabel, initializeLabels, labelTemplateNames, listLabels, openIssueCounts, repoOwner,
} from '../../services/issue/label.service';
import type { RepoContext } from '../../services/repo/context';
import { flashOutcome, requireCsrf } from './context';
import { renderPage } from './render';
import { repoHeader } from './repo';
import { page, pageRepo, repoHome, signedIn } from './route';

/** The label orders the page offers, with their names (Gitea's). */
const SORTS: [string, string][] = [
  ['alphabetically', 'Alphabetically'], ['reversealphabetically', 'Reverse alphabetically'], ['leastissues', 'Fewest issues'], ['mostissues', 'Most issues'],
];

/** May the caller change the repository's labels from the page (Gitea: a writer of issues or pull requests, not archived)? */
export function canManageTracker(req: Request, rc: RepoContext): boolean {
  return !!req.principal.user && !rc.repo.isArchived && (canWriteIssues(rc, false) || canWriteIssues(rc, true));
}

/** The label form's fields as the label services read them; a label needs a name (Gitea's form rule). */
function labelOption(b: Record<string, string>) {
  const name = (b.name ?? '').trim();
  if (!name) throw new Validation('A label needs a name.');
  return { name, color: b.color ?? '', description: (b.description ?? '').trim(), exclusive: b.exclusive === 'on', is_archived: b.is_archived === 'on' };
}

/** The label routes. */
export function labelPages(): Router {
  const r = express.Router();
  const csrf = requireCsrf();
  const repo = '/:owner/:repo';

  r.get(`${repo}/labels`, page(async (req, res) => {
    const rc = await pageRepo(req);
    assertTrackerReadable(rc);
    const ctx = ctxOf(req);
    const sort = typeof req.query.sort === 'string' && Object.hasOwn(LABEL_SORTS, req.query.sort) ? req.query.sort : 'alphabetically';
    const own = (await listLabels(ctx, repoOwner(rc), sort)).rows;
    const org = rc.owner.type === 1 ? (await listLabels(ctx, { orgId: rc.owner.id }, sort)).rows : [];
    const open = await openIssueCounts(ctx, rc, [...own, ...org]);
    const root = settings().server.rootUrl;
    const view = (l: LabelModel, where: { owner: string; repo?: string }) => ({ ...toLabel(l, root, where), open: open.get(l.id) ?? 0 });
    const canWrite = canManageTracker(req, rc);
    await renderPage(req, res, 'repo/labels', `Labels - ${rc.owner.name}/${rc.repo.name}`, {
      ...(await repoHeader(req, rc, 'issues')), active: 'labels',
      labels: own.map((l) => view(l, { owner: rc.owner.name, repo: rc.repo.name })), orgLabels: org.map((l) => view(l, { owner: rc.owner.name })),
      orgName: rc.owner.name, sort, sorts: SORTS, canWrite, labelSets: canWrite && own.length === 0 ? labelTemplateNames() : [],
    });
  }));

  /** A form action on the labels: the writer check the API's handler makes, the service, and back to the page with the outcome. */
  const action = (path: string, run: (req: Request, rc: RepoContext, body: Record<string, string>) => Promise<unknown>, done: (body: Record<string, string>) => string) => {
    r.post(`${repo}/labels/${path}`, ...formBody(), csrf, page(async (req, res) => {
      if (!signedIn(req, res)) return;
      const rc = await pageRepo(req);
      const body = req.body as Record<string, string>;
      await flashOutcome(req, () => run(req, rc, body), () => done(body));
      res.redirect(303, `${repoHome(rc)}/labels`);
    }));
  };
  const id = (req: Request) => Number(req.params.id);
  action('new', (req, rc, b) => {
    assertTrackerWriter(rc);
    return createLabel(ctxOf(req), repoOwner(rc), labelOption(b));
  }, (b) => `The label "${(b.name ?? '').trim()}" is created.`);
  action(':id(\\d+)/edit', (req, rc, b) => {
    assertTrackerWriter(rc);
    return editLabel(ctxOf(req), repoOwner(rc), id(req), labelOption(b));
  }, () => 'The label is saved.');
  action(':id(\\d+)/delete', (req, rc) => {
    assertTrackerWriter(rc);
    return deleteLabel(ctxOf(req), repoOwner(rc), id(req));
  }, () => 'The label is deleted.');
  action('initialize', (req, rc, b) => initializeLabels(ctxOf(req), rc, b.template_name ?? ''), (b) => `The labels of the set "${b.template_name}" are added.`);
  return r;
}
