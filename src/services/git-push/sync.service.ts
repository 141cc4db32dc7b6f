/**
 * Bringing the database in line with a repository's refs. Git owns refs and the database is a
 * cache (docs/ARCHITECTURE.md, conventions): the branch table, tag rows, the empty flag, the default branch and the
 * size are derived by comparing `git for-each-ref` with what was last recorded. A push (on its
 * answer path), the server's own writes and the reconciler all call it; each observed change is
 * recorded once as a push event, however often the sync runs, because a second run finds nothing
 * left to record.
 */
import { systemCtx, withTx, type DbContext } from '../../db';
import { repoPath } from '../../git/paths';
import { dirExists, setHeadBranch } from '../../git/init';
import { listBranchAndTagRefs, commitSummaries, headBranch, ZERO_ID } from '../../git/refs';
import { repoSizeBytes } from '../../git/disk-size';
import { refId } from '../../git/ref-info';
import { withRepoLock } from '../../lock';
import { findRepoById, updateRepoGitState, type RepositoryModel } from '../../models/repository.model';
import { findUserById } from '../../models/user.model';
import { listBranchRows, liveBranchRows, upsertBranch, markBranchDeleted } from '../../models/branch.model';
import { listTaggedReleases, upsertTagRelease, removeTagRelease } from '../../models/release.model';
import { insertPushEvents, type RefChange } from '../../models/push-event.model';
import type { RefUpdate } from '../../git/hooks';
import { notifyEnqueued } from '../../queue/outbox';
import { notify } from '../notify/notifier';

/** Who caused the changes, when known. */
export interface SyncHint {
  /** The pusher of `updates` (0 when unknown). */
  pusherId: number;
  transport: string;
  /** The refs the push reported, in push order; other changed refs are recorded without a pusher. */
  updates: RefUpdate[];
  /** false: record the refs as the repository's starting point, without push events (new, forked and generated repositories). */
  events?: boolean;
}

/** The outbox topic of a push whose recording failed on its answer path. */
export const PUSH_TOPIC = 'repo.push';

/** The payload of a PUSH_TOPIC job. */
export interface PushJob { repoId: number; pusherId: number; transport: string; updates: RefUpdate[] }

const HEADS = 'refs/heads/';
const TAGS = 'refs/tags/';

/** What the database last recorded: ref name -> commit id. */
async function recordedRefs(ctx: DbContext, repoId: number): Promise<Map<string, string>> {
  const known = new Map<string, string>();
  for (const b of await listBranchRows(ctx, repoId)) if (!b.isDeleted) known.set(HEADS + b.name, b.commitId);
  for (const r of await listTaggedReleases(ctx, repoId)) if (r.sha1) known.set(TAGS + r.tagName, r.sha1);
  return known;
}

/** Changed refs, those of the push first and in push order. */
function diffRefs(known: Map<string, string>, actual: Map<string, string>, pushOrder: string[]): RefChange[] {
  const names = [...new Set([...pushOrder, ...[...known.keys(), ...actual.keys()].sort()])];
  const changes: RefChange[] = [];
  for (const refName of names) {
    const oldCommitId = known.get(refName) ?? ZERO_ID;
    const newCommitId = actual.get(refName) ?? ZERO_ID;
    if (oldCommitId !== newCommitId) changes.push({ refName, oldCommitId, newCommitId });
  }
  return changes;
}

/**
 * The default branch after this sync: unchanged while it exists; for a repository that had no
 * branch, the configured default if it was pushed, else the first pushed branch.
 */
function chooseDefaultBranch(repo: RepositoryModel, branches: string[], changes: RefChange[]): string {
  if (branches.length === 0 || branches.includes(repo.defaultBranch)) return repo.defaultBranch;
  const created = changes.find((c) => c.refName.startsWith(HEADS) && c.newCommitId !== ZERO_ID);
  return created ? created.refName.slice(HEADS.length) : branches[0];
}

const NO_HINT: SyncHint = { pusherId: 0, transport: '', updates: [] };

/** The most reported refs the short path takes; a larger push is compared whole. */
const MAX_REPORTED = 1000;

type Observed = { changes: RefChange[]; state: { isEmpty: boolean; defaultBranch: string; size: number } };

/**
 * The branch changes a push or a server-side write reported, when they are all that changed:
 * every reported ref is a branch, the database recorded each at its reported old value, git holds
 * each at its new value (the server's own writes, made under this lock, are taken as written), and
 * the default branch stays. null otherwise, and every ref is compared.
 * why: comparing every ref with every recorded branch costs a scan per push that grows with the
 * repository (a bench repository reached thousands of branches); the reconciler still compares all.
 */
async function reportedChanges(ctx: DbContext, repo: RepositoryModel, dir: string, hint: SyncHint): Promise<Observed | null> {
  const u = hint.updates.filter((m) => m.old !== m.new);
  const defaultRef = HEADS + repo.defaultBranch;
  if (repo.isEmpty || u.length === 0 || u.length > MAX_REPORTED || !u.every((m) => m.ref.startsWith(HEADS) && !(m.ref === defaultRef && m.new === ZERO_ID))) return null;
  const names = [...new Set([...u.map((m) => m.ref), defaultRef])].map((r) => r.slice(HEADS.length));
  const recorded = new Map((await liveBranchRows(ctx, repo.id, names)).map((r) => [HEADS + r.name, r.commitId]));
  if (!recorded.has(defaultRef) || !u.every((m) => (recorded.get(m.ref) ?? ZERO_ID) === m.old)) return null;
  if (hint.transport !== 'api') {
    // why: the ref files git just wrote are read directly (src/git/ref-files.ts): no git process on a push's answer path.
    const tips = await Promise.all(u.map((m) => refId(dir, m.ref)));
    if (!u.every((m, i) => (tips[i] ?? ZERO_ID) === m.new)) return null;
  }
  return {
    changes: u.map((m) => ({ refName: m.ref, oldCommitId: m.old, newCommitId: m.new })),
    state: { isEmpty: false, defaultBranch: repo.defaultBranch, size: await repoSizeBytes(dir) },
  };
}

/** Every ref compared with what the database recorded, and the repository state that follows (HEAD set again when the branch set changed). */
async function observedChanges(ctx: DbContext, repo: RepositoryModel, dir: string, hint: SyncHint): Promise<Observed> {
  const actual = await listBranchAndTagRefs(dir);
  const changes = diffRefs(await recordedRefs(ctx, repo.id), actual, hint.updates.map((u) => u.ref));
  const branches = [...actual.keys()].filter((r) => r.startsWith(HEADS)).map((r) => r.slice(HEADS.length));
  const defaultBranch = chooseDefaultBranch(repo, branches, changes);
  // why: HEAD only needs a look when branches came or went or the default changed; a branch that moved leaves it as it was.
  const branchSetChanged = changes.some((c) => c.refName.startsWith(HEADS) && (c.oldCommitId === ZERO_ID || c.newCommitId === ZERO_ID));
  if ((branchSetChanged || defaultBranch !== repo.defaultBranch) && branches.includes(defaultBranch) && (await headBranch(dir)) !== defaultBranch) {
    await setHeadBranch(dir, defaultBranch);
  }
  return { changes, state: { isEmpty: branches.length === 0, defaultBranch, size: await repoSizeBytes(dir) } };
}

/** Compare a repository's refs with the database and record every difference. No-op for a missing repository. */
export async function syncRepoRefs(repoId: number, hint: SyncHint = NO_HINT, ctx: DbContext = systemCtx): Promise<RefChange[]> {
  // why: the repository lock serializes this with every other server-side write, so two syncs never record one change twice.
  return withRepoLock(repoId, () => syncRepoRefsLocked(repoId, hint, ctx));
}

/**
 * syncRepoRefs for a caller that already holds the repository's lock: server-side writes (file
 * commits, branch and tag operations) call it right after moving a ref, inside their withRepoLock.
 * why: this is the read-your-writes step of every ref change: a push calls it before git's answer
 * goes out, so it records only what reads show (branch and tag rows, the repository's state) and
 * queues the rest in the same transaction: the push's webhooks and feed entries (which need git's
 * commit lists) go to the push-effects job, pull requests, Actions and references to their own.
 */
export async function syncRepoRefsLocked(repoId: number, hint: SyncHint = NO_HINT, ctx: DbContext = systemCtx): Promise<RefChange[]> {
  const repo = await findRepoById(ctx, repoId);
  const owner = repo && (await findUserById(ctx, repo.ownerId));
  if (!repo || !owner) return [];
  const dir = repoPath(owner.name, repo.name);
  if (!(await dirExists(dir))) return [];
  const { changes, state } = (await reportedChanges(ctx, repo, dir, hint)) ?? await observedChanges(ctx, repo, dir, hint);
  const stateChanged = state.isEmpty !== repo.isEmpty || state.defaultBranch !== repo.defaultBranch || state.size !== Number(repo.size);
  if (changes.length === 0 && !stateChanged) return [];

  const newBranchIds = changes.filter((c) => c.refName.startsWith(HEADS) && c.newCommitId !== ZERO_ID).map((c) => c.newCommitId);
  const summaries = await commitSummaries(dir, newBranchIds);
  const pushed = new Set(hint.updates.map((u) => u.ref));
  const pusherOf = (ref: string) => (pushed.has(ref) ? hint.pusherId : 0);
  const fromPush = changes.filter((c) => pushed.has(c.refName));
  const found = changes.filter((c) => !pushed.has(c.refName));
  const events = hint.events !== false && changes.length > 0;
  const now = new Date();
  await withTx(ctx, async (tx) => {
    for (const c of changes) {
      const pusherId = pusherOf(c.refName);
      if (c.refName.startsWith(HEADS)) {
        const name = c.refName.slice(HEADS.length);
        if (c.newCommitId === ZERO_ID) {
          await markBranchDeleted(tx, repoId, name, pusherId, now);
        } else {
          const s = summaries.get(c.newCommitId);
          await upsertBranch(tx, repoId, { name, commitId: c.newCommitId, commitMessage: s?.subject ?? '', commitTime: s?.committedAt ?? null, pusherId });
        }
      } else {
        const tag = c.refName.slice(TAGS.length);
        if (c.newCommitId === ZERO_ID) await removeTagRelease(tx, repoId, tag);
        else await upsertTagRelease(tx, repoId, tag, c.newCommitId, pusherId);
      }
    }
    if (events) {
      await insertPushEvents(tx, repoId, hint.pusherId, hint.transport, fromPush);
      await insertPushEvents(tx, repoId, 0, '', found);
      await notify.refsChanged(tx, { repoId, pusherId: hint.pusherId, transport: hint.transport, changes, fromPush, found });
    }
    await updateRepoGitState(tx, repoId, state);
  });
  if (events) notifyEnqueued();
  return changes;
}

/** The refs whose recorded commit differs from git's, without writing anything (for `forge doctor`). */
export async function refDrift(repoId: number, ctx: DbContext = systemCtx): Promise<RefChange[]> {
  const repo = await findRepoById(ctx, repoId);
  const owner = repo && (await findUserById(ctx, repo.ownerId));
  if (!repo || !owner) return [];
  const dir = repoPath(owner.name, repo.name);
  if (!(await dirExists(dir))) return [];
  return diffRefs(await recordedRefs(ctx, repoId), await listBranchAndTagRefs(dir), []);
}

/**
 * Record the refs a new repository starts with (first commit, fork copy, generated commit) without
 * push events: nothing was pushed. `defaultBranch` is preferred as the default branch.
 */
export function recordInitialRefs(repoId: number, doerId: number, defaultBranch: string, ctx: DbContext = systemCtx): Promise<RefChange[]> {
  return syncRepoRefs(repoId, { pusherId: doerId, transport: '', events: false, updates: [{ old: ZERO_ID, new: ZERO_ID, ref: `refs/heads/${defaultBranch}` }] }, ctx);
}
