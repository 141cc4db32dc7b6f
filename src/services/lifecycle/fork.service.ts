/**
 * Forks: a bare copy of a repository owned by the caller or one of its organizations, linked to
 * its parent (is_fork, fork_id, the parent's num_forks), with Gitea's rules and answers.
 */
import { withTx, type DbContext } from '../../db';
import { Conflict, Forbidden, NotFound, Validation } from '../../errors';
import { settings } from '../../config';
import { repoPath } from '../../git/paths';
import { cloneBare, dirExists } from '../../git/init';
import { withRepoLock } from '../../lock';
import { findUserByName, UserType, Visibility, type UserModel } from '../../models/user.model';
import { findRepoById, findForkOf, forkIdsOf, adjustNumForks, type RepositoryModel } from '../../models/repository.model';
import { isBlocked } from '../../models/user-blocking.model';
import { copyLfsLinks } from '../../models/lfs-meta-object.model';
import { orgMembership } from '../../models/access';
import { AccessMode, UnitType } from '../../models/perm';
import type { CreateForkOption } from '../../api/repo';
import { canSeeOwner } from '../perm/permission';
import type { Principal } from '../auth/principal';
import { recordInitialRefs } from '../git-push/sync.service';
import type { RepoContext } from '../repo/context';
import { readableRepoPage, type OwnedRepo } from '../repo/visible';
import { discardNewRepo, insertOwnedRepo } from './repo-create.service';
import { assertCanCreateInOrg, assertRepoLimit, assertRepoName } from '../repo/rules';
import { notify } from '../notify/notifier';

/** Units a fork starts with (Gitea's DEFAULT_FORK_REPO_UNITS). */
export const FORK_UNITS: UnitType[] = [UnitType.Code, UnitType.PullRequests];

/** 404 when [repository] DISABLE_FORKS is set, as Gitea answers every fork route then. */
function assertForksEnabled(): void {
  if (settings().repository.disableForks) throw new NotFound();
}

/**
 * Who will own the fork: the caller, or the organization named in the request. As Gitea 1.24, an
 * unknown organization is 422 and a non-member 403; beyond 1.24 (Gitea later closed this) a member
 * also needs the right to create repositories there, and an organization it cannot see is unknown.
 */
async function forkOwner(ctx: DbContext, p: Principal, doer: UserModel, org?: string): Promise<UserModel> {
  if (org === undefined || org === null) return doer;
  const o = await findUserByName(ctx, org);
  if (!o || o.type !== UserType.Organization || !(await canSeeOwner(ctx, p, o))) throw new Validation(`org does not exist [id: 0, name: ${org}]`);
  if (!doer.isAdmin && (await orgMembership(ctx, o.id, doer.id)) === 'none') throw new Forbidden(`User is no Member of Organisation '${o.name}'`);
  await assertCanCreateInOrg(ctx, doer, o);
  return o;
}

/** Fork the repository of `rc` for `doer` (Gitea's CreateFork); returns the new repository. */
export async function forkRepo(ctx: DbContext, p: Principal, doer: UserModel, rc: RepoContext, opt: CreateForkOption): Promise<RepositoryModel> {
  assertForksEnabled();
  if (!rc.perm.can(UnitType.Code, AccessMode.Read) && rc.perm.mode < AccessMode.Admin && !doer.isAdmin) {
    throw new Forbidden('user should have specific read permission or be a repo admin or a site admin');
  }
  const owner = await forkOwner(ctx, p, doer, opt.organization);
  const name = opt.name ?? rc.repo.name;
  assertRepoName(name);
  if (await isBlocked(ctx, rc.owner.id, doer.id)) throw new Forbidden('user is blocked');
  assertRepoLimit(doer, owner, 'fork');
  const already = (o: UserModel, fork: RepositoryModel) =>
    new Conflict(`repository is already forked by user [uname: ${o.name}, repo path: ${rc.owner.name}/${rc.repo.name}, fork path: ${o.name}/${fork.name}]`);
  const existing = await findForkOf(ctx, rc.repo.id, owner.id);
  if (existing) throw already(owner, existing);

  const parentDir = repoPath(rc.owner.name, rc.repo.name);
  const dir = repoPath(owner.name, name);
  // why: the parent's lock keeps server-side writes (ref updates, repacks) off it while its files are
  // linked into the fork, and holds its row in place while the fork's row and count are written.
  const fork = await withRepoLock(rc.repo.id, async () => {
    const parent = await findRepoById(ctx, rc.repo.id);
    if (!parent) throw new NotFound(`repository does not exist [owner: ${rc.owner.name}, name: ${rc.repo.name}]`);
    const row = await insertOwnedRepo(ctx, doer, owner, {
      name, description: parent.description, defaultBranch: parent.defaultBranch, objectFormatName: parent.objectFormatName,
      // why: as Gitea, a fork of a private repository, or of any repository of a private owner, is private.
      isPrivate: parent.isPrivate || rc.owner.visibility === Visibility.Private,
      isTemplate: false, isFork: true, forkId: parent.id, isEmpty: parent.isEmpty,
    }, FORK_UNITS, {
      kind: 'fork',
      taken: (o, n) => `repository already exists [uname: ${o.name}, name: ${n}]`,
      check: async (tx) => {
        const other = await findForkOf(tx, parent.id, owner.id);
        if (other) throw already(owner, other);
        await adjustNumForks(tx, parent.id, 1);
      },
    });
    // why: the fork's own lock keeps any write to the brand-new repository out until its directory is complete.
    await withRepoLock(row.id, async () => {
      if (await dirExists(dir)) {
        await discardNewRepo(ctx, row, null);
        throw new Conflict(`repository files already exist [uname: ${owner.name}, name: ${name}]`);
      }
      try {
        await withTx(ctx, (tx) => copyLfsLinks(tx, parent.id, row.id));
        await cloneBare(parentDir, dir, parent.defaultBranch);
      } catch (err) {
        await discardNewRepo(ctx, row, dir);
        throw err;
      }
    });
    return row;
  });
  // why: the branch table, size and empty flag of the fork come from its refs, as after a push.
  await recordInitialRefs(fork.id, doer.id, fork.defaultBranch, ctx);
  await withTx(ctx, (tx) => notify.repositoryForked(tx, { doer, original: rc.repo, fork, forkOwner: owner }));
  return (await findRepoById(ctx, fork.id)) ?? fork;
}

/** One page of the forks of `rc`'s repository that `p` may read, oldest first. */
export async function listForks(ctx: DbContext, p: Principal, rc: RepoContext, limit: number, offset: number): Promise<{ rows: OwnedRepo[]; count: number }> {
  assertForksEnabled();
  return readableRepoPage(ctx, p, await forkIdsOf(ctx, rc.repo.id), limit, offset);
}
