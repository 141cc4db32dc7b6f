/**
 * What branch, tag and release writes share: resolving a user's revision to a commit in the
 * worker pool, reading commits with the users their emails belong to, and moving refs under the
 * repository lock with the expected old values, followed by the ref sync that keeps the branch
 * table, tag rows, push events, the default branch and the empty flag right.
 */
import type { DbContext } from '../../db';
import { Conflict } from '../../errors';
import { resolveCommit } from '../../git/cat-file';
import { readCommits, type CommitRecord } from '../../git/history';
import { moveRefs, RefConflict, type RefMove } from '../../git/ref-write';
import { findUsersByEmails } from '../../models/email-address.model';
import { syncRepoRefsLocked } from '../git-push/sync.service';
import { verifyCommits, type Verification } from '../history/verify.service';
import { isValidRefName } from './names';

/** The full commit id `rev` (branch, tag or commit id) names, or null when it names no commit. */
export async function resolveRev(gitDir: string, rev: string): Promise<string | null> {
  // why: only names and ids; revision expressions (`:/text`, `@{...}`, `~`) are not start points here.
  if (!isValidRefName(rev) || rev.startsWith('-')) return null;
  return resolveCommit(gitDir, rev);
}

/** A commit with its signature verification. */
export type VerifiedCommit = CommitRecord & { verification: Verification };

/** Commits by id (verified) with the lower-cased email -> user name map of their authors and committers. */
export async function commitsWithUsers(ctx: DbContext, gitDir: string, ids: string[]): Promise<{ commits: Map<string, VerifiedCommit>; usernames: Map<string, string> }> {
  const list = await readCommits(gitDir, [...new Set(ids)]);
  const users = await findUsersByEmails(ctx, list.flatMap((c) => [c.author.email, c.committer.email]));
  const verified = await verifyCommits(ctx, list, users);
  const commits = new Map(list.map((c) => [c.id, { ...c, verification: verified.get(c.id)! }]));
  return { commits, usernames: new Map([...users].map(([email, u]) => [email, u.name])) };
}

/**
 * Move refs (the caller holds the repository lock) and record the change like a push by `doerId`.
 * A ref that is not at its expected value answers 409 with `conflict`.
 */
export async function moveRefsAndSync(
  ctx: DbContext, repoId: number, gitDir: string, doerId: number, moves: RefMove[], conflict: string, beforeSync?: () => Promise<void>,
): Promise<void> {
  try {
    await moveRefs(gitDir, moves);
  } catch (err) {
    if (err instanceof RefConflict) throw new Conflict(conflict);
    throw err;
  }
  if (beforeSync) await beforeSync();
  await syncRepoRefsLocked(repoId, { pusherId: doerId, transport: 'api', updates: moves.map((m) => ({ old: m.old, new: m.new, ref: m.ref })) }, ctx);
}
