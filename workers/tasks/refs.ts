/** Resolving revisions to commits. */
import NodeGit from 'nodegit';
import { repository } from '../repo-cache';
import { taskError } from '../errors';

/** Arguments of resolveCommit. */
export interface ResolveCommitArgs { gitDir: string; rev: string }

/**
 * The full id of the commit `rev` names (a branch, tag, full or abbreviated id), or a 404 task
 * error. `rev` has already been checked by the caller (no leading '-', no control characters).
 */
export async function resolveCommit({ gitDir, rev }: ResolveCommitArgs): Promise<string> {
  const repo = await repository(gitDir);
  try {
    const obj = await NodeGit.Revparse.single(repo, rev);
    const commit = await obj.peel(NodeGit.Object.TYPE.COMMIT);
    return commit.id().tostrS();
  } catch {
    throw taskError(404, `object does not exist [id: ${rev}, rel_path: ]`);
  }
}
