/**
 * Events that start workflows. A push records an outbox job in the transaction that records its
 * ref changes (when the repository's Actions unit is on), as other events do through
 * src/services/actions/events.ts; any node's outbox worker then reads the workflow files at the
 * event's commit and makes the runs. So a crash between the event and the runs loses nothing, and
 * the event is not slowed by reading workflows.
 */
import { systemCtx, type DbContext } from '../../db';
import { ZERO_ID } from '../../git/refs';
import { repoPath } from '../../git/paths';
import { changedPaths, readCommits } from '../../git/history';
import { resolveCommit } from '../../git/cat-file';
import { enqueue } from '../../queue/outbox';
import type { RefChange } from '../../models/push-event.model';
import { findRepoById } from '../../models/repository.model';
import { findRunById } from '../../models/action-run.model';
import { findUserById } from '../../models/user.model';
import { buildPushPayload } from '../payload/push';
import { hookRepo, hookUser } from '../payload/parts';
import { createRuns, pushTrigger } from './run.service';
import { actionsConfig } from './config';
import { onKeysOf, type ActionsEventJob } from './events';
import { eventMatches, type Workflow } from './workflow-parse';
import { refreshSchedules } from './schedule.service';

/** The message of a commit, a run's title. */
async function titleOf(dir: string, sha: string): Promise<string> {
  return (await readCommits(dir, [sha]))[0]?.message ?? '';
}

/** The outbox topic of pushes for Actions. */
export const ACTIONS_PUSH_TOPIC = 'actions.push';

interface ActionsPushJob { repoId: number; pusherId: number; changes: RefChange[] }

/** In the push's transaction: queue its branch and tag updates for Actions; whether a job was queued. */
export async function queueActionsPush(tx: DbContext, repoId: number, pusherId: number, changes: RefChange[]): Promise<boolean> {
  if (changes.length === 0 || !(await actionsConfig(tx, repoId)).enabled) return false;
  await enqueue(tx, ACTIONS_PUSH_TOPIC, { repoId, pusherId, changes } satisfies ActionsPushJob);
  return true;
}

/**
 * The outbox handler: the runs of each pushed ref: `create` (at the new commit) for a new branch or
 * tag, then `push`; `delete` (at the default branch's head) for a deleted one. A push to the
 * default branch also replaces the repository's schedules.
 */
export async function processActionsPush(payload: unknown): Promise<void> {
  const job = payload as ActionsPushJob;
  const repo = await findRepoById(systemCtx, job.repoId);
  const owner = repo && (await findUserById(systemCtx, repo.ownerId));
  if (!repo || !owner) return;
  const dir = repoPath(owner.name, repo.name);
  const pusher = job.pusherId > 0 ? await findUserById(systemCtx, job.pusherId) : null;
  const refPayload = async (c: RefChange) => ({
    ref: c.refName.replace(/^refs\/(heads|tags)\//, ''), ref_type: c.refName.startsWith('refs/tags/') ? 'tag' : 'branch',
    repository: await hookRepo(systemCtx, repo, owner, pusher, 'owner'), sender: hookUser(pusher),
  });
  const only = (key: string) => async (wf: Workflow) => (wf.on.has(key) ? key : null);
  for (const c of job.changes) {
    if (c.newCommitId === ZERO_ID) {
      const head = await resolveCommit(dir, `refs/heads/${repo.defaultBranch}`);
      if (!head) continue;
      await createRuns({
        repo, owner, doerId: job.pusherId, event: 'delete', ref: `refs/heads/${repo.defaultBranch}`, sha: head, trigger: only('delete'),
        details: async () => ({ title: await titleOf(dir, head), payload: { ...(await refPayload(c)), pusher_type: 'user' } }),
      });
      continue;
    }
    if (!(await resolveCommit(dir, c.newCommitId))) continue;
    if (c.refName === `refs/heads/${repo.defaultBranch}`) await refreshSchedules(repo, owner, c.newCommitId, job.pusherId);
    const at = { repo, owner, doerId: job.pusherId, ref: c.refName, sha: c.newCommitId };
    if (c.oldCommitId === ZERO_ID) {
      await createRuns({ ...at, event: 'create', trigger: only('create'), details: async () => ({ title: await titleOf(dir, c.newCommitId), payload: { sha: c.newCommitId, ...(await refPayload(c)) } }) });
    }
    await createRuns({
      ...at, event: 'push', trigger: pushTrigger(dir, c.refName, c.oldCommitId, c.newCommitId),
      details: async () => ({ title: await titleOf(dir, c.newCommitId), payload: await buildPushPayload(systemCtx, repo, owner, job.pusherId, c) }),
    });
  }
}

interface PullSide { ref: string; sha: string; repo_id: number }
interface EventPayload {
  action?: string; pull_request?: { number: number; title: string; base: PullSide; head: PullSide; merge_base?: string };
  workflow?: { name: string }; workflow_run?: { id: number; head_branch?: string; display_title?: string };
}

/** How many workflow_run triggers led to the run `runId` (Gitea stops the chain at 5). */
async function workflowRunDepth(runId: number): Promise<number> {
  let depth = 0;
  for (let id: number | undefined = runId; id && depth < MAX_WORKFLOW_RUN_DEPTH; depth++) {
    const run = await findRunById(systemCtx, id);
    if (!run || run.event !== 'workflow_run') break;
    id = (JSON.parse(run.eventPayload) as EventPayload).workflow_run?.id;
  }
  return depth;
}
const MAX_WORKFLOW_RUN_DEPTH = 5;
const HEX_ID = /^[0-9a-f]{40}([0-9a-f]{24})?$/;

/** The outbox handler of issue, comment, pull request, release and workflow_run events: the runs they start. */
export async function processActionsEvent(raw: unknown): Promise<void> {
  const job = raw as ActionsEventJob;
  const payload = job.payload as EventPayload;
  const repo = await findRepoById(systemCtx, job.repoId);
  const owner = repo && (await findUserById(systemCtx, repo.ownerId));
  if (!repo || !owner || repo.isEmpty) return;
  const dir = repoPath(owner.name, repo.name);
  const pr = payload.pull_request;
  const keys = onKeysOf(job.type);
  const sha = pr ? null : await resolveCommit(dir, `refs/heads/${repo.defaultBranch}`);
  const base = { repo, owner, doerId: job.doerId, event: job.type, details: async () => ({ title: pr ? pr.title : await titleOf(dir, sha!), payload }) };
  if (pr && keys.includes('pull_request')) {
    // pull_request runs the workflows of the pull request's head; pull_request_target those of its base branch.
    // why: a fork's head reaches the base repository with the pull request's check, which may come after this job; a retry finds it.
    const headSha = await resolveCommit(dir, HEX_ID.test(pr.head.sha) ? pr.head.sha : `refs/pull/${pr.number}/head`);
    if (!headSha) throw new Error(`the head of pull request #${pr.number} is not in the repository yet`);
    const from = [pr.merge_base, pr.base.sha].find((x) => x && HEX_ID.test(x)) ?? ZERO_ID;
    const ev = { action: payload.action, branch: pr.base.ref, changedFiles: () => changedPaths(dir, from, headSha) };
    const isFork = pr.head.repo_id !== pr.base.repo_id;
    await createRuns({ ...base, ref: `refs/pull/${pr.number}/head`, sha: headSha, isFork, trigger: async (wf) => ((await eventMatches(wf, 'pull_request', ev)) ? 'pull_request' : null) });
    const baseSha = await resolveCommit(dir, `refs/heads/${pr.base.ref}`);
    if (baseSha) {
      await createRuns({ ...base, ref: `refs/heads/${pr.base.ref}`, sha: baseSha, isFork, trigger: async (wf) => ((await eventMatches(wf, 'pull_request_target', ev)) ? 'pull_request_target' : null) });
    }
    return;
  }
  if (!sha) return;
  if (job.type === 'workflow_run' && (await workflowRunDepth(payload.workflow_run?.id ?? 0)) >= MAX_WORKFLOW_RUN_DEPTH) return;
  const ev = { action: payload.action, ...(job.type === 'workflow_run' ? { workflow: payload.workflow?.name, branch: payload.workflow_run?.head_branch ?? '' } : {}) };
  const key = keys[0];
  await createRuns({ ...base, ref: `refs/heads/${repo.defaultBranch}`, sha, trigger: async (wf) => ((await eventMatches(wf, key, ev)) ? key : null) });
}
