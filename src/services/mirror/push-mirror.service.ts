/**
 * Push mirrors: remotes that receive every branch and tag of a repository (force-pushed, with what
 * is gone here deleted there) on an interval, on demand, and after each push when sync_on_commit is
 * set. Only repository administrators see and change them, as in Gitea. The remote's address is
 * checked again before every push, and the error kept on the row never carries a credential.
 */
import crypto from 'node:crypto';
import { systemCtx, withTx, type DbContext } from '../../db';
import { BadRequest, Forbidden, HttpError, NotFound } from '../../errors';
import { settings, formatGoDuration, parseGoDuration } from '../../config';
import { pushMirrorRemote } from '../../git/remote';
import { locker } from '../../lock';
import { enqueue } from '../../queue/outbox';
import { nowUnix } from '../../models/issue.model';
import { findRepoById } from '../../models/repository.model';
import { findUserById } from '../../models/user.model';
import {
  deletePushMirror, findPushMirror, findPushMirrorById, insertPushMirror, listPushMirrors, pushMirrorsOfRepo, recordPushMirrorOutcome, type PushMirrorModel,
} from '../../models/push-mirror.model';
import { addressWithoutUserinfo } from '../../models/mirror.model';
import { repoPath } from '../../git/paths';
import type { CreatePushMirrorOption } from '../../api/mirror';
import { assertNotArchived, isRepoAdmin } from '../repo/access';
import type { RepoContext } from '../repo/context';
import { checkRemoteAddress, RemoteAddressError } from '../net/remote-address';
import { failureText, openCredentials, sealCredentials } from './credentials';

/** The outbox topic of one push mirror's push. */
export const PUSH_SYNC_TOPIC = 'mirror.push-sync';

/** 400 when mirrors are off; 403 unless the caller administers the repository (Gitea's reqAdmin). */
function assertPushMirrorAdmin(rc: RepoContext): void {
  if (!isRepoAdmin(rc)) throw new Forbidden('user should be an owner or a collaborator with admin write of a repository');
  if (!settings().mirror.enabled) throw new BadRequest('Mirror feature is disabled');
}

/** A page of `rc`'s push mirrors with their count. */
export async function listRepoPushMirrors(ctx: DbContext, rc: RepoContext, offset: number, limit: number): Promise<{ rows: PushMirrorModel[]; count: number }> {
  assertPushMirrorAdmin(rc);
  return listPushMirrors(ctx, rc.repo.id, offset, limit);
}

/** One push mirror of `rc` by remote name (404 when there is none). */
export async function getPushMirror(ctx: DbContext, rc: RepoContext, name: string): Promise<PushMirrorModel> {
  assertPushMirrorAdmin(rc);
  const m = await findPushMirror(ctx, rc.repo.id, name);
  if (!m) throw new NotFound('push mirror does not exist');
  return m;
}

/** The answer Gitea gives for a refused push mirror address. */
function addressRefusal(err: unknown): never {
  if (!(err instanceof RemoteAddressError)) throw err;
  if (err.problem === 'protocol') throw new BadRequest('Invalid mirror protocol');
  if (err.problem === 'invalid') throw new BadRequest('Invalid Url ');
  throw new HttpError(401, 'Permission denied');
}

/** Add a push mirror to `rc` (POST /push_mirrors): interval, address and credentials checked first; nothing is pushed yet. */
export async function addPushMirror(ctx: DbContext, rc: RepoContext, o: CreatePushMirrorOption): Promise<PushMirrorModel> {
  assertPushMirrorAdmin(rc);
  assertNotArchived(rc);
  const text = o.interval ?? '';
  const secs = parseGoDuration(text);
  if (secs === null || secs < 0) throw new BadRequest(`time: invalid duration ${JSON.stringify(text)}`);
  const min = settings().mirror.minInterval;
  if (secs !== 0 && secs < min) throw new BadRequest(`invalid push mirror interval: ${formatGoDuration(secs)} is below minimum interval: ${formatGoDuration(min)}`);
  const creds = { username: o.remote_username ?? '', password: o.remote_password ?? '' };
  const address = o.remote_address ?? '';
  // why: the address is refused before anything is stored; it is checked again at every push.
  await checkRemoteAddress(address, { ...creds, canImportLocal: false }).catch(addressRefusal);
  const now = nowUnix();
  const interval = Math.round(secs);
  const row = await withTx(ctx, (tx) => insertPushMirror(tx, {
    repoId: rc.repo.id, remoteName: `remote_mirror_${randomName(10)}`, remoteAddress: addressWithoutUserinfo(address),
    credentials: sealCredentials(creds), syncOnCommit: !!o.sync_on_commit, interval, createdUnix: now,
    // why: as Gitea, the first scheduled push comes at the next look at the schedule.
    nextUpdateUnix: interval > 0 ? now : 0,
  }));
  return row;
}

/** Remove a push mirror of `rc` by remote name (404 when there is none). */
export async function removePushMirror(ctx: DbContext, rc: RepoContext, name: string): Promise<void> {
  assertPushMirrorAdmin(rc);
  assertNotArchived(rc);
  if ((await withTx(ctx, (tx) => deletePushMirror(tx, rc.repo.id, name))) === 0) throw new NotFound('push mirror does not exist');
}

/** Push every push mirror of `rc` now (POST /push_mirrors-sync); each outcome is kept on its row. */
export async function syncRepoPushMirrors(ctx: DbContext, rc: RepoContext): Promise<void> {
  assertPushMirrorAdmin(rc);
  assertNotArchived(rc);
  for (const m of await pushMirrorsOfRepo(ctx, rc.repo.id)) await runPushSync(m.id);
}

/** Queue the pushes of `repoId`'s sync_on_commit mirrors, in the transaction of the change that moved its refs. */
export async function queuePushMirrorsOnCommit(tx: DbContext, repoId: number): Promise<void> {
  for (const m of await pushMirrorsOfRepo(tx, repoId, true)) await enqueue(tx, PUSH_SYNC_TOPIC, { id: m.id });
}

/** Queue one push mirror's push to run after tx commits. */
export function queuePushSync(tx: DbContext, id: number): Promise<number> {
  return enqueue(tx, PUSH_SYNC_TOPIC, { id });
}

/**
 * Push one push mirror now and record the outcome (the outbox job; a failed push is the mirror's,
 * not the job's). why: pushes of one mirror wait for each other (on any node), since two pushes
 * racing to the same remote refuse each other's ref updates.
 */
export async function runPushSync(id: number, ctx: DbContext = systemCtx): Promise<void> {
  const waitMs = (settings().gitTimeout.mirror + 30) * 1000;
  await locker().withLock(`push-mirror:${id}`, async () => {
    const m = await findPushMirrorById(ctx, id);
    const repo = m && (await findRepoById(ctx, m.repoId));
    const owner = repo && (await findUserById(ctx, repo.ownerId));
    if (!m || !repo || !owner || repo.isEmpty) return;
    const creds = openCredentials(m.credentials);
    let error = '';
    try {
      const target = await checkRemoteAddress(m.remoteAddress, { ...creds, canImportLocal: false });
      await pushMirrorRemote(repoPath(owner.name, repo.name), target);
    } catch (err) {
      error = failureText(err, creds);
    }
    const now = nowUnix();
    const interval = Number(m.interval);
    await withTx(ctx, (tx) => recordPushMirrorOutcome(tx, id, { lastUpdateUnix: now, lastError: error, nextUpdateUnix: interval > 0 ? now + interval : 0 }));
  }, { waitMs, ttlMs: 30_000 });
}

/** `n` random letters and digits (Gitea's remote_mirror_ suffix). */
function randomName(n: number): string {
  const abc = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  return Array.from(crypto.randomBytes(n), (b) => abc[b % abc.length]).join('');
}
