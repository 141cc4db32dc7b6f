/**
 * Commit statuses: CI systems report a state per context for a commit; the combined status is the
 * worst latest state over the contexts.
 */
import crypto from 'node:crypto';
import { withTx, isUniqueViolation, type DbContext } from '../../db';
import { Forbidden, RepoBusy, Validation } from '../../errors';
import { repoPath } from '../../git/paths';
import { AccessMode, UnitType } from '../../models/perm';
import { findUsersByIds, type UserModel } from '../../models/user.model';
import {
  COMMIT_STATUS_STATES, insertCommitStatus, latestCommitStatuses, listCommitStatuses, type CommitStatusModel, type CommitStatusState,
} from '../../models/commit-status.model';
import type { RepoContext } from '../repo/context';
import { assertCodeReadable, resolveCommitId } from './commit.service';
import { notifyEnqueued } from '../../queue/outbox';
import { notify } from '../notify/notifier';

/** A status report (Gitea's CreateStatusOption). */
export interface StatusReport { state: string; target_url?: string; description?: string; context?: string }

// why: Gitea's order, worst first; the combined state is the worst latest state of all contexts.
const PRIORITY: Record<CommitStatusState, number> = { error: 0, failure: 1, warning: 2, pending: 3, success: 4, skipped: 5 };

/** The worst of some states, in Gitea's order (`fallback` when there are none). */
export function worstState(states: CommitStatusState[], fallback: CommitStatusState): CommitStatusState {
  return states.reduce((worst, s) => (PRIORITY[s] < PRIORITY[worst] ? s : worst), states[0] ?? fallback);
}

/** The combined state of the latest statuses ('pending' when there are none, as GitHub reports). */
export function combinedState(latest: CommitStatusModel[]): CommitStatusState {
  return worstState(latest.map((s) => s.state), 'pending');
}

/** Record a status for the commit `sha` names (write access to the code). */
export async function createCommitStatus(ctx: DbContext, rc: RepoContext, doer: UserModel, sha: string, r: StatusReport): Promise<CommitStatusModel> {
  assertCodeReadable(rc);
  if (!rc.perm.can(UnitType.Code, AccessMode.Write)) throw new Forbidden('user should have write permission to the repository code');
  if (!(COMMIT_STATUS_STATES as readonly string[]).includes(r.state)) throw new Validation(`invalid commit status state: ${JSON.stringify(r.state)}`);
  const commit = await resolveCommitId(repoPath(rc.owner.name, rc.repo.name), sha, 'sha');
  return recordCommitStatus(ctx, rc, doer, commit, r);
}

/**
 * Record a status for commit `commit` (a full id) as `doer`, without permission checks: the
 * callers are the API above and the server's own reporters (Actions).
 */
export async function recordCommitStatus(ctx: DbContext, rc: Pick<RepoContext, 'owner' | 'repo'>, doer: UserModel, commit: string, r: StatusReport): Promise<CommitStatusModel> {
  const context = (r.context ?? '').trim();
  const row = {
    repoId: rc.repo.id, sha: commit, state: r.state as CommitStatusState, targetUrl: r.target_url ?? '', description: r.description ?? '',
    context, contextHash: crypto.createHash('sha1').update(context).digest('hex'), creatorId: doer.id,
  };
  // why: two reports for one commit can pick the same next index; the unique index refuses one, which retries.
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      const made = await withTx(ctx, async (tx) => {
        const inserted = await insertCommitStatus(tx, row);
        await notify.commitStatusCreated(tx, { doer, at: rc, status: inserted });
        return inserted;
      });
      notifyEnqueued();
      return made;
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
    }
  }
  throw new RepoBusy();
}

/** The commit id `ref` names, for status reads. */
export async function statusCommit(rc: RepoContext, ref: string): Promise<string> {
  assertCodeReadable(rc);
  return resolveCommitId(repoPath(rc.owner.name, rc.repo.name), ref, 'ref');
}

/** One page of a commit's statuses. */
export function listStatuses(ctx: DbContext, rc: RepoContext, sha: string, q: { sort?: string; state?: string; limit: number; offset: number }) {
  if (q.state && !(COMMIT_STATUS_STATES as readonly string[]).includes(q.state)) throw new Validation(`invalid commit status state: ${JSON.stringify(q.state)}`);
  return listCommitStatuses(ctx, rc.repo.id, sha, q);
}

/** The latest status per context of a commit and their combined state. */
export async function combinedStatus(ctx: DbContext, rc: RepoContext, sha: string): Promise<{ state: CommitStatusState; latest: CommitStatusModel[] }> {
  const latest = await latestCommitStatuses(ctx, rc.repo.id, sha);
  return { state: combinedState(latest), latest };
}

/** The users who reported these statuses, by id. */
export async function statusCreators(ctx: DbContext, rows: CommitStatusModel[]): Promise<Map<number, UserModel>> {
  return new Map((await findUsersByIds(ctx, [...new Set(rows.map((s) => s.creatorId))])).map((u) => [u.id, u]));
}
