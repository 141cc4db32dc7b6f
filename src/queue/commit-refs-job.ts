/**
 * The outbox job that records the references a push's commits make (`issue.commit-refs`): queued
 * by the push's ref sync, done by the issue service's handler.
 * why: the topic and the job's shape live below both, so the push code need not import the issue
 * domain to queue it (service folders form no circle through this job).
 */
import type { DbContext } from '../db';
import { ZERO_ID } from '../git/refs';
import type { RefChange } from '../models/push-event.model';
import { enqueue } from './outbox';

export const COMMIT_REFS_TOPIC = 'issue.commit-refs';

/** What the job carries: the branch changes a known pusher made. */
export interface CommitRefsJob { repoId: number; pusherId: number; changes: RefChange[] }

/**
 * In the ref sync's transaction: queue the branch changes a known pusher made; whether a job was
 * queued. Tags and deletions bring no commits to read.
 */
export async function queueCommitRefs(tx: DbContext, repoId: number, pusherId: number, changes: RefChange[]): Promise<boolean> {
  const branches = changes.filter((c) => c.refName.startsWith('refs/heads/') && c.newCommitId !== ZERO_ID);
  if (pusherId <= 0 || branches.length === 0) return false;
  await enqueue(tx, COMMIT_REFS_TOPIC, { repoId, pusherId, changes: branches } satisfies CommitRefsJob);
  return true;
}
