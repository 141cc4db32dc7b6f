/**
 * The hook events of the webhook subscriber, built in the change's transaction: issues, pull
 * requests, comments, releases, repositories, statuses, wikis and workflow runs as the API shows
 * them, from the payload parts shared with Actions (src/services/payload).
 * why: payloads are API objects; with src/services/payload this is the service code that converts
 * (docs/ARCHITECTURE.md).
 */
import { settings } from '../../config';
import type { DbContext } from '../../db';
import type {
  IssuePayload, PullRequestPayload, ChangesPayload, IssueCommentPayload, HookPayload, ReleasePayload, RepositoryPayload, WikiPayload,
  WorkflowJobPayload, WorkflowRunPayload,
} from '../../api/webhook';
import { toIssueOf, toComment } from '../../convert/issue';
import { toPullRequest } from '../../convert/pull';
import { toRelease } from '../../convert/release';
import { isoTime } from '../../convert/time';
import { toWorkflowJob, toWorkflowRun } from '../../convert/actions';
import { toOrganization } from '../../convert/org';
import type { WorkflowChange } from '../notify/notifier';
import { actionsWanted, queueActionsEvent } from '../actions/events';
import { findUserById, pseudoUser, standIn, UserType, type UserModel } from '../../models/user.model';
import { findRepoById, type RepositoryModel } from '../../models/repository.model';
import { hooksForEvent, type WebhookModel } from '../../models/webhook.model';
import { issueCountsOf } from '../../models/repo-issue-counter.model';
import { pullsOfIssues } from '../../models/pull-request.model';
import type { IssueModel } from '../../models/issue.model';
import type { CommentModel } from '../../models/comment.model';
import { listCommentAttachments, listReleaseAttachments } from '../../models/attachment.model';
import type { ReleaseModel } from '../../models/release.model';
import type { CommitStatusModel } from '../../models/commit-status.model';
import { diffCommits, readCommits } from '../../git/history';
import { repoPath } from '../../git/paths';
import { asUser } from '../auth/principal';
import { openCounts, viewOf, type RepoView } from '../repo/repo.service';
import type { RepoContext } from '../repo/context';
import { repoUrls } from '../content/view';
import { issueViewsByIds, namesOf, type IssueView } from '../issue/view';
import { pullViews } from '../pull/view';
import { hookCommits, hookUser, repoPayload } from '../payload/parts';
import { queueHookTasks, selectHooks, type EventScope, type QueuedEvent } from './emit';
import { repoPermission } from '../perm/permission';
import type { HookEventType } from './events';

const rootUrl = () => settings().server.rootUrl;

/**
 * The variant of an issue or pull request event: `issues`/`pull_request` themselves (''), their
 * assign, label and milestone variants, and the pull request's own (sync, review requests, reviews).
 */
export type IssueEventKind = '' | 'assign' | 'label' | 'milestone' | 'sync' | 'review_request' | 'review_approved' | 'review_rejected' | 'review_comment';

/** The event type of an issue event for an issue or a pull request. */
function issueEventType(isPull: boolean, kind: IssueEventKind): HookEventType {
  if (isPull) return (kind ? `pull_request_${kind}` : 'pull_request') as HookEventType;
  return (kind ? `issue_${kind}` : 'issues') as HookEventType;
}

/** Extra fields of an issue or pull request event. */
export interface IssueEventExtra {
  changes?: ChangesPayload; commitId?: string; requestedReviewer?: UserModel | null; review?: { type: string; content: string } | null;
  /** The issue's view when the caller already has it (a new issue): not read again. */
  view?: IssueView;
  /** The hook context prepared before the transaction (null: the repository has no hook). */
  context?: HookContext | null;
}

/**
 * What the events of a repository by one doer share: the hooks that may take them, the repository
 * with the doer's permission, and the doer's repository context. Prepared before a transaction, it
 * is read through the caches; read in one, it costs the queries the caches would have saved.
 * why: a transaction must not wait for a second connection (PostgreSQL's pool can run dry with
 * every connection held by a transaction waiting for another), so nothing inside one reads outside it.
 */
export interface HookContext { hooks: WebhookModel[]; rc: RepoContext; repo: RepoView }

/** The hook context of repository `repoId` for `doer`, read in `ctx`; null when it has no hook (unless Actions wants the event). */
export async function hookContext(ctx: DbContext, repoId: number, doer: UserModel, forActions = false): Promise<HookContext | null> {
  if (settings().security.disableWebhooks && !forActions) return null;
  const repo = await findRepoById(ctx, repoId);
  const hooks = repo && !settings().security.disableWebhooks ? await hooksForEvent(ctx, repoId, repo.ownerId) : [];
  if (!repo || (hooks.length === 0 && !forActions)) return null;
  const owner = (await findUserById(ctx, repo.ownerId))!;
  const perm = await repoPermission(ctx, asUser(doer), repo, owner);
  return { hooks, rc: { repo, owner, perm }, repo: await viewOf(ctx, asUser(doer), repo, owner, perm) };
}

/** The payload of an issue event (a pull request's when the issue is one), read in `tx` as the change left it. */
async function issueEventPayload(tx: DbContext, hc: HookContext, doer: UserModel, issueId: number, action: string, x: IssueEventExtra): Promise<IssuePayload | PullRequestPayload> {
  const { rc } = hc;
  const view = x.view ?? (await issueViewsByIds(tx, [issueId], namesOf(rc)))[0];
  // why: the change may have moved the repository's open counts; they are read again in its transaction.
  const repository = repoPayload({ ...hc.repo, open: openCounts((await issueCountsOf(tx, [rc.repo.id])).get(rc.repo.id)!) }, 'doer');
  const sender = hookUser(doer);
  if (!view.row.isPull) {
    return { action, number: Number(view.row.index), ...(x.changes ? { changes: x.changes } : {}), issue: toIssueOf(view, null), repository, sender, commit_id: x.commitId ?? '' };
  }
  const [pull] = await pullViews(tx, asUser(doer), rc, [view], false);
  return {
    action, number: Number(view.row.index), ...(x.changes ? { changes: x.changes } : {}), pull_request: toPullRequest(pull, null),
    requested_reviewer: x.requestedReviewer ? hookUser(x.requestedReviewer) : null, repository, sender, commit_id: x.commitId ?? '', review: x.review ?? null,
  };
}

/**
 * Emit an event of repository `repoId` in `tx`: when some hook takes it (its type, `scope`), build
 * the payload once and queue it to each.
 */
export async function emitRepoEvent(
  tx: DbContext, repoId: number, doer: UserModel, type: HookEventType, build: (hc: HookContext) => Promise<HookPayload>, scope: EventScope = {},
): Promise<void> {
  const actions = await actionsWanted(tx, repoId, type);
  const hc = await hookContext(tx, repoId, doer, actions);
  const hooks = hc ? selectHooks(hc.hooks, type, scope) : [];
  if (hooks.length === 0 && !actions) return;
  await queueEvent(tx, hc!, doer, type, hooks, actions, await build(hc!));
}

/** Queue a built payload to its hooks, and to Actions when it asked for it. */
async function queueEvent(tx: DbContext, hc: HookContext, doer: UserModel, type: HookEventType, hooks: WebhookModel[], actions: boolean, payload: HookPayload): Promise<void> {
  if (hooks.length) await queueHookTasks(tx, [{ hooks, type, payload }]);
  if (actions) await queueActionsEvent(tx, { repoId: hc.rc.repo.id, doerId: doer.id, type, payload });
}

/**
 * Emit an issue or pull request event in `tx` (issues/pull_request and their variants); a pull
 * request's goes only to hooks whose branch filter takes its base. `x.context`, prepared before the
 * transaction, saves reading it in it.
 */
export async function emitIssueEvent(
  tx: DbContext, doer: UserModel, issue: Pick<IssueModel, 'id' | 'isPull' | 'repoId'>, kind: IssueEventKind, action: string, x: IssueEventExtra = {},
): Promise<void> {
  const type = issueEventType(issue.isPull, kind);
  const actions = await actionsWanted(tx, issue.repoId, type);
  const hc = x.context && !actions ? x.context : await hookContext(tx, issue.repoId, doer, actions);
  if (!hc || (selectHooks(hc.hooks, type).length === 0 && !actions)) return;
  const base = issue.isPull ? (await pullsOfIssues(tx, [issue.id])).get(issue.id)?.baseBranch : undefined;
  const hooks = selectHooks(hc.hooks, type, base === undefined ? {} : { branch: base });
  if (hooks.length || actions) await queueEvent(tx, hc, doer, type, hooks, actions, await issueEventPayload(tx, hc, doer, issue.id, action, x));
}

/** Emit a comment event (issue_comment or pull_request_comment) in `tx`. */
export async function emitCommentEvent(
  tx: DbContext, doer: UserModel, issue: IssueModel, comment: CommentModel, action: IssueCommentPayload['action'], changes?: ChangesPayload,
): Promise<void> {
  const type = issue.isPull ? 'pull_request_comment' : 'issue_comment';
  const actions = await actionsWanted(tx, issue.repoId, type);
  const hc = await hookContext(tx, issue.repoId, doer, actions);
  const hooks = hc ? selectHooks(hc.hooks, type) : [];
  if (hooks.length === 0 && !actions) return;
  const { rc } = hc!;
  const base = await issueEventPayload(tx, hc!, doer, issue.id, action, {});
  const apiIssue = 'issue' in base ? base.issue : toIssueOf((await issueViewsByIds(tx, [issue.id], namesOf(rc)))[0], null);
  const ref = { rootUrl: rootUrl(), repoId: rc.repo.id, owner: rc.owner.name, repo: rc.repo.name };
  const poster = comment.posterId === doer.id ? doer : await findUserById(tx, comment.posterId);
  await queueEvent(tx, hc!, doer, type, hooks, actions, {
    action, issue: apiIssue, ...('pull_request' in base ? { pull_request: base.pull_request } : {}),
    comment: toComment(comment, poster, issue, ref, null, await listCommentAttachments(tx, [comment.id])), ...(changes ? { changes } : {}),
    repository: base.repository, sender: base.sender, is_pull: issue.isPull,
  });
}

/** Emit a release event in `tx` (its assets and publisher read in it). */
export async function emitReleaseEvent(tx: DbContext, rc: Pick<RepoContext, 'repo' | 'owner'>, doer: UserModel, release: ReleaseModel, action: ReleasePayload['action']): Promise<void> {
  await emitRepoEvent(tx, rc.repo.id, doer, 'release', async (hc) => {
    const publisher = (await findUserById(tx, release.publisherId)) ?? standIn(release.publisherId);
    const assets = await listReleaseAttachments(tx, [release.id]);
    const root = rootUrl();
    return { action, release: toRelease(release, repoUrls(root, rc.owner.name, rc.repo.name), publisher, assets, root), repository: repoPayload(hc.repo, 'doer'), sender: hookUser(doer) };
  });
}

/** Emit a repository event in `tx`: created or deleted, with the owner as `organization` (a user or an organization). */
export async function emitRepositoryEvent(tx: DbContext, repo: RepositoryModel, owner: UserModel, doer: UserModel, action: RepositoryPayload['action']): Promise<void> {
  await emitRepoEvent(tx, repo.id, doer, 'repository', async (hc) => ({
    action, repository: repoPayload(hc.repo, 'owner'), organization: hookUser(owner), sender: hookUser(doer),
  }));
}

/** Emit a fork event to the original's hooks in `tx` (`forkee` the original, `repository` the fork, each with the doer's permission). */
export async function emitForkEvent(tx: DbContext, original: RepositoryModel, fork: RepositoryModel, forkOwner: UserModel, doer: UserModel): Promise<void> {
  await emitRepoEvent(tx, original.id, doer, 'fork', async (hc) => ({
    forkee: repoPayload(hc.repo, 'doer'), repository: repoPayload(await viewOf(tx, asUser(doer), fork, forkOwner), 'doer'), sender: hookUser(doer),
  }));
}

/** Emit a commit status event in `tx`, the commit with its changed files. */
export async function emitStatusEvent(tx: DbContext, rc: Pick<RepoContext, 'owner' | 'repo'>, doer: UserModel, s: CommitStatusModel): Promise<void> {
  await emitRepoEvent(tx, rc.repo.id, doer, 'status', async (hc) => {
    const dir = repoPath(rc.owner.name, rc.repo.name);
    const [record] = await readCommits(dir, [s.sha]);
    const files = record ? (await diffCommits(dir, [s.sha])).get(s.sha)?.files ?? [] : [];
    const root = rootUrl();
    const [commit] = record ? await hookCommits(tx, [{ ...record, files }], repoUrls(root, rc.owner.name, rc.repo.name).html) : [null];
    return {
      commit, context: s.context, created_at: isoTime(s.createdAt), description: s.description, id: s.id, repository: repoPayload(hc.repo, 'owner'),
      sender: hookUser(doer), sha: s.sha, state: s.state, target_url: absoluteUrl(s.targetUrl, root), updated_at: s.updatedAt ? isoTime(s.updatedAt) : null,
    };
  });
}

/** A target URL made absolute against ROOT_URL (actions report paths). */
function absoluteUrl(target: string, root: string): string {
  return target.startsWith('/') ? new URL(target, root).href : target;
}

/** Emit a wiki event in `tx` (`page` the page's web path, `comment` the message the doer gave). */
export async function emitWikiEvent(tx: DbContext, rc: Pick<RepoContext, 'repo'>, doer: UserModel, action: WikiPayload['action'], page: string, comment: string): Promise<void> {
  await emitRepoEvent(tx, rc.repo.id, doer, 'wiki', async (hc) => ({
    action, repository: repoPayload(hc.repo, 'owner'), sender: hookUser(doer), page, comment,
  }));
}

/**
 * Emit, in `tx`, for each change a workflow_job event per changed job (queued, waiting,
 * in_progress or completed, by its status) and, with `runAction`, the run's workflow_run event;
 * sent by the run's trigger user, with the owner as `organization` when it is one. why: one
 * transaction often settles many runs of one repository and actor; their hooks, actor and
 * repository are read once.
 */
export async function emitWorkflowEvents(tx: DbContext, changes: WorkflowChange[]): Promise<void> {
  const doers = new Map<number, Promise<UserModel>>();
  const contexts = new Map<string, Promise<HookContext | null>>();
  const wanted = new Map<number, Promise<boolean>>();
  const once = <K, V>(m: Map<K, Promise<V>>, k: K, make: () => Promise<V>): Promise<V> => {
    if (!m.has(k)) m.set(k, make());
    return m.get(k)!;
  };
  const events: QueuedEvent[] = [];
  for (const { run, workflowName, jobs, runAction } of changes) {
    const doer = await once(doers, run.triggerUserId, async () => (run.triggerUserId > 0 ? await findUserById(tx, run.triggerUserId) : null) ?? pseudoUser(-2));
    const actions = runAction !== null && (await once(wanted, run.repoId, () => actionsWanted(tx, run.repoId, 'workflow_run')));
    const hc = await once(contexts, `${run.repoId}:${doer.id}:${actions}`, () => hookContext(tx, run.repoId, doer, actions));
    if (!hc) continue;
    const jobHooks = selectHooks(hc.hooks, 'workflow_job');
    const runHooks = runAction ? selectHooks(hc.hooks, 'workflow_run') : [];
    if (jobHooks.length === 0 && runHooks.length === 0 && !actions) continue;
    const at = repoUrls(rootUrl(), hc.rc.owner.name, hc.rc.repo.name);
    const organization = hc.rc.owner.type === UserType.Organization ? toOrganization(hc.rc.owner, null, rootUrl()) : null;
    const common = { ...(organization ? { organization } : {}), repository: repoPayload(hc.repo, 'owner'), sender: hookUser(doer) };
    if (jobHooks.length) {
      for (const v of await jobs()) {
        const workflowJob = toWorkflowJob(v.job, v.run, v.index, at, v.task);
        if (workflowJob.status) events.push({ hooks: jobHooks, type: 'workflow_job', payload: { action: workflowJob.status as WorkflowJobPayload['action'], workflow_job: workflowJob, ...common } });
      }
    }
    if (runAction && (runHooks.length || actions)) {
      const workflow = { id: run.workflowId, name: workflowName(), path: run.workflowId, state: 'active', url: `${at.api}/actions/workflows/${encodeURIComponent(run.workflowId)}` };
      const payload: WorkflowRunPayload = { action: runAction, workflow, workflow_run: toWorkflowRun(run, at), ...common };
      if (runHooks.length) events.push({ hooks: runHooks, type: 'workflow_run', payload });
      if (actions) await queueActionsEvent(tx, { repoId: run.repoId, doerId: doer.id, type: 'workflow_run', payload });
    }
  }
  if (events.length) await queueHookTasks(tx, events);
}
