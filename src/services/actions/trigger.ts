/**
 * Events that start workflows. A push records an outbox job in the transaction that records its
 * ref changes (when the repository's Actions unit is on); any node's outbox worker then reads the
 * workflow files at each pushed commit and makes the runs. So a crash between the push and the
 * runs loses nothing, and a push is not slowed by reading its workflows.
 */
import { systemCtx, type DbContext } from '../../db';
import { ZERO_ID } from '../../git/refs';
import { repoPath } from '../../git/paths';
import { readCommits } from '../../git/history';
import { enqueue } from '../../queue/outbox';
import type { RefChange } from '../../models/push-event.model';
import { findRepoById } from '../../models/repository.model';
import { findUserById } from '../../models/user.model';
import { buildPushPayload } from '../webhook/push-events';
import { actionsConfig, createRuns, pushTrigger } from './run.service';

/** The outbox topic of pushes for Actions. */
export const ACTIONS_PUSH_TOPIC = 'actions.push';

interface ActionsPushJob { repoId: number; pusherId: number; changes: RefChange[] }

/** In the push's transaction: queue its branch and tag updates for Actions; whether a job was queued. */
export async function queueActionsPush(tx: DbContext, repoId: number, pusherId: number, changes: RefChange[]): Promise<boolean> {
  const kept = changes.filter((c) => c.newCommitId !== ZERO_ID);
  if (kept.length === 0 || !(await actionsConfig(tx, repoId)).enabled) return false;
  await enqueue(tx, ACTIONS_PUSH_TOPIC, { repoId, pusherId, changes: kept } satisfies ActionsPushJob);
  return true;
}

/** The outbox handler: the runs of each pushed ref. */
export async function processActionsPush(payload: unknown): Promise<void> {
  const job = payload as ActionsPushJob;
  const repo = await findRepoById(systemCtx, job.repoId);
  const owner = repo && (await findUserById(systemCtx, repo.ownerId));
  if (!repo || !owner) return;
  const dir = repoPath(owner.name, repo.name);
  for (const c of job.changes) {
    const [commit] = await readCommits(dir, [c.newCommitId]);
    if (!commit) continue;
    await createRuns({
      repo, owner, doerId: job.pusherId, event: 'push', ref: c.refName, sha: c.newCommitId, title: commit.message,
      payload: await buildPushPayload(systemCtx, repo, owner, job.pusherId, c), trigger: pushTrigger(dir, c.refName, c.oldCommitId, c.newCommitId),
    });
  }
}
