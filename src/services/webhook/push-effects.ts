/**
 * What a recorded ref change brings that may lag behind the push's answer: its webhooks (push,
 * create, delete) and its feed entries. Both need git's commit lists, so the ref sync only queues
 * one PUSH_EFFECTS_TOPIC job in the transaction that records the change; any node's outbox worker
 * plans the payloads from the recorded old and new ids, and writes the hook tasks and feed entries
 * in one transaction with the job's completion, so a replay after a crash writes them once.
 */
import { systemCtx, withTx, type DbContext } from '../../db';
import { repoPath } from '../../git/paths';
import { updateCommitGraph } from '../../git/history';
import { locker } from '../../lock';
import { findRepoById } from '../../models/repository.model';
import { findUserById } from '../../models/user.model';
import type { RefChange } from '../../models/push-event.model';
import { completeInTx, enqueue, notifyEnqueued } from '../../queue/outbox';
import type { OutboxJobRef } from '../../queue/worker';
import { planPushEvents, queuePushEvents } from './push-events';
import { PushRanges } from '../refs/push-range';
import { planPushActivity } from '../activity/push';
import { recordActivity } from '../activity/record';

/** The outbox topic of a recorded ref change's webhooks and feed entries. */
export const PUSH_EFFECTS_TOPIC = 'repo.push-effects';

/**
 * The payload of a PUSH_EFFECTS_TOPIC job: the changes the pusher made, those found without one,
 * and whether the repository's commit-graph needs bringing up to date (after a git push).
 */
export interface PushEffects { repoId: number; pusherId: number; fromPush: RefChange[]; found: RefChange[]; commitGraph?: boolean }

/** In the ref sync's transaction: queue the webhooks and feed entries of its changes. */
export async function queuePushEffects(tx: DbContext, job: PushEffects): Promise<void> {
  await enqueue(tx, PUSH_EFFECTS_TOPIC, job);
}

/** The outbox handler: plan the hook payloads and feed entries (git work), then write them with the job's completion. */
export async function processPushEffects(payload: unknown, job: OutboxJobRef): Promise<void> {
  const p = payload as PushEffects;
  // why: one repository's jobs run one at a time, so its hook tasks keep the order of its pushes.
  const dir = await locker().withLock(`push-effects:${p.repoId}`, async () => {
    const ctx = systemCtx;
    const repo = await findRepoById(ctx, p.repoId);
    const owner = repo && (await findUserById(ctx, repo.ownerId));
    if (!repo || !owner) return null;
    const gitDir = repoPath(owner.name, repo.name);
    const ranges = new PushRanges(gitDir);
    const hookEvents = [
      ...await planPushEvents(ctx, repo, owner, p.pusherId, p.fromPush, gitDir, ranges),
      ...await planPushEvents(ctx, repo, owner, 0, p.found, gitDir, ranges),
    ];
    const activity = await planPushActivity(repo, owner, p.pusherId, p.fromPush, ranges);
    await withTx(ctx, async (tx) => {
      await queuePushEvents(tx, { repoId: repo.id, ownerId: owner.id }, hookEvents);
      await recordActivity(tx, activity);
      await completeInTx(tx, job);
    });
    return gitDir;
  });
  notifyEnqueued();
  // why: git takes its own lock on the graph files, and a concurrent writer finds the work done; a failure costs only speed.
  if (dir && p.commitGraph) await updateCommitGraph(dir).catch((err: unknown) => console.error(`commit-graph of repository ${p.repoId}:`, (err as Error).message));
}
