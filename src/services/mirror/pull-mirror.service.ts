/**
 * Pull mirrors: a repository whose branches and tags follow another server's. A sync fetches under
 * the repository's lock (one at a time per repository, on any node), records the ref changes as a
 * push by the owner would be (branches, tag releases, push events, webhooks, size), brings the wiki
 * along when the repository has one and the LFS objects when the mirror was made with `lfs`, and
 * stores when it ran and when it runs next. A failed sync backs off: MIN_INTERVAL, doubling with each failure
 * in a row, up to a day; a success returns to the interval.
 */
import { systemCtx, withTx, type DbContext } from '../../db';
import { BadRequest } from '../../errors';
import { settings, parseGoDuration } from '../../config';
import { repoPath } from '../../git/paths';
import { listBranchAndTagRefs, ZERO_ID } from '../../git/refs';
import { dirExists } from '../../git/init';
import { fetchRemote, MIRROR_REFSPECS, wikiRemoteOf, type RemoteTarget } from '../../git/remote';
import { withRepoLock } from '../../lock';
import { enqueue, notifyEnqueued } from '../../queue/outbox';
import { findRepoById, touchRepoMirror, type RepositoryModel } from '../../models/repository.model';
import { findUserById } from '../../models/user.model';
import { nowUnix } from '../../models/issue.model';
import { findMirrorOfRepo, recordMirrorOutcome } from '../../models/mirror.model';
import { syncRepoRefsLocked } from '../git-push/sync.service';
import { assertNotArchived, assertUnitWriter, UnitType } from '../repo/access';
import type { RepoContext } from '../repo/context';
import { checkRemoteAddress } from '../net/remote-address';
import { failureText, openCredentials, type Credentials } from './credentials';
import { fetchLfsObjects } from './lfs-fetch';

/** The outbox topic of a pull mirror's sync. */
export const PULL_SYNC_TOPIC = 'mirror.pull-sync';

/** The longest wait after failures. */
const MAX_BACKOFF_S = 86_400;

/** The interval of a mirror repository, in seconds (0: no scheduled syncs). */
function intervalOf(repo: RepositoryModel): number {
  const secs = parseGoDuration(repo.mirrorInterval);
  return secs === null ? settings().mirror.defaultInterval : Math.round(secs);
}

/**
 * When the schedule syncs next after a sync at `now`: never for a mirror synced only on demand
 * (interval 0), else the interval after a success and the backoff after `failures` failures in a row.
 */
export function nextSyncAt(now: number, intervalS: number, failures: number): number {
  if (intervalS <= 0) return 0;
  if (failures > 0) return now + Math.min(MAX_BACKOFF_S, settings().mirror.minInterval * 2 ** Math.min(failures - 1, 20));
  return now + intervalS;
}

/**
 * Queue a sync of `rc`'s mirror (POST /mirror-sync): writers of its code, not archived, mirrors
 * enabled and the repository a pull mirror, each refused as Gitea does.
 */
export async function requestPullSync(ctx: DbContext, rc: RepoContext): Promise<void> {
  assertUnitWriter(rc, UnitType.Code);
  assertNotArchived(rc);
  if (!settings().mirror.enabled) throw new BadRequest('Mirror feature is disabled');
  if (!rc.repo.isMirror || !(await findMirrorOfRepo(ctx, rc.repo.id))) throw new BadRequest('Repository is not a mirror');
  await withTx(ctx, (tx) => queuePullSync(tx, rc.repo.id));
  notifyEnqueued();
}

/** What a pull mirror's administrators see of its schedule: the next scheduled sync (null: none) and the error of the last sync, if it failed. */
export async function pullMirrorStatus(ctx: DbContext, repoId: number): Promise<{ nextSync: Date | null; lastError: string; failures: number } | null> {
  const m = await findMirrorOfRepo(ctx, repoId);
  return m && { nextSync: Number(m.nextUpdateUnix) > 0 ? new Date(Number(m.nextUpdateUnix) * 1000) : null, lastError: m.lastError, failures: m.failures };
}

/** Record a sync of repository `repoId` to run after tx commits. */
export function queuePullSync(tx: DbContext, repoId: number): Promise<number> {
  return enqueue(tx, PULL_SYNC_TOPIC, { repoId });
}

/** The refs that differ between two listings, as ref updates. */
function refUpdates(before: Map<string, string>, after: Map<string, string>): { ref: string; old: string; new: string }[] {
  const out: { ref: string; old: string; new: string }[] = [];
  for (const ref of new Set([...before.keys(), ...after.keys()])) {
    const o = before.get(ref) ?? ZERO_ID;
    const n = after.get(ref) ?? ZERO_ID;
    if (o !== n) out.push({ ref, old: o, new: n });
  }
  return out;
}

/** Where a mirror fetches from, checked again now (the address may resolve elsewhere than at creation). */
async function sourceOf(remoteAddress: string, creds: Credentials): Promise<RemoteTarget> {
  return checkRemoteAddress(remoteAddress, { username: creds.username, password: creds.password, canImportLocal: settings().security.importLocalPaths });
}

/**
 * Sync the pull mirror of repository `repoId` now (the outbox job). A failure is the mirror's (kept
 * on its row, retried by the schedule), never the job's.
 */
export async function runPullSync(repoId: number): Promise<void> {
  await withRepoLock(repoId, async () => {
    const ctx = systemCtx;
    const repo = await findRepoById(ctx, repoId);
    const mirror = repo?.isMirror ? await findMirrorOfRepo(ctx, repoId) : null;
    const owner = repo && (await findUserById(ctx, repo.ownerId));
    if (!repo || !mirror || !owner) return;
    const dir = repoPath(owner.name, repo.name);
    if (!(await dirExists(dir))) return;
    const creds = openCredentials(mirror.credentials);
    let error = '';
    try {
      const source = await sourceOf(mirror.remoteAddress, creds);
      const before = await listBranchAndTagRefs(dir);
      await fetchRemote(dir, source, MIRROR_REFSPECS, repo.enablePrune);
      if (mirror.lfsEnabled && settings().server.lfsStartServer) await fetchLfsObjects(repoId, dir, source, mirror.lfsEndpoint);
      const wikiDir = repoPath(owner.name, repo.name, true);
      if (await dirExists(wikiDir)) await fetchRemote(wikiDir, wikiRemoteOf(source), MIRROR_REFSPECS, true);
      const updates = refUpdates(before, await listBranchAndTagRefs(dir));
      // why: as Gitea, the owner is the pusher of what a mirror brings in.
      if (updates.length > 0) await syncRepoRefsLocked(repoId, { pusherId: owner.id, transport: 'mirror', updates }, ctx);
    } catch (err) {
      error = failureText(err, creds);
    }
    const now = nowUnix();
    const failures = error ? mirror.failures + 1 : 0;
    await withTx(ctx, async (tx) => {
      await touchRepoMirror(tx, repoId, now);
      await recordMirrorOutcome(tx, repoId, { nextUpdateUnix: nextSyncAt(now, intervalOf(repo), failures), failures, lastError: error });
    });
  });
}
