/**
 * The hook events of ref changes, as Gitea sends them for a push (services/repository/push.go):
 * - a new branch: `create`, then `push` with up to 10 commits back from its tip;
 * - a moved branch: `push` with the commits between the old and the new tip;
 * - a deleted branch: `delete` only;
 * - a new tag: `push` without commits (its head commit the tagged one), then `create`;
 * - a deleted tag: `push` without commits or head commit, then `delete`.
 * A push lists its commits as refs/push-range reads them. The git work is done before the
 * transaction that records the changes (planPushEvents); the tasks are written in it (queuePushEvents).
 */
import { settings } from '../../config';
import { withTx, type DbContext } from '../../db';
import { NotFound } from '../../errors';
import type { HookPayload } from '../../api/webhook';
import { ZERO_ID } from '../../git/refs';
import type { RefChange } from '../../models/push-event.model';
import type { RepositoryModel } from '../../models/repository.model';
import { findUserById, type UserModel } from '../../models/user.model';
import { hooksForEvent, type WebhookModel } from '../../models/webhook.model';
import { repoPath } from '../../git/paths';
import type { RepoContext } from '../repo/context';
import { resolveRefCommit } from '../content/refs';
import { repoUrls } from '../content/view';
import { notFoundWith } from '../content/access';
import { commitsWithUsers } from '../refs/ref-ops';
import { PushRanges } from '../refs/push-range';
import { hookRepo, hookUser, hookVerifiedCommit } from '../payload/parts';
import { pushPayload, type PushEnv } from '../payload/push';
import { selectHooks, queueHookTasks, type EventScope } from './emit';
import type { HookEventType } from './events';

const HEADS = 'refs/heads/';
const TAGS = 'refs/tags/';

/** One event ready to queue. */
export interface PlannedEvent { type: HookEventType; payload: HookPayload; scope: EventScope }

/**
 * Plan the hook events of `changes` (pushed by `pusherId`, 0 when unknown: the Ghost user), or
 * nothing when no hook of the repository wants push, create or delete events.
 */
export async function planPushEvents(
  ctx: DbContext, repo: RepositoryModel, owner: UserModel, pusherId: number, changes: RefChange[], dir: string, ranges: PushRanges,
): Promise<PlannedEvent[]> {
  if (changes.length === 0 || settings().security.disableWebhooks) return [];
  const hooks = await hooksForEvent(ctx, repo.id, owner.id);
  const wanted = (type: HookEventType, scope: EventScope) => selectHooks(hooks, type, scope).length > 0;
  if (!(['push', 'create', 'delete'] as const).some((t) => selectHooks(hooks, t).length)) return [];
  const pusher = pusherId > 0 ? await findUserById(ctx, pusherId) : null;
  const sender = hookUser(pusher);
  const repoHtml = repoUrls(settings().server.rootUrl, owner.name, repo.name).html;
  const owned = await hookRepo(ctx, repo, owner, pusher, 'owner');
  const unprivileged = { ...owned, permissions: { admin: false, push: false, pull: false } };
  const out: PlannedEvent[] = [];
  const env: PushEnv = { ctx, dir, repo, repoHtml, owned, sender, ranges };
  for (const c of changes) {
    const tag = c.refName.startsWith(TAGS);
    const short = c.refName.slice(tag ? TAGS.length : HEADS.length);
    const refType = tag ? 'tag' as const : 'branch' as const;
    const scope: EventScope = tag ? {} : { branch: short };
    const deleted = c.newCommitId === ZERO_ID;
    const created = c.oldCommitId === ZERO_ID;
    const push = (payload: HookPayload, noCommits = false) => out.push({ type: 'push', payload, scope: { ...scope, noCommits } });
    // why: the git work of a push payload is skipped when no hook takes the push (a tag push has no commits: gitea and gogs hooks only).
    if (tag && wanted('push', { ...scope, noCommits: true })) {
      push(await pushPayload(env, c), true);
    } else if (!tag && !deleted) {
      if (created) out.push({ type: 'create', payload: { sha: c.newCommitId, ref: short, ref_type: refType, repository: unprivileged, sender }, scope });
      if (wanted('push', scope)) {
        const payload = await pushPayload(env, c);
        push(payload, payload.total_commits === 0);
      }
    }
    if (tag && created && !deleted) out.push({ type: 'create', payload: { sha: c.newCommitId, ref: short, ref_type: refType, repository: unprivileged, sender }, scope });
    if (deleted) out.push({ type: 'delete', payload: { ref: short, ref_type: refType, pusher_type: 'user', repository: owned, sender }, scope });
  }
  return out;
}

/** Write the tasks of planned events, in the transaction that records the changes (the hooks read again in it). */
export async function queuePushEvents(tx: DbContext, src: { repoId: number; ownerId: number }, planned: PlannedEvent[]): Promise<void> {
  if (planned.length === 0) return;
  const hooks: WebhookModel[] = await hooksForEvent(tx, src.repoId, src.ownerId);
  await queueHookTasks(tx, planned.map((e) => ({ hooks: selectHooks(hooks, e.type, e.scope), type: e.type, payload: e.payload })));
}

/**
 * Gitea's test delivery (`POST .../hooks/{id}/tests`): a push of one commit (`ref`'s, else the
 * default branch's tip), verified, sent to this one hook as its events and branch filter allow
 * (an inactive hook gets a task that is recorded as not sent). 404 for an empty repository or a ref
 * that names no commit.
 */
export async function testRepoHook(ctx: DbContext, rc: RepoContext, doer: UserModel, hook: WebhookModel, ref: string | undefined): Promise<void> {
  const dir = repoPath(rc.owner.name, rc.repo.name);
  if (rc.repo.isEmpty) throw new NotFound('repository is empty');
  const wanted = ref?.trim() ? ref.trim() : rc.repo.defaultBranch;
  const sha = (await resolveRefCommit(dir, wanted))?.commitId;
  if (!sha) throw notFoundWith('unable to find a git ref', null);
  const { commits, usernames } = await commitsWithUsers(ctx, dir, [sha]);
  const repoHtml = repoUrls(settings().server.rootUrl, rc.owner.name, rc.repo.name).html;
  const commit = hookVerifiedCommit(commits.get(sha)!, repoHtml, usernames);
  const sender = hookUser(doer);
  const refName = ref?.trim() ? ref : `refs/heads/${rc.repo.defaultBranch}`;
  const payload: HookPayload = {
    ref: refName, before: sha, after: sha, compare_url: `${repoHtml}/compare/${sha}...${sha}`, commits: [commit], total_commits: 1, head_commit: commit,
    repository: await hookRepo(ctx, rc.repo, rc.owner, doer, 'none'), pusher: sender, sender,
  };
  const branch = refName.startsWith(HEADS) ? refName.slice(HEADS.length) : undefined;
  await withTx(ctx, (tx) => queueHookTasks(tx, [{ hooks: selectHooks([hook], 'push', { branch }), type: 'push', payload }]));
}
