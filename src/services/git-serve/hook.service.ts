/**
 * The server's side of the server-owned hooks: pre-receive asks (through the internal API) whether
 * a push may update its refs; once receive-pack exits, the refs post-receive listed are recorded
 * before the client hears the end of its push (sync.service.ts), with what may lag queued in the
 * durable outbox (push-effects.ts, push.worker.ts).
 */
import fs from 'node:fs/promises';
import { settings } from '../../config';
import { systemCtx, withTx, type DbContext } from '../../db';
import { Forbidden, NotFound, Validation } from '../../errors';
import { repoPath } from '../../git/paths';
import { quarantineEnv } from '../../git/quarantine';
import { ZERO_ID } from '../../git/refs';
import { AccessMode, UnitType } from '../../models/perm';
import { findRepoById, type RepositoryModel } from '../../models/repository.model';
import { findTaskById } from '../../models/action-task.model';
import { ActionStatus } from '../../models/action-run.model';
import { findUserById, type UserModel } from '../../models/user.model';
import { enqueue, notifyEnqueued } from '../../queue/outbox';
import { parseRefUpdates, type RefUpdate } from '../../git/hooks';
import { assertTagPushAllowed } from '../refs/tag-protection.service';
import { assertBranchPushAllowed } from '../refs/branch-guard';
import { asUser } from '../auth/principal';
import { repoPermission } from '../perm/permission';
import { maintainerMayPush } from '../refs/maintainer-edit';
import { PUSH_TOPIC, syncRepoRefs, type PushJob } from '../git-push/sync.service';
import { pullRequestPushMessage } from './push-message';

/** What a hook sends. */
export interface HookRequest {
  repo_id: number;
  pusher_id: number;
  deploy_key_id: number;
  /** The Actions task whose token pushes (0 for none). */
  actions_task_id?: number;
  transport: string;
  /** `wiki` when the push went to the repository's wiki (`code` or absent otherwise). */
  repo_kind?: string;
  updates: RefUpdate[];
  /** The push's object directories while it is in quarantine (pre-receive only). */
  git_env?: Record<string, unknown>;
}

const OBJECT_ID = /^[0-9a-f]{40}([0-9a-f]{24})?$/;

/** Check the shape of a hook request (it comes from our own hook program, but never trust a body). */
function assertHookRequest(r: HookRequest): void {
  const ok = Number.isInteger(r.repo_id) && r.repo_id > 0 && Number.isInteger(r.pusher_id) && Number.isInteger(r.deploy_key_id)
    && (r.actions_task_id === undefined || Number.isInteger(r.actions_task_id))
    && (r.repo_kind === undefined || r.repo_kind === 'code' || r.repo_kind === 'wiki')
    && (r.git_env === undefined || (typeof r.git_env === 'object' && r.git_env !== null && !Array.isArray(r.git_env)))
    && Array.isArray(r.updates) && r.updates.every((u) => OBJECT_ID.test(u.old) && OBJECT_ID.test(u.new) && typeof u.ref === 'string' && u.ref.startsWith('refs/'));
  if (!ok) throw new Validation('malformed hook request');
}

/**
 * Decide a push before git moves any ref; throws Forbidden with the message the pusher sees. An
 * accepted push gets the lines to print once its refs moved (pull requests of pushed branches).
 * why: everything is decided in one call per push, so a push is accepted or refused as a whole.
 */
export async function preReceive(r: HookRequest, ctx: DbContext = systemCtx): Promise<string> {
  assertHookRequest(r);
  const repo = await findRepoById(ctx, r.repo_id);
  const owner = repo && (await findUserById(ctx, repo.ownerId));
  if (!repo || !owner) throw new NotFound('repository does not exist');
  if (repo.isArchived) throw new Forbidden(`repository ${owner.name}/${repo.name} is archived and cannot be pushed to`);
  if (repo.isMirror && r.repo_kind !== 'wiki') throw new Forbidden('mirror repository is read-only');
  const maxRefs = settings().repository.maxPushRefs;
  if (maxRefs > 0 && r.updates.length > maxRefs) {
    throw new Forbidden(`this push changes ${r.updates.length} refs; a push may change at most ${maxRefs} ([repository] MAX_PUSH_REFS)`);
  }
  // why: the branch rules below protect the code repository's default branch and pull refs; a wiki has neither.
  if (r.repo_kind === 'wiki') return '';
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
  return pullRequestPushMessage(ctx, repo, owner, r.updates);
}

/**
 * Hold each ref of the push to what the pusher may change (git access let in readers of pull
 * requests and maintainers of a pull request's base): refs/for/* (the AGit flow) needs read on
 * pull requests and a repository with commits; anything else write on the code, or a branch the
 * pusher maintains as the head of a pull request.
 */
async function assertPusherMay(ctx: DbContext, repo: RepositoryModel, owner: UserModel, r: HookRequest): Promise<void> {
  if ((r.actions_task_id ?? 0) > 0) {
    // why: a job's token writes its own repository's branches while its task runs, unless it runs a fork's pull request.
    const task = await findTaskById(ctx, r.actions_task_id!);
    const writes = !!task && task.repoId === repo.id && task.status === ActionStatus.Running && !task.isForkPullRequest;
    if (!writes || r.updates.some((u) => u.ref.startsWith('refs/for/'))) throw new Forbidden('User permission denied for writing.');
    return;
  }
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

/** Who pushed to which repository, and how. */
export interface Pusher { repoId: number; pusherId: number; transport: string }

/**
 * Record a finished push: the refs git updated, as post-receive wrote them to `file` (nothing when
 * git updated none and post-receive did not run); the file and what pre-receive left beside it
 * are removed. The branch and tag rows and the repository's state are written before the push's
 * answer goes out (read-your-writes: a client that pushed and then lists branches, on any worker,
 * sees its push); what may lag is queued in the same transaction (syncRepoRefs).
 * why: post-receive is a shell line, not a program of ours, so a push starts one process less;
 * the server that ran receive-pack records it as soon as git exits. If recording fails here the
 * push is queued for the outbox to record; a crash in between leaves it to the reconciler, as a
 * crash between git's ref update and post-receive always did.
 */
export async function recordPush(file: string, p: Pusher, ctx: DbContext = systemCtx): Promise<void> {
  const text = await fs.readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return '';
    throw err;
  });
  await Promise.all([fs.rm(file, { force: true }), fs.rm(`${file}.after`, { force: true })]);
  const updates = parseRefUpdates(text);
  if (updates.length === 0) return;
  assertHookRequest({ repo_id: p.repoId, pusher_id: p.pusherId, deploy_key_id: 0, transport: p.transport, updates });
  const job: PushJob = { repoId: p.repoId, pusherId: p.pusherId, transport: p.transport.slice(0, 16), updates };
  try {
    await syncRepoRefs(job.repoId, { pusherId: job.pusherId, transport: job.transport, updates: job.updates }, ctx);
  } catch (err) {
    console.error(`recording a push to repository ${p.repoId} failed, queued for the outbox: ${(err as Error).message}`);
    await withTx(ctx, (tx) => enqueue(tx, PUSH_TOPIC, job));
    notifyEnqueued();
  }
}
