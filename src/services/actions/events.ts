/**
 * Repository events that may start workflows (issues, comments, pull requests, releases, the runs
 * of other workflows). The code that emits hook events asks `actionsWanted` in its transaction;
 * when a workflow may listen, it queues the event's payload here, in the same transaction, and an
 * outbox worker makes the runs (src/services/actions/trigger.ts).
 */
import type { DbContext } from '../../db';
import { repoPath } from '../../git/paths';
import { enqueue, notifyEnqueued } from '../../queue/outbox';
import { findRepoById } from '../../models/repository.model';
import { findUserById } from '../../models/user.model';
import { refId } from '../../git/ref-info';
import { actionsConfig } from './config';
import { parseWorkflow } from './workflow-parse';
import { knownTriggers } from './workflows';

/** The outbox topic of such events. */
export const ACTIONS_EVENT_TOPIC = 'actions.event';

/** The `on:` keys that hear a Gitea event type. */
export function onKeysOf(type: string): string[] {
  if (type === 'issues' || type.startsWith('issue_') && type !== 'issue_comment') return ['issues'];
  if (type === 'issue_comment' || type === 'pull_request_comment') return ['issue_comment'];
  if (type.startsWith('pull_request_review_') && type !== 'pull_request_review_request') return ['pull_request_review'];
  if (type === 'pull_request' || type.startsWith('pull_request_')) return ['pull_request', 'pull_request_target'];
  return [type];
}

/** A queued event. */
export interface ActionsEventJob { repoId: number; doerId: number; type: string; payload: unknown }

/**
 * Whether an event of `type` may start a workflow of the repository: Actions on, and a workflow of
 * the default branch listening (pull request events are always taken: their workflows come from the
 * pull request's own head).
 */
export async function actionsWanted(ctx: DbContext, repoId: number, type: string): Promise<boolean> {
  const keys = onKeysOf(type);
  if (!['issues', 'issue_comment', 'pull_request', 'pull_request_review', 'release', 'workflow_run'].includes(keys[0])) return false;
  if (!(await actionsConfig(ctx, repoId)).enabled) return false;
  if (keys.includes('pull_request')) return true;
  const repo = await findRepoById(ctx, repoId);
  const owner = repo && (await findUserById(ctx, repo.ownerId));
  if (!repo || !owner) return false;
  // why: git owns refs; the branch table follows a push a moment later, and an issue opened right after
  // the push that brought the workflows must already be heard.
  const gitDir = repoPath(owner.name, repo.name);
  const head = await refId(gitDir, `refs/heads/${repo.defaultBranch}`);
  if (!head) return false;
  // why: the first event at a new head is queued; the handler reads the files outside the transaction, and later events know.
  const listening = knownTriggers(gitDir, head, (text) => parseWorkflow(text).on.keys());
  return !listening || keys.some((k) => listening.has(k));
}

/** Queue an event for Actions in `tx`. */
export async function queueActionsEvent(tx: DbContext, job: ActionsEventJob): Promise<void> {
  await enqueue(tx, ACTIONS_EVENT_TOPIC, job);
  if (tx.tx) tx.tx.afterCommit(() => notifyEnqueued());
  else notifyEnqueued();
}
