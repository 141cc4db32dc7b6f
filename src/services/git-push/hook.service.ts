/**
 * What the server-owned hooks ask of the server (through the internal API): pre-receive decides
 * whether a push may update its refs; post-receive records the push in the durable outbox, where
 * a worker processes it (push.worker.ts).
 */
import { settings } from '../../config';
import { systemCtx, withTx, type DbContext } from '../../db';
import { Forbidden, NotFound, Validation } from '../../errors';
import { repoPath } from '../../git/paths';
import { quarantineEnv } from '../../git/quarantine';
import { ZERO_ID } from '../../git/refs';
import { AccessMode, UnitType } from '../../models/perm';
import { findRepoById, type RepositoryModel } from '../../models/repository.model';
import { findUserById, type UserModel } from '../../models/user.model';
import { enqueue, notifyEnqueued } from '../../queue/outbox';
import type { RefUpdate } from './sync.service';
import { assertTagPushAllowed } from '../refs/tag-protection.service';
import { assertBranchPushAllowed } from '../refs/branch-guard';
import { asUser } from '../auth/principal';
import { repoPermission } from '../perm/permission';
import { maintainerMayPush } from '../refs/maintainer-edit';

/** The outbox topic of a recorded push. */
export const PUSH_TOPIC = 'repo.push';

/** What a hook sends. */
export interface HookRequest {
  repo_id: number;
  pusher_id: number;
  deploy_key_id: number;
  transport: string;
  /** `wiki` when the push went to the repository's wiki (`code` or absent otherwise). */
  repo_kind?: string;
  updates: RefUpdate[];
  /** The push's object directories while it is in quarantine (pre-receive only). */
  git_env?: Record<string, unknown>;
}

/** The payload of a PUSH_TOPIC job. */
export interface PushJob { repoId: number; pusherId: number; transport: string; updates: RefUpdate[] }

const OBJECT_ID = /^[0-9a-f]{40}([0-9a-f]{24})?$/;

/** Check the shape of a hook request (it comes from our own hook program, but never trust a body). */
function assertHookRequest(r: HookRequest): void {
  const ok = Number.isInteger(r.repo_id) && r.repo_id > 0 && Number.isInteger(r.pusher_id) && Number.isInteger(r.deploy_key_id)
    && (r.repo_kind === undefined || r.repo_kind === 'code' || r.repo_kind === 'wiki')
    && (r.git_env === undefined || (typeof r.git_env === 'object' && r.git_env !== null && !Array.isArray(r.git_env)))
    && Array.isArray(r.updates) && r.updates.every((u) => OBJECT_ID.test(u.old) && OBJECT_ID.test(u.new) && typeof u.ref === 'string' && u.ref.startsWith('refs/'));
  if (!ok) throw new Validation('malformed hook request');
}

/**
 * Decide a push before git moves any ref; throws Forbidden with the message the pusher sees.
 * why: everything is decided in one call per push, so a push is accepted or refused as a whole.
 */
export async function preReceive(r: HookRequest, ctx: DbContext = systemCtx): Promise<void> {
  assertHookRequest(r);
  const repo = await findRepoById(ctx, r.repo_id);
  const owner = repo && (await findUserById(ctx, repo.ownerId));
  if (!repo || !owner) throw new NotFound('repository does not exist');
  if (repo.isArchived) throw new Forbidden(`repository ${owner.name}/${repo.name} is archived and cannot be pushed to`);
  const maxRefs = settings().repository.maxPushRefs;
  if (maxRefs > 0 && r.updates.length > maxRefs) {
    throw new Forbidden(`this push changes ${r.updates.length} refs; a push may change at most ${maxRefs} ([repository] MAX_PUSH_REFS)`);
  }
  // why: the branch rules below protect the code repository's default branch and pull refs; a wiki has neither.
  if (r.repo_kind === 'wiki') return;
  for (const u of r.updates) {
    if (u.ref.startsWith('refs/pull/')) throw new Forbidden(`${u.ref}: refs/pull/* is maintained by the server and cannot be pushed`);
    if (u.new === ZERO_ID && u.ref === `refs/heads/${repo.defaultBranch}` && !repo.isEmpty) {
      throw new Forbidden(`branch ${repo.defaultBranch} is the default branch and cannot be deleted`);
    }
  }
  await assertPusherMay(ctx, repo, owner, r);
  await assertTagPushAllowed(ctx, repo.id, r.pusher_id, r.updates);
  const gitDir = repoPath(owner.name, repo.name);
  await assertBranchPushAllowed(ctx, {
    repo, owner, pusherId: r.pusher_id, deployKeyId: r.deploy_key_id, gitDir, env: quarantineEnv(gitDir, r.git_env), updates: r.updates,
  });
}

/**
 * Hold each ref of the push to what the pusher may change (git access let in readers of pull
 * requests and maintainers of a pull request's base): refs/for/* (the AGit flow) needs read on
 * pull requests and a repository with commits; anything else write on the code, or a branch the
 * pusher maintains as the head of a pull request.
 */
async function assertPusherMay(ctx: DbContext, repo: RepositoryModel, owner: UserModel, r: HookRequest): Promise<void> {
  const pusher = r.deploy_key_id > 0 ? null : await findUserById(ctx, r.pusher_id);
  // why: a deploy key's write was decided by git access, and it opens no pull requests.
  const perm = pusher ? await repoPermission(ctx, asUser(pusher), repo, owner) : null;
  for (const u of r.updates) {
    if (u.ref.startsWith('refs/for/')) {
      if (!perm?.can(UnitType.PullRequests, AccessMode.Read)) throw new Forbidden('User permission denied for creating pull-request.');
      if (repo.isEmpty) throw new Forbidden("Can't create pull request for an empty repository.");
      continue;
    }
    if (r.deploy_key_id > 0 || perm?.can(UnitType.Code, AccessMode.Write)) continue;
    const branch = u.ref.startsWith('refs/heads/') ? u.ref.slice('refs/heads/'.length) : null;
    if (!pusher || !branch || !(await maintainerMayPush(ctx, pusher, repo.id, branch))) throw new Forbidden('User permission denied for writing.');
  }
}

/** Record a completed push in the outbox; the processing happens in a worker. */
export async function postReceive(r: HookRequest, ctx: DbContext = systemCtx): Promise<void> {
  assertHookRequest(r);
  // why: push processing syncs the code repository's branch table, default branch, empty flag and
  // size; none of that describes a wiki, whose only state is its git refs, so nothing is recorded.
  if (r.repo_kind === 'wiki') return;
  const job: PushJob = { repoId: r.repo_id, pusherId: r.pusher_id, transport: r.transport.slice(0, 16), updates: r.updates };
  await withTx(ctx, (tx) => enqueue(tx, PUSH_TOPIC, job));
  notifyEnqueued();
}
