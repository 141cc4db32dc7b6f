/**
 * The parts of hook payloads, as Gitea converts them for hooks: users as a signed-out viewer sees
 * them (the placeholder email unless public), the repository with the permission the event names
 * (an owner's, none, or the doer's own), issues, pull requests and comments as the API shows them.
 * why: payloads are API objects; this is the one service folder that converts (docs/ARCHITECTURE.md).
 */
import { settings } from '../../config';
import type { DbContext } from '../../db';
import type { Repository } from '../../api/repo';
import type { User } from '../../api/user';
import type { IssuePayload, PullRequestPayload, ChangesPayload, IssueCommentPayload } from '../../api/webhook';
import type { PayloadCommit } from '../../api/refs';
import { toRepositoryView } from '../../convert/repo';
import { toUser } from '../../convert/user';
import { toIssueOf, toComment } from '../../convert/issue';
import { toPullRequest } from '../../convert/pull';
import { toPayloadCommit } from '../../convert/refs';
import { findUserById, pseudoUser, type UserModel } from '../../models/user.model';
import { findRepoById, type RepositoryModel } from '../../models/repository.model';
import { hooksForRepo } from '../../models/webhook.model';
import { pullsOfIssues } from '../../models/pull-request.model';
import type { IssueModel } from '../../models/issue.model';
import type { CommentModel } from '../../models/comment.model';
import { listCommentAttachments } from '../../models/attachment.model';
import { findUsersByEmails } from '../../models/email-address.model';
import type { CommitRecord } from '../../git/history';
import { asUser, ANONYMOUS } from '../auth/principal';
import { viewOf } from '../repo/repo.service';
import type { RepoContext } from '../repo/context';
import { issueViewsByIds, namesOf } from '../issue/view';
import { pullViews } from '../pull/view';
import { queueHookTasks, selectHooks } from './emit';
import { repoPermission } from '../perm/permission';
import type { HookEventType } from './events';

const rootUrl = () => settings().server.rootUrl;

/** A user as hooks show it (signed-out: no admin fields, the placeholder email unless public); the Ghost for none. */
export function hookUser(u: UserModel | null): User {
  return toUser(u ?? pseudoUser(-1), null, rootUrl());
}

/** Whose permission the payload's repository carries: an owner's (all true), none (all false), or the doer's own. */
export type PayloadAccess = 'owner' | 'none' | 'doer';

/** The repository of a payload. */
export async function hookRepo(ctx: DbContext, repo: RepositoryModel, owner: UserModel, doer: UserModel | null, access: PayloadAccess): Promise<Repository> {
  const v = await viewOf(ctx, doer ? asUser(doer) : ANONYMOUS, repo, owner);
  if (access !== 'doer') {
    const all = access === 'owner';
    v.permissions = { admin: all, push: all, pull: all };
  }
  return toRepositoryView(v, null, rootUrl());
}

/** Commits as a push payload lists them, with the usernames of their authors and committers found by email. */
export async function hookCommits(ctx: DbContext, commits: (CommitRecord & { files?: { status: string; path: string }[] })[], repoHtml: string): Promise<PayloadCommit[]> {
  const emails = [...new Set(commits.flatMap((c) => [c.author.email.toLowerCase(), c.committer.email.toLowerCase()]))];
  const found = await findUsersByEmails(ctx, emails);
  const usernames = new Map([...found].map(([e, u]) => [e.toLowerCase(), u.name]));
  return commits.map((c) => {
    const pc = toPayloadCommit({ ...c, verification: null }, { html: repoHtml, api: '' }, usernames);
    if (c.files) {
      pc.added = c.files.filter((f) => f.status === 'A').map((f) => f.path);
      pc.removed = c.files.filter((f) => f.status === 'D').map((f) => f.path);
      pc.modified = c.files.filter((f) => f.status !== 'A' && f.status !== 'D').map((f) => f.path);
    }
    return pc;
  });
}

/** One verified commit as the test delivery shows it (with its verification, without files). */
export function hookVerifiedCommit(c: Parameters<typeof toPayloadCommit>[0], repoHtml: string, usernames: Map<string, string>): PayloadCommit {
  return toPayloadCommit(c, { html: repoHtml, api: '' }, usernames);
}

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
export interface IssueEventExtra { changes?: ChangesPayload; commitId?: string; requestedReviewer?: UserModel | null; review?: { type: string; content: string } | null }

/** The payload of an issue event (a pull request's when the issue is one), read in `ctx` as it stands. */
export async function issueEventPayload(ctx: DbContext, rc: RepoContext, doer: UserModel, issueId: number, action: string, x: IssueEventExtra = {}): Promise<IssuePayload | PullRequestPayload> {
  const [view] = await issueViewsByIds(ctx, [issueId], namesOf(rc));
  const repository = await hookRepo(ctx, rc.repo, rc.owner, doer, 'doer');
  const sender = hookUser(doer);
  if (!view.row.isPull) {
    return { action, number: Number(view.row.index), ...(x.changes ? { changes: x.changes } : {}), issue: toIssueOf(view, null), repository, sender, commit_id: x.commitId ?? '' };
  }
  const [pull] = await pullViews(ctx, asUser(doer), rc, [view], false);
  return {
    action, number: Number(view.row.index), ...(x.changes ? { changes: x.changes } : {}), pull_request: toPullRequest(pull, null),
    requested_reviewer: x.requestedReviewer ? hookUser(x.requestedReviewer) : null, repository, sender, commit_id: x.commitId ?? '', review: x.review ?? null,
  };
}

/** Has repository `repoId` any active hook (its own, its owner's or the system's)? */
export async function anyHookOf(ctx: DbContext, repoId: number): Promise<boolean> {
  return !settings().security.disableWebhooks && (await hooksForRepo(ctx, repoId)).length > 0;
}

/** The repository context of an event by `doer` in repository `repoId` (the doer's permission). */
async function contextOf(ctx: DbContext, repoId: number, doer: UserModel): Promise<RepoContext> {
  const repo = (await findRepoById(ctx, repoId))!;
  const owner = (await findUserById(ctx, repo.ownerId))!;
  return { repo, owner, perm: await repoPermission(ctx, asUser(doer), repo, owner) };
}

/**
 * Emit an issue or pull request event in `tx` (issues/pull_request and their assign, label and
 * milestone variants); a pull request's goes only to hooks whose branch filter takes its base.
 */
export async function emitIssueEvent(
  tx: DbContext, doer: UserModel, issue: Pick<IssueModel, 'id' | 'isPull' | 'repoId'>, kind: IssueEventKind, action: string, x: IssueEventExtra = {},
): Promise<void> {
  if (settings().security.disableWebhooks) return;
  const type = issueEventType(issue.isPull, kind);
  const all = await hooksForRepo(tx, issue.repoId);
  if (selectHooks(all, type).length === 0) return;
  const base = issue.isPull ? (await pullsOfIssues(tx, [issue.id])).get(issue.id)?.baseBranch : undefined;
  const hooks = selectHooks(all, type, base === undefined ? {} : { branch: base });
  if (hooks.length) await queueHookTasks(tx, hooks, type, await issueEventPayload(tx, await contextOf(tx, issue.repoId, doer), doer, issue.id, action, x));
}

/** Emit a comment event (issue_comment or pull_request_comment) in `tx`. */
export async function emitCommentEvent(
  tx: DbContext, doer: UserModel, issue: IssueModel, comment: CommentModel, action: IssueCommentPayload['action'], changes?: ChangesPayload,
): Promise<void> {
  if (settings().security.disableWebhooks) return;
  const type = issue.isPull ? 'pull_request_comment' : 'issue_comment';
  const hooks = selectHooks(await hooksForRepo(tx, issue.repoId), type);
  if (hooks.length === 0) return;
  const rc = await contextOf(tx, issue.repoId, doer);
  const base = await issueEventPayload(tx, rc, doer, issue.id, action);
  const apiIssue = 'issue' in base ? base.issue : toIssueOf((await issueViewsByIds(tx, [issue.id], namesOf(rc)))[0], null);
  const ref = { rootUrl: rootUrl(), repoId: rc.repo.id, owner: rc.owner.name, repo: rc.repo.name };
  const poster = comment.posterId === doer.id ? doer : await findUserById(tx, comment.posterId);
  await queueHookTasks(tx, hooks, type, {
    action, issue: apiIssue, ...('pull_request' in base ? { pull_request: base.pull_request } : {}),
    comment: toComment(comment, poster, issue, ref, null, await listCommentAttachments(tx, [comment.id])), ...(changes ? { changes } : {}),
    repository: base.repository, sender: base.sender, is_pull: issue.isPull,
  });
}
