/**
 * `POST /repos/{owner}/{repo}/merge-upstream`: bring a fork's branch up to its parent's branch of
 * the same name (or the parent's default branch): nothing when it has everything already, a
 * fast-forward when it has nothing of its own, else a merge commit (`merge upstream`), unless
 * `ff_only` asks for a fast-forward alone. The parent's commits are fetched into the fork first;
 * the fork's branch moves with its expected old value, under its protection rule.
 */
import crypto from 'node:crypto';
import type { DbContext } from '../../db';
import { BadRequest, Forbidden, HttpError, NotFound } from '../../errors';
import { isAncestor } from '../../git/merge';
import { repoPath } from '../../git/paths';
import { refId } from '../../git/ref-info';
import { fetchRef, moveRefs } from '../../git/ref-write';
import { ZERO_ID } from '../../git/refs';
import { withRepoLock } from '../../lock';
import { AccessMode, UnitType } from '../../models/perm';
import type { UserModel } from '../../models/user.model';
import { commitPeople } from '../content/identity';
import type { RepoContext } from '../repo/context';
import { assertNotArchived, assertUnitWriter } from '../repo/access';
import { canUserPush } from '../refs/branch-guard';
import { ruleForBranch } from '../refs/branch-protection.service';
import { isValidRefName } from '../refs/names';
import { moveRefsAndSync } from '../refs/ref-ops';
import { updatedHead } from './merge-styles';
import { repoWithOwner } from './check';

/** What merge-upstream did: `up-to-date`, `fast-forward` or `merge`. */
export type UpstreamMerge = 'up-to-date' | 'fast-forward' | 'merge';

/** Merge the parent's branch into the fork's `branch` (the default branch when empty). */
export async function mergeUpstream(ctx: DbContext, doer: UserModel, rc: RepoContext, o: { branch?: string; ff_only?: boolean }): Promise<UpstreamMerge> {
  assertNotArchived(rc);
  assertUnitWriter(rc, UnitType.Code);
  if (!rc.repo.isFork || !rc.repo.forkId) throw new BadRequest('repo is not a fork');
  const branch = o.branch || rc.repo.defaultBranch;
  const dir = repoPath(rc.owner.name, rc.repo.name);
  const missing = () => new NotFound(`branch does not exist [repo_id: ${rc.repo.id} name: ${branch}]`);
  const mine = isValidRefName(branch) && !branch.startsWith('-') ? await refId(dir, `refs/heads/${branch}`) : null;
  if (!mine) throw missing();
  const up = await repoWithOwner(ctx, rc.repo.forkId);
  if (!up) throw new BadRequest('repo is not a fork');
  const { repo: parent, owner: parentOwner, dir: parentDir } = up;
  const source = (await refId(parentDir, `refs/heads/${branch}`)) ? branch : parent.defaultBranch;
  const rule = await ruleForBranch(ctx, rc.repo.id, branch);
  if (rule && !(await canUserPush(ctx, rule, { user: doer, writesCode: rc.perm.can(UnitType.Code, AccessMode.Write) }))) {
    throw new Forbidden(`Not allowed to push to protected branch ${branch}`);
  }
  return withRepoLock(rc.repo.id, async () => {
    const scratch = `refs/forge/upstream-${crypto.randomUUID()}`;
    await fetchRef(dir, parentDir, `refs/heads/${source}`, scratch);
    try {
      const theirs = (await refId(dir, scratch))!;
      const ours = await refId(dir, `refs/heads/${branch}`);
      if (!ours) throw missing();
      if (await isAncestor(dir, theirs, ours)) return 'up-to-date';
      const fastForward = await isAncestor(dir, ours, theirs);
      if (!fastForward && o.ff_only) throw new HttpError(409, `${branch} has commits that ${parentOwner.name}/${parent.name}:${source} does not: a fast-forward is not possible`);
      const people = commitPeople(doer, undefined, undefined, undefined);
      const next = fastForward ? theirs : await updatedHead('merge', { dir, base: theirs, head: ours, message: 'merge upstream\n', doer: people.committer, squashAuthor: people.author });
      await moveRefsAndSync(ctx, rc.repo.id, dir, doer.id, [{ ref: `refs/heads/${branch}`, old: ours, new: next }], `${branch} moved meanwhile, try again`);
      return fastForward ? 'fast-forward' : 'merge';
    } finally {
      const left = await refId(dir, scratch);
      if (left) await moveRefs(dir, [{ ref: scratch, old: left, new: ZERO_ID }]);
    }
  });
}
