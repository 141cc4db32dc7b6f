/**
 * Bringing a pull request's head up to date with its base (`POST /pulls/{index}/update`): a merge
 * commit of the base into the head (`Merge branch '<base>' into <head>`), or the head rebased on
 * the base. Built in the base repository's object database, then moved onto the head branch with
 * its expected old value (fetched into the head repository first when it is a fork). Whoever
 * updates must be able to push to the head branch (force-push for a rebase), by its protection
 * rule when it has one; a maintainer of the base may update a head whose poster allows it.
 */
import crypto from 'node:crypto';
import type { DbContext } from '../../db';
import { Forbidden, NotFound, Validation } from '../../errors';
import { isAncestor } from '../../git/merge';
import { repoPath } from '../../git/paths';
import { refId } from '../../git/ref-info';
import { fetchRef, moveRefs } from '../../git/ref-write';
import { ZERO_ID } from '../../git/refs';
import { withRepoLock } from '../../lock';
import { AccessMode, UnitType } from '../../models/perm';
import { PullFlow } from '../../models/pull-request.model';
import { parsePullsConfig, unitConfigOf, NEW_REPO_PULLS_CONFIG } from '../../models/repo-unit.model';
import type { UserModel } from '../../models/user.model';
import type { Principal } from '../auth/principal';
import { commitPeople } from '../content/identity';
import { repoPermission } from '../perm/permission';
import type { RepoContext } from '../repo/context';
import { canUserForcePush, canUserPush } from '../refs/branch-guard';
import { ruleForBranch } from '../refs/branch-protection.service';
import { moveRefsAndSync } from '../refs/ref-ops';
import { repoWithOwner, syncHeadRef } from './check';
import { updatedHead } from './merge-styles';
import { assertPullsReadable, pullByIndex } from './pull.service';

/** Update the head of pull request `index` by `style` (`rebase`, anything else a merge). */
export async function updatePull(ctx: DbContext, doer: UserModel, p: Principal, rc: RepoContext, index: number, style: 'merge' | 'rebase'): Promise<void> {
  assertPullsReadable(rc);
  const { issue, pr } = await pullByIndex(ctx, rc, index);
  if (pr.hasMerged) throw new Validation('the pull request is already merged');
  if (issue.isClosed) throw new Validation('the pull request is closed');
  const head = pr.flow === PullFlow.GitHub ? await repoWithOwner(ctx, pr.headRepoId) : null;
  if (!head) throw new Forbidden('this pull request has no head branch the server can update');
  const { repo: headRepo, owner: headOwner, dir: headDir } = head;
  const headPerm = headRepo.id === rc.repo.id ? rc.perm : await repoPermission(ctx, p, headRepo, headOwner);
  const rule = await ruleForBranch(ctx, headRepo.id, pr.headBranch);
  const maintainer = pr.allowMaintainerEdit && rc.perm.can(UnitType.Code, AccessMode.Write);
  const actor = { user: doer, writesCode: headPerm.can(UnitType.Code, AccessMode.Write) || maintainer };
  let allowed = rule ? await (style === 'rebase' ? canUserForcePush : canUserPush)(ctx, rule, actor) : actor.writesCode;
  if (style === 'rebase') {
    const cfg = await unitConfigOf(ctx, headRepo.id, UnitType.PullRequests);
    allowed &&= (cfg === null ? NEW_REPO_PULLS_CONFIG : parsePullsConfig(cfg)).AllowRebaseUpdate;
  }
  if (!allowed) throw new Forbidden(`user is not allowed to ${style === 'rebase' ? 'rebase' : 'merge the base into'} the head branch of this pull request`);

  const baseDir = repoPath(rc.owner.name, rc.repo.name);
  const people = commitPeople(doer, undefined, undefined, undefined);
  const next = await withRepoLock(rc.repo.id, async () => {
    const { after: head } = await syncHeadRef(ctx, pr, baseDir);
    const base = await refId(baseDir, `refs/heads/${pr.baseBranch}`);
    if (!head || !base) throw new NotFound('the head or the base branch of the pull request does not exist');
    if (await isAncestor(baseDir, base, head)) throw new Validation(`HeadBranch of PR ${pr.index} is up to date`);
    const message = `Merge branch '${pr.baseBranch}' into ${pr.headBranch}\n`;
    return { head, commit: await updatedHead(style, { dir: baseDir, base, head, message, doer: people.committer, squashAuthor: people.author }) };
  });
  const moved = 'the head branch moved meanwhile, try again';
  await withRepoLock(headRepo.id, async () => {
    const ref = `refs/heads/${pr.headBranch}`;
    if (headRepo.id !== rc.repo.id) {
      // why: the new commit exists in the base repository; a scratch ref there lets the fork fetch it.
      const scratch = `refs/forge/update-${crypto.randomUUID()}`;
      await moveRefs(baseDir, [{ ref: scratch, old: ZERO_ID, new: next.commit }]);
      try {
        await fetchRef(headDir, baseDir, scratch, scratch);
        await moveRefs(headDir, [{ ref: scratch, old: next.commit, new: ZERO_ID }]);
      } finally {
        await moveRefs(baseDir, [{ ref: scratch, old: next.commit, new: ZERO_ID }]);
      }
    }
    await moveRefsAndSync(ctx, headRepo.id, headDir, doer.id, [{ ref, old: next.head, new: next.commit }], moved);
  });
}
