/**
 * Transferring a repository to another owner, with Gitea's rules: an administrator, the new owner
 * itself, or a member who may create repositories in the receiving organization moves it at once;
 * anyone else leaves a pending transfer (Gitea's repo_transfer row) that the recipient accepts or
 * rejects. Moving renames the git directory under the repository's write lock.
 */
import { withTx, isUniqueViolation, type DbContext } from '../../db';
import { insertRepoNotifications } from '../../models/notification.model';
import { orgRepoCreatorIds } from '../../models/team-user.model';
import { Conflict, Forbidden, NotFound, Validation } from '../../errors';
import { repoPath } from '../../git/paths';
import { dirExists, moveRepoDir } from '../../git/init';
import { withRepoLock } from '../../lock';
import { isRepoAdmin } from './access';
import { findUserById, findUserByName, pseudoUser, UserType, type UserModel } from '../../models/user.model';
import { findRepoById, findRepoByOwnerAndName, changeRepoOwner, adjustNumRepos, type RepositoryModel } from '../../models/repository.model';
import { findTransferOfRepo, hasTransfer, insertTransfer, deleteTransferOfRepo, transferTeamIds } from '../../models/repo-transfer.model';
import { findTeamById, type TeamModel } from '../../models/team.model';
import { unitsOfTeams } from '../../models/team-unit.model';
import { insertTeamRepo, deleteTeamReposOfRepo } from '../../models/team-repo.model';
import { deleteCollaboratorsCoveredBy, upsertCollaboration } from '../../models/collaboration.model';
import { findWatch, insertWatch, deleteWatch } from '../../models/watch.model';
import { isBlocked } from '../../models/user-blocking.model';
import { removeRepoCardsFromOwnerProjects } from '../../models/project-issue.model';
import { AccessMode, type UnitType } from '../../models/perm';
import type { TransferRepoOption } from '../../api/repo';
import { canSeeOwner, repoPermission, RepoPermission } from '../perm/permission';
import type { Principal } from '../auth/principal';
import { repoAssignment, type RepoContext } from './context';
import { assertRepoLimit, canCreateOrgRepo } from './rules';
import { notify } from '../notify/notifier';

/** A pending transfer as the API shows it (Gitea's RepoTransfer). */
export interface TransferView { doer: UserModel; recipient: UserModel; teams: { team: TeamModel; units: Map<UnitType, AccessMode> }[] }

const MAX_ID = 2_147_483_647;

async function teamsByIds(ctx: DbContext, ids: number[]): Promise<TeamModel[]> {
  const teams: TeamModel[] = [];
  for (const id of ids) {
    const t = id > 0 && id <= MAX_ID ? await findTeamById(ctx, id) : null;
    if (t) teams.push(t);
  }
  return teams;
}

/** The pending transfer of a repository, ready to show; null when there is none (or its recipient is gone). */
export async function transferViewOf(ctx: DbContext, repoId: number): Promise<TransferView | null> {
  if (!(await hasTransfer(ctx, repoId))) return null;
  const t = await findTransferOfRepo(ctx, repoId);
  const recipient = t ? await findUserById(ctx, t.recipientId) : null;
  if (!t || !recipient) return null;
  const doer = (await findUserById(ctx, t.doerId)) ?? pseudoUser(-1);
  const teams = (await teamsByIds(ctx, transferTeamIds(t))).filter((x) => x.orgId === recipient.id);
  const units = await unitsOfTeams(ctx, teams.map((x) => x.id));
  return { doer, recipient, teams: teams.map((team) => ({ team, units: units.get(team.id) ?? new Map() })) };
}

/** Gitea's team_ids rules: only for organizations, every team must exist and belong to it. */
async function teamsForTransfer(ctx: DbContext, newOwner: UserModel, ids: number[] | null | undefined): Promise<TeamModel[]> {
  if (ids === undefined || ids === null) return [];
  if (newOwner.type !== UserType.Organization) throw new Validation('Teams can only be added to organization-owned repositories');
  const teams: TeamModel[] = [];
  for (const id of ids) {
    const team = Number.isSafeInteger(id) && id > 0 && id <= MAX_ID ? await findTeamById(ctx, id) : null;
    if (!team) throw new Validation(`team ${id} not found`);
    if (team.orgId !== newOwner.id) throw new Forbidden(`team ${id} belongs not to org ${newOwner.id}`);
    teams.push(team);
  }
  return teams;
}

/** May `doer` accept or reject a transfer to `recipient`: the user itself, or a member who may create repositories in the organization. */
async function canDecide(ctx: DbContext, doer: UserModel, recipient: UserModel): Promise<boolean> {
  if (recipient.type !== UserType.Organization) return doer.id === recipient.id;
  return canCreateOrgRepo(ctx, recipient.id, doer.id);
}

/**
 * Move `repo` from `oldOwner` to `newOwner` (the caller holds the repository's write lock): the
 * row, counters, collaborators now covered by the new owner, the old organization's team links,
 * the doer's watch, the requested teams, and the git directories (and wiki). A failure after a
 * directory moved moves it back, so rows and disk never disagree.
 */
async function moveOwnership(ctx: DbContext, doer: UserModel, repo: RepositoryModel, oldOwner: UserModel, newOwner: UserModel, teams: TeamModel[]): Promise<void> {
  const taken = () => new Validation(`repository already exists [uname: ${newOwner.name}, name: ${repo.name}]`);
  const dirs: [string, string][] = [
    [repoPath(oldOwner.name, repo.name), repoPath(newOwner.name, repo.name)],
    [repoPath(oldOwner.name, repo.name, true), repoPath(newOwner.name, repo.name, true)],
  ];
  const moved: [string, string][] = [];
  try {
    await withTx(ctx, async (tx) => {
      // why: as Gitea, a directory at the new place blocks the move just like a registered repository does.
      if ((await findRepoByOwnerAndName(tx, newOwner.id, repo.name)) || (await dirExists(dirs[0][1]))) throw taken();
      await changeRepoOwner(tx, repo, newOwner);
      // why: as Gitea, the repository's issues leave the old owner's projects, which collect the owner's repositories only.
      await removeRepoCardsFromOwnerProjects(tx, repo.id, oldOwner.id);
      await deleteCollaboratorsCoveredBy(tx, repo.id, newOwner.id);
      if (oldOwner.type === UserType.Organization) {
        await deleteTeamReposOfRepo(tx, repo.id);
        await deleteWatch(tx, oldOwner.id, repo.id);
      }
      await adjustNumRepos(tx, newOwner.id, 1);
      await adjustNumRepos(tx, oldOwner.id, -1);
      if (doer.id > 0 && !(await findWatch(tx, doer.id, repo.id))) await insertWatch(tx, doer.id, repo.id);
      await deleteTransferOfRepo(tx, repo.id);
      for (const t of teams) await insertTeamRepo(tx, newOwner.id, t.id, repo.id);
      await notify.repositoryTransferred(tx, { doer, repo, oldOwnerName: oldOwner.name });
      for (const [from, to] of dirs) {
        if (!(await dirExists(from))) continue;
        await moveRepoDir(from, to);
        moved.push([from, to]);
      }
    });
  } catch (err) {
    for (const [from, to] of moved.reverse()) await moveRepoDir(to, from).catch(() => undefined);
    if (isUniqueViolation(err)) throw taken();
    throw err;
  }
}

/** Re-read a repository and its owner under the lock; 404 when it vanished meanwhile. */
async function freshRepo(ctx: DbContext, id: number): Promise<{ repo: RepositoryModel; owner: UserModel }> {
  const repo = await findRepoById(ctx, id);
  const owner = repo ? await findUserById(ctx, repo.ownerId) : null;
  if (!repo || !owner) throw new NotFound(`repository does not exist [id: ${id}]`);
  return { repo, owner };
}

/** A user read inside a transaction (current counters, not the request's cached copy). */
function currentUser(ctx: DbContext, u: UserModel): Promise<UserModel> {
  return withTx(ctx, async (tx) => (await findUserById(tx, u.id)) ?? u);
}

/**
 * Start a transfer (repository owners and site admins). Returns true when it waits for the
 * recipient, false when the repository moved at once.
 */
export async function startTransfer(ctx: DbContext, p: Principal, doer: UserModel, rc: RepoContext, opt: TransferRepoOption): Promise<boolean> {
  if (!doer.isAdmin && rc.perm.mode < AccessMode.Owner) throw new Forbidden('user should be the owner of the repo');
  const newOwner = await findUserByName(ctx, opt.new_owner);
  // why: an owner the caller may not see (a private organization it is not in) answers like a missing one.
  if (!newOwner || !(await canSeeOwner(ctx, p, newOwner))) throw new NotFound('The new owner does not exist or cannot be found');
  const teams = await teamsForTransfer(ctx, newOwner, opt.team_ids);
  // why: the move renames the directory; the lock keeps pushes and other writes of this repository out meanwhile.
  return withRepoLock(rc.repo.id, async () => {
    const { repo, owner } = await freshRepo(ctx, rc.repo.id);
    if (await findTransferOfRepo(ctx, repo.id)) throw new Conflict(`repository is already being transferred [uname: ${owner.lowerName}, name: ${repo.name}]`);
    assertRepoLimit(doer, await currentUser(ctx, newOwner), 'transfer');
    const self = doer.isAdmin || doer.id === newOwner.id;
    if (!self && (await isBlocked(ctx, newOwner.id, doer.id))) throw new Forbidden('user is blocked');
    if (self || (newOwner.type === UserType.Organization && (await canCreateOrgRepo(ctx, newOwner.id, doer.id)))) {
      await moveOwnership(ctx, doer, repo, owner, newOwner, teams);
      return false;
    }
    await withTx(ctx, async (tx) => {
      if (await findRepoByOwnerAndName(tx, newOwner.id, repo.name)) throw new Validation(`repository already exists [uname: ${newOwner.lowerName}, name: ${repo.name}]`);
      // why: as Gitea, a user recipient who cannot see the repository gets read access, so it can look before accepting.
      const asRecipient: Principal = { user: newOwner, scopes: null, tokenId: null, method: 'basic-password' };
      if (newOwner.type === UserType.Individual && (await repoPermission(tx, asRecipient, repo, owner)).mode < AccessMode.Read) {
        await upsertCollaboration(tx, repo.id, newOwner.id, AccessMode.Read);
      }
      await insertTransfer(tx, { doerId: doer.id, recipientId: newOwner.id, repoId: repo.id, teamIds: teams.map((t) => t.id) });
      // why: as Gitea, the recipient (an organization's members who may create repositories) hears of the offer.
      const told = newOwner.type === UserType.Organization ? await orgRepoCreatorIds(tx, newOwner.id) : [newOwner.id];
      await insertRepoNotifications(tx, told, repo.id, doer.id);
    }).catch((err: unknown) => {
      if (isUniqueViolation(err)) throw new Conflict(`repository is already being transferred [uname: ${owner.lowerName}, name: ${repo.name}]`);
      throw err;
    });
    return true;
  });
}

/** The pending transfer of a repository and its recipient, or 404 (a transfer whose recipient is gone is dropped). */
async function pendingTransfer(ctx: DbContext, repoId: number) {
  const t = await findTransferOfRepo(ctx, repoId);
  const recipient = t ? await findUserById(ctx, t.recipientId) : null;
  if (t && !recipient) await withTx(ctx, (tx) => deleteTransferOfRepo(tx, repoId));
  if (!t || !recipient) throw new NotFound(`repository doesn't have a pending transfer [repo_id: ${repoId}]`);
  return { t, recipient };
}

/** Accept the pending transfer (the recipient, or a member who may create repositories in the receiving organization). */
export async function acceptTransfer(ctx: DbContext, doer: UserModel, rc: RepoContext): Promise<void> {
  await withRepoLock(rc.repo.id, async () => {
    const { t, recipient } = await pendingTransfer(ctx, rc.repo.id);
    if (!(await canDecide(ctx, doer, recipient))) throw new Forbidden('permission denied');
    assertRepoLimit(doer, await currentUser(ctx, recipient), 'transfer');
    const { repo, owner } = await freshRepo(ctx, rc.repo.id);
    // why: as Gitea, the repository moves on behalf of whoever started the transfer (it gets the watch).
    const initiator = (await findUserById(ctx, t.doerId)) ?? doer;
    const teams = (await teamsByIds(ctx, transferTeamIds(t))).filter((x) => x.orgId === recipient.id);
    await moveOwnership(ctx, initiator, repo, owner, recipient, teams);
  });
}

/** Reject the pending transfer (whoever may accept it); the repository stays where it is. */
export async function rejectTransfer(ctx: DbContext, doer: UserModel, rc: RepoContext): Promise<void> {
  await withRepoLock(rc.repo.id, async () => {
    const { recipient } = await pendingTransfer(ctx, rc.repo.id);
    if (!(await canDecide(ctx, doer, recipient))) throw new Forbidden('permission denied');
    await withTx(ctx, (tx) => deleteTransferOfRepo(tx, rc.repo.id));
  });
}

/** Cancel the pending transfer (an administrator of the repository, as Gitea's settings page offers); it stays where it is. */
export async function cancelTransfer(ctx: DbContext, rc: RepoContext): Promise<void> {
  if (!isRepoAdmin(rc)) throw new Forbidden('permission denied');
  await withRepoLock(rc.repo.id, async () => {
    await pendingTransfer(ctx, rc.repo.id);
    await withTx(ctx, (tx) => deleteTransferOfRepo(tx, rc.repo.id));
  });
}

/**
 * Resolve owner/repo for the accept and reject routes: like repoAssignment, but a caller who may
 * decide a pending transfer reaches the repository even without read access (members of a
 * receiving organization who cannot see it yet).
 */
export async function transferAssignment(ctx: DbContext, p: Principal, ownerName: string, repoName: string): Promise<RepoContext> {
  try {
    return await repoAssignment(ctx, p, ownerName, repoName);
  } catch (err) {
    if (!(err instanceof NotFound) || !p.user) throw err;
    const owner = await findUserByName(ctx, ownerName);
    const repo = owner ? await findRepoByOwnerAndName(ctx, owner.id, repoName.replace(/\.git$/i, '')) : null;
    const t = repo ? await findTransferOfRepo(ctx, repo.id) : null;
    const recipient = t ? await findUserById(ctx, t.recipientId) : null;
    if (!owner || !repo || !recipient || !(await canDecide(ctx, p.user, recipient))) throw err;
    return { owner, repo, perm: new RepoPermission(new Map(), false) };
  }
}
