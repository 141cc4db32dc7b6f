/**
 * The rules of having repositories: their names, how many an owner may have, and who may create
 * them in an organization. Creating, forking, generating and transferring all ask them.
 */
import type { DbContext } from '../../db';
import { Conflict, Forbidden, Validation } from '../../errors';
import { settings, formatGoDuration, parseGoDuration } from '../../config';
import { assertStorageName } from '../../git/paths';
import type { UserModel } from '../../models/user.model';
import { teamsOfUserInOrg } from '../../models/team.model';
import { orgMembership } from '../../models/access';

const RESERVED = new Set(['.', '..', '-']);
const RESERVED_SUFFIXES = ['.git', '.rss', '.atom', '.wiki'];

/** Throw 422 unless `name` may name a repository (storage rules plus Gitea's reserved names and patterns). */
export function assertRepoName(name: string): void {
  assertStorageName(name, 'Name');
  if (RESERVED.has(name)) throw new Validation(`name is reserved [name: ${name}]`);
  const suffix = RESERVED_SUFFIXES.find((s) => name.toLowerCase().endsWith(s));
  if (suffix) throw new Validation(`name pattern is not allowed [pattern: *${suffix}]`);
}

/** How a repository would come to an owner; each way answers a reached limit as Gitea does. */
export type RepoLimitKind = 'create' | 'fork' | 'transfer';

/** The number of repositories `owner` may have: its own max_repo_creation, else [repository] MAX_CREATION_LIMIT; -1 = no limit. */
export function repoLimitOf(owner: UserModel): number {
  return owner.maxRepoCreation >= 0 ? owner.maxRepoCreation : settings().repository.maxCreationLimit;
}

/**
 * Throw when one more repository would exceed `owner`'s limit. The one check for creating,
 * generating, forking and transferring in. Site admins are not limited, whether they act or own
 * (Gitea exempts the acting admin in CanCreateRepoIn and the owning admin in CanCreateRepo).
 * Creation and generation answer 403; a fork answers 409 as Gitea's fork API does, and only when
 * [repository] ALLOW_FORK_WITHOUT_MAXIMUM_LIMIT is false (Gitea's default lets forks through);
 * a transfer answers 403 with Gitea's transfer message.
 */
export function assertRepoLimit(doer: UserModel, owner: UserModel, kind: RepoLimitKind = 'create'): void {
  if (doer.isAdmin || owner.isAdmin) return;
  if (kind === 'fork' && settings().repository.allowForkWithoutMaximumLimit) return;
  const limit = repoLimitOf(owner);
  if (limit < 0 || owner.numRepos < limit) return;
  if (kind === 'transfer') throw new Forbidden('Repository limit has been reached');
  const message = `user has reached maximum limit of repositories [limit: ${limit}]`;
  throw kind === 'fork' ? new Conflict(message) : new Forbidden(message);
}

/** May `uid` create repositories in organization `orgId` (owners, or a team with can_create_org_repo)? Site admins are not special here. */
export async function canCreateOrgRepo(ctx: DbContext, orgId: number, uid: number): Promise<boolean> {
  if ((await orgMembership(ctx, orgId, uid)) === 'owner') return true;
  return (await teamsOfUserInOrg(ctx, orgId, uid)).some((t) => t.canCreateOrgRepo);
}

/** Throw 403 unless `doer` may create repositories in organization `org`: site admins, owners, or teams with can_create_org_repo. */
export async function assertCanCreateInOrg(ctx: DbContext, doer: UserModel, org: UserModel): Promise<void> {
  if (doer.isAdmin || (await canCreateOrgRepo(ctx, org.id, doer.id))) return;
  throw new Forbidden('Given user is not allowed to create repository in organization.');
}

/**
 * Seconds of a pull mirror interval given through the API: '' is [mirror] DEFAULT_INTERVAL, 0 turns
 * scheduled syncs off, anything else is a Go duration of at least MIN_INTERVAL (422 otherwise).
 */
export function mirrorIntervalSeconds(text: string | undefined): number {
  const m = settings().mirror;
  if (text === undefined || text.trim() === '') return m.defaultInterval;
  const secs = parseGoDuration(text);
  if (secs === null || secs < 0) throw new Validation(`invalid mirror interval: time: invalid duration ${JSON.stringify(text)}`);
  if (secs !== 0 && secs < m.minInterval) throw new Validation(`invalid mirror interval: ${formatGoDuration(secs)} is below minimum interval: ${formatGoDuration(m.minInterval)}`);
  return Math.round(secs);
}
