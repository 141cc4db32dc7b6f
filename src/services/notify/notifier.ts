/**
 * The notifier (Gitea's `services/notify`, made durable): a service that changes state states what
 * happened, in its own transaction, with one typed call (`notify.issueStateChanged(tx, ...)`), and
 * knows nothing of who listens. Subscribers (webhooks, Actions, notifications, feeds, the pull
 * request and reference followers of pushes) register at start-up and write what they must not
 * lose in that same transaction: hook tasks, feed rows, outbox jobs. So an event's effects exist
 * exactly when its change committed, and their delivery runs after the commit on any node.
 * why: this folder imports no other service folder; every domain imports it, and subscribers
 * import domains, so no service folder ever needs to know another's subscribers.
 */
import type { DbContext } from '../../db';
import type { OutboxHandler } from '../../queue/worker';
import type { UserModel } from '../../models/user.model';
import type { RepositoryModel } from '../../models/repository.model';
import type { IssueModel } from '../../models/issue.model';
import type { CommentModel } from '../../models/comment.model';
import type { ReleaseModel } from '../../models/release.model';
import type { CommitStatusModel } from '../../models/commit-status.model';
import type { RefChange } from '../../models/push-event.model';
import type { ActionRunModel } from '../../models/action-run.model';
import type { ReviewType } from '../../models/review.model';
import type { JobView } from '../../models/action-job-view';
import type { PackageModel, PackageVersionModel } from '../../models/package.model';

/** A repository with its owner, as events name it. */
export interface RepoRef { repo: RepositoryModel; owner: UserModel }

/** The issue (or pull request) an event is about, as far as every event knows it. */
export type IssueRef = Pick<IssueModel, 'id' | 'isPull' | 'repoId'>;

/** The events, each with what its subscribers need to know. */
export interface Events {
  /** An issue was opened (`view`: the issue as its answer shows it, when the caller has it). */
  issueCreated: { doer: UserModel; issue: IssueModel; mentioned: number[]; assigned: number[]; view?: unknown; prepared?: Prepared };
  issueTitleChanged: { doer: UserModel; issue: IssueModel; oldTitle: string };
  issueBodyChanged: { doer: UserModel; issue: IssueModel; oldBody: string };
  /** Assignees came (each with its history entry) or went. */
  issueAssigneesChanged: { doer: UserModel; issue: IssueModel; added: { userId: number; entryId: number }[]; removed: number[] };
  /** Labels were attached or detached (`cleared`: the caller removed them all). */
  issueLabelsChanged: { doer: UserModel; issue: IssueModel; cleared: boolean };
  issueMilestoneChanged: { doer: UserModel; issue: IssueModel; milestoneId: number };
  /** Closed or reopened (`merged`: closed by its merge); `entryId` the history entry. */
  issueStateChanged: { doer: UserModel; issue: IssueModel; closed: boolean; merged: boolean; entryId: number };
  commentCreated: { doer: UserModel; issue: IssueModel; comment: CommentModel; mentioned: number[] };
  commentEdited: { doer: UserModel; issue: IssueModel; comment: CommentModel; oldBody: string };
  commentDeleted: { doer: UserModel; issue: IssueModel; comment: CommentModel };
  pullRequestOpened: { doer: UserModel; issue: IssueModel; mentioned: number[]; assigned: number[] };
  pullRequestBaseChanged: { doer: UserModel; issue: IssueRef; oldBase: string };
  /** The head moved (`entryId`: the timeline's push entry). */
  pullRequestSynchronized: { pusher: UserModel; issue: IssueRef; entryId: number };
  pullReviewRequested: { doer: UserModel; issue: IssueRef; reviewer: UserModel; added: boolean };
  /** A review was submitted: its type, body, history entry, its line comments and whom it mentions. */
  pullReviewed: {
    doer: UserModel; issue: IssueModel; type: ReviewType; body: string; verdict: boolean; entryId: number;
    lineComments: Pick<CommentModel, 'id' | 'content'>[]; mentioned: number[];
  };
  /**
   * Refs changed (a push, a server-side write, or a change the reconciler found): branches and tags
   * created, moved or deleted. `fromPush` are the pusher's, `found` those nobody reported.
   */
  refsChanged: { repoId: number; pusherId: number; transport: string; changes: RefChange[]; fromPush: RefChange[]; found: RefChange[] };
  commitStatusCreated: { doer: UserModel; at: RepoRef; status: CommitStatusModel };
  /** A release was published, edited or deleted (`firstPublished`: it is now public for the first time). */
  releaseChanged: { doer: UserModel; at: RepoRef; release: ReleaseModel; action: 'published' | 'updated' | 'deleted'; firstPublished: boolean };
  wikiChanged: { doer: UserModel; at: RepoRef; action: 'created' | 'edited' | 'deleted'; page: string; comment: string };
  /** A repository was created, generated, migrated or adopted (files on disk without a row made one). */
  repositoryCreated: { doer: UserModel; repo: RepositoryModel; owner: UserModel };
  repositoryForked: { doer: UserModel; original: RepositoryModel; fork: RepositoryModel; forkOwner: UserModel };
  repositoryRenamed: { doer: UserModel; repo: RepositoryModel; oldName: string };
  /** The default branch was changed to another (`oldBranch`: the one before). */
  repositoryDefaultBranchChanged: { doer: UserModel; repo: RepositoryModel; oldBranch: string };
  repositoryTransferred: { doer: UserModel; repo: RepositoryModel; oldOwnerName: string };
  /** Written before the repository's rows go, so its owner's and the system's hooks still hear it. */
  repositoryDeleted: { doer: UserModel; repo: RepositoryModel; owner: UserModel };
  /** Workflow runs or their jobs changed state (one transaction often settles several). */
  workflowRunsChanged: { changes: WorkflowChange[] };
  /** A package version was published (`created`) or deleted; `pkg` as it was, with its owner and its linked repository, if any. */
  packageChanged: { doer: UserModel; action: 'created' | 'deleted'; pkg: PackageRef };
  /** Something guarding an account changed: its password, or a second factor was removed. */
  accountSecurityChanged: { user: UserModel; change: 'password' | 'totp-removed' | 'security-key-removed' };
  /** A user added an address that waits for confirmation. */
  emailAddressAdded: { user: UserModel; email: string };
}

/** A package version as events name it. */
export interface PackageRef { owner: UserModel; repo: RepositoryModel | null; pkg: PackageModel; version: PackageVersionModel }

/** A run's change: the run as it now is, the changed jobs' views (read only when wanted), and the run's action if it moved. */
export interface WorkflowChange {
  run: ActionRunModel; workflowName: () => string; jobs: () => Promise<JobView[]>; runAction: 'requested' | 'in_progress' | 'completed' | null;
}

export type EventName = keyof Events;

/**
 * What subscribers prepared before a transaction for an event (read through the caches: inside a
 * transaction nothing reads outside it). `quiet`: no subscriber will write anything for it.
 */
export interface Prepared { readonly quiet: boolean; of<T>(subscriber: string): T | undefined }

/** A subscriber: its name, a handler per event it hears, and the outbox jobs that carry its work. */
export type Subscriber = { readonly name: string } & { [K in EventName]?: (tx: DbContext, e: Events[K]) => Promise<void> } & {
  /** Read ahead of a transaction what the subscriber needs for `event`; null or false: it will do nothing. */
  prepare?(ctx: DbContext, event: EventName, at: RepoRef & { doer: UserModel }): Promise<unknown>;
  readonly jobs?: Record<string, OutboxHandler>;
};

const subscribers: Subscriber[] = [];

/** Register a subscriber (at start-up, once per process; a second registration of a name replaces the first). */
export function registerSubscriber(s: Subscriber): void {
  const at = subscribers.findIndex((x) => x.name === s.name);
  if (at >= 0) subscribers[at] = s;
  else subscribers.push(s);
}

/** The outbox handlers of every registered subscriber. */
export function subscriberJobs(): Record<string, OutboxHandler> {
  return Object.assign({}, ...subscribers.map((s) => s.jobs ?? {}));
}

async function emit<K extends EventName>(name: K, tx: DbContext, e: Events[K]): Promise<void> {
  for (const s of subscribers) {
    const handler = s[name] as ((tx: DbContext, e: Events[K]) => Promise<void>) | undefined;
    if (handler) await handler.call(s, tx, e);
  }
}

/** Ask every subscriber to prepare for `event` of a repository by `doer`. */
async function prepare(ctx: DbContext, event: EventName, at: RepoRef & { doer: UserModel }): Promise<Prepared> {
  const by = new Map<string, unknown>();
  for (const s of subscribers) {
    if (!s.prepare) continue;
    const got = await s.prepare(ctx, event, at);
    if (got !== null && got !== undefined && got !== false) by.set(s.name, got);
  }
  return { quiet: by.size === 0, of: <T>(name: string) => by.get(name) as T | undefined };
}

type Notify = { [K in EventName]: (tx: DbContext, e: Events[K]) => Promise<void> } & { prepare: typeof prepare };

// why: a record of every name (not a list) makes the compiler refuse an event without its method.
const EVENT_NAMES = Object.keys({
  issueCreated: 1, issueTitleChanged: 1, issueBodyChanged: 1, issueAssigneesChanged: 1, issueLabelsChanged: 1, issueMilestoneChanged: 1, issueStateChanged: 1,
  commentCreated: 1, commentEdited: 1, commentDeleted: 1, pullRequestOpened: 1, pullRequestBaseChanged: 1, pullRequestSynchronized: 1, pullReviewRequested: 1,
  pullReviewed: 1, refsChanged: 1, commitStatusCreated: 1, releaseChanged: 1, wikiChanged: 1, repositoryCreated: 1, repositoryForked: 1, repositoryRenamed: 1, repositoryDefaultBranchChanged: 1,
  repositoryTransferred: 1, repositoryDeleted: 1, workflowRunsChanged: 1, packageChanged: 1, accountSecurityChanged: 1, emailAddressAdded: 1,
} satisfies Record<EventName, 1>) as EventName[];

/** The one way services state events: `notify.<event>(tx, {...})` inside the transaction of the change. */
export const notify: Notify = Object.assign(
  Object.fromEntries(EVENT_NAMES.map((name) => [name, (tx: DbContext, e: never) => emit(name, tx, e)])) as Omit<Notify, 'prepare'>,
  { prepare },
);
