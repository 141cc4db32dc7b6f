/**
 * The sidebar of an issue or pull request page (labels, milestone, project, assignees, dependencies) and
 * the reactions under its body and comments: what they show, and the forms that change them.
 * Each form calls the service the API's handler calls, so the same rules and refusals apply; the
 * outcome comes back as a flash on the page (a refusal changes nothing).
 */
import express, { type Request, type Router } from 'express';
import { settings } from '../../config';
import { toIssueOf } from '../../convert/issue';
import { Validation } from '../../errors';
import { ctxOf, doerOf, viewerOf } from '../../middleware/context';
import { formBody } from '../../middleware/input-guard';
import { canWriteIssues } from '../../services/issue/access';
import { changeDependency, listDependencies } from '../../services/issue/dependency.service';
import { editIssue } from '../../services/issue/issue-edit.service';
import { usableLabels, replaceIssueLabels } from '../../services/issue/label.service';
import { listMilestones } from '../../services/issue/milestone.service';
import { addReaction, reactionGroups, removeReaction } from '../../services/issue/reaction.service';
import { dependenciesEnabled } from '../../services/repo/tracker-settings';
import { getIssue } from '../../services/issue/issue.service';
import { readableIssue } from '../../services/issue/access';
import { issueProjectView, setIssueProject, timelineProjects } from '../../services/project/issue-project.service';
import { ProjectType } from '../../models/project.model';
import { CommentType } from '../../models/comment.model';
import type { TimelineView } from '../../models/issue-view';
import { checkSubscription, setSubscription } from '../../services/issue/subscription.service';
import { assigneesOf } from '../../services/repo/collaborator.service';
import type { RepoContext } from '../../services/repo/context';
import { flashOutcome, requireCsrf } from './context';
import { page, pageIndex, pageRepo, repoHome, signedIn } from './route';

// why: a sidebar lists at most this many linked issues each way, as Gitea's page does.
const MAX_DEPENDENCIES = 50;

/** What the sidebar and the reactions of issue `index` show to the caller. */
export async function sidebarData(req: Request, rc: RepoContext, index: number, isPull: boolean) {
  const ctx = ctxOf(req);
  const canEdit = canWriteIssues(rc, isPull) && !rc.repo.isArchived && !!req.principal.user;
  const deps = await dependenciesEnabled(ctx, rc.repo.id);
  const issueList = async (side: 'blockers' | 'blocked') => (deps ? await listDependencies(ctx, req.principal, rc, index, side, { limit: MAX_DEPENDENCIES, offset: 0 }) : [])
    .map((v) => toIssueOf(v, viewerOf(req)));
  const user = req.principal.user;
  const projects = await issueProjectView(ctx, rc, (await readableIssue(ctx, rc, index)).id, canEdit);
  return {
    canEdit,
    project: projects && {
      current: projects.current && {
        ...projectLink(rc, projects.current.project), column: projects.current.column?.title ?? '', joinable: projects.current.joinable,
        // why: a board the repository's mode no longer offers is not linked (its repository's boards answer 404 then).
        ...(projects.current.joinable ? {} : { url: '' }),
      },
      choices: projects.choices?.map((c) => ({ id: c.project.id, title: c.project.title, closed: c.project.isClosed, owner: c.owner, columns: c.columns.map((k) => ({ id: k.id, title: k.title, isDefault: k.default })) })) ?? null,
      selected: projects.current ? `${projects.current.project.id}:${projects.current.column?.id ?? 0}` : '0',
    },
    subscribed: user ? (await checkSubscription(ctx, user, rc, index)).subscribed : null,
    noun: isPull ? 'pull request' : 'issue',
    dependencies: deps ? { blockers: await issueList('blockers'), blocked: await issueList('blocked') } : null,
    reactions: Object.fromEntries(await reactionGroups(ctx, rc, index, req.principal.user?.id ?? null)),
    allowedReactions: settings().ui.reactions,
    choices: canEdit ? {
      labels: await usableLabels(ctx, rc),
      milestones: (await listMilestones(ctx, rc, 'open', undefined)).rows.map((m) => ({ id: m.id, title: m.name })),
      assignees: (await assigneesOf(ctx, rc)).map((u) => u.name),
    } : null,
  };
}

/** A project's title and page, as the sidebar and the timeline link it (no page for a project of another place). */
function projectLink(rc: RepoContext, p: { id: number; title: string; type: number; repoId: number; ownerId: number }): { title: string; url: string } {
  const root = new URL(settings().server.rootUrl).pathname;
  const url = p.type === ProjectType.Repository ? (p.repoId === rc.repo.id ? `${repoHome(rc)}/projects/${p.id}` : '')
    : p.ownerId === rc.repo.ownerId ? `${root}${rc.owner.name}/-/projects/${p.id}` : '';
  return { title: p.title, url };
}

/** What the `project` and `project_board` entries of a timeline say, by entry id (the page writes it as text). */
export async function projectEventTexts(req: Request, views: TimelineView[]): Promise<(id: number) => string> {
  const rows = views.map((v) => v.row).filter((r) => r.type === CommentType.Project || r.type === CommentType.ProjectColumn);
  const projects = await timelineProjects(ctxOf(req), rows.flatMap((r) => [r.projectId, r.oldProjectId]));
  const name = (id: number) => (projects.has(id) ? `the project "${projects.get(id)!.title}"` : 'a deleted project');
  const texts = new Map<number, string>();
  for (const r of rows) {
    if (r.type === CommentType.ProjectColumn) {
      let meta: { ProjectColumnTitle?: string; ProjectTitle?: string } = {};
      try { meta = JSON.parse(r.commentMetaData || '{}') as typeof meta; } catch { /* an unreadable entry says less */ }
      texts.set(r.id, `moved this to "${meta.ProjectColumnTitle ?? ''}" in the project "${projects.get(r.projectId)?.title ?? meta.ProjectTitle ?? ''}"`);
    } else if (r.projectId && r.oldProjectId) texts.set(r.id, `moved this from ${name(r.oldProjectId)} to ${name(r.projectId)}`);
    else if (r.projectId) texts.set(r.id, `added this to ${name(r.projectId)}`);
    else texts.set(r.id, `removed this from ${name(r.oldProjectId)}`);
  }
  return (id) => texts.get(id) ?? 'changed the project';
}

/** `#12`, `12` or `owner/repo#12` as an issue reference. */
function parseReference(raw: string | undefined, rc: RepoContext): { index: number; owner: string; repo: string } {
  const m = /^(?:([\w.-]+)\/([\w.-]+))?#?(\d{1,9})$/.exec((raw ?? '').trim());
  if (!m) throw new Validation('write the issue as #12 or owner/repo#12');
  return { owner: m[1] ?? rc.owner.name, repo: m[2] ?? rc.repo.name, index: Number(m[3]) };
}

/** The fields of a form's checkboxes named `{prefix}{value}`. */
function checked(body: Record<string, string>, prefix: string): string[] {
  return Object.keys(body).filter((k) => k.startsWith(prefix)).map((k) => k.slice(prefix.length));
}

/** The sidebar's and reactions' form routes, under `/{owner}/{repo}/issues/{index}/` for issues and pull requests alike. */
export function sidebarPages(): Router {
  const r = express.Router();
  const csrf = requireCsrf();
  const action = (name: string, run: (req: Request, rc: RepoContext, index: number, body: Record<string, string>) => Promise<unknown>, done: string) => {
    r.post(`/:owner/:repo/issues/:index/${name}`, ...formBody(), csrf, page(async (req, res) => {
      if (!signedIn(req, res)) return;
      const rc = await pageRepo(req);
      const index = pageIndex(req);
      const isPull = (await getIssue(ctxOf(req), rc, index)).row.isPull;
      await flashOutcome(req, () => run(req, rc, index, req.body as Record<string, string>), () => done);
      res.redirect(303, `${repoHome(rc)}/${isPull ? 'pulls' : 'issues'}/${index}`);
    }));
  };
  action('labels', (req, rc, index, body) => replaceIssueLabels(ctxOf(req), doerOf(req), rc, index, checked(body, 'label-').map(Number)), 'The labels are saved.');
  action('milestone', (req, rc, index, body) => editIssue(ctxOf(req), doerOf(req), rc, index, { milestone: Number(body.milestone) || 0 }), 'The milestone is saved.');
  action('projects', (req, rc, index, body) => {
    const [project, column] = (body.target ?? '0').split(':').map((x) => (/^\d{1,9}$/.test(x) ? Number(x) : NaN));
    if (Number.isNaN(project) || (column !== undefined && Number.isNaN(column))) throw new Validation('choose a project and its column');
    return setIssueProject(ctxOf(req), doerOf(req), rc, index, project, column ?? 0);
  }, 'The project is saved.');
  action('assignees', (req, rc, index, body) => editIssue(ctxOf(req), doerOf(req), rc, index, { assignees: checked(body, 'assignee-') }), 'The assignees are saved.');
  action('dependencies', (req, rc, index, body) => {
    const side = body.side === 'blocked' ? 'blocked' : 'blockers';
    return changeDependency(ctxOf(req), req.principal, rc, index, parseReference(body.issue, rc), side, body.action !== 'remove');
  }, 'The dependencies are saved.');
  // why: the mails' List-Unsubscribe leads here; following an issue decides its notifications and mails.
  action('subscription', (req, rc, index, body) => setSubscription(ctxOf(req), doerOf(req), rc, index, doerOf(req).name, body.action === 'subscribe'), 'Your notification setting is saved.');
  action('reactions', (req, rc, index, body) => {
    const place = body.comment ? { commentId: Number(body.comment) } : { index };
    return body.action === 'remove' ? removeReaction(ctxOf(req), doerOf(req), rc, place, body.content) : addReaction(ctxOf(req), doerOf(req), rc, place, body.content);
  }, 'Your reaction is saved.');
  return r;
}
