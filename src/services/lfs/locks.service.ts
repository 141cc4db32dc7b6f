/**
 * The LFS locking API: list, create, verify (ours/theirs) and unlock file locks of a repository.
 * Locks need a signed-in user (as Gitea); listing needs code read, the rest code write. Lock ids
 * are scoped to the repository in the URL: another repository's lock id does not exist here.
 */
import { isUniqueViolation, withTx } from '../../db';
import { BadRequest, Forbidden, NotFound, Validation } from '../../errors';
import {
  deleteLfsLock, findLfsLockByPath, findLfsLockInRepo, insertLfsLock, listLfsLocks, type LfsLockModel,
} from '../../models/lfs-lock.model';
import { findUsersByIds } from '../../models/user.model';
import { AccessMode, UnitType } from '../../models/perm';
import { askCredentials, authorizeLfs, type LfsDenial } from './access';
import type { LfsCaller } from './objects.service';
import type { RepoContext } from '../repo/context';

/** A lock with its owner's login name, ready to convert. */
export interface LockView { lock: LfsLockModel; ownerName: string }

/** Gitea's LFS LOCKS_PAGING_NUM default: the most locks one page carries. */
export const LOCKS_PAGE_MAX = 50;

const LIST: LfsDenial = { unauthorized: 'You must have pull access to list locks' };
const CREATE: LfsDenial = { unauthorized: 'You must have push access to create locks', forbidden: 'You must have push access to create locks' };
const VERIFY: LfsDenial = { unauthorized: 'You must have push access to verify locks', forbidden: 'You must have push access to verify locks' };
const DELETE: LfsDenial = { unauthorized: 'You must have push access to delete locks', forbidden: 'You must have push access to delete locks' };

/**
 * A lock path relative to the repository root, cleaned like Gitea's PathJoinRel: `.` and empty parts
 * dropped, `..` resolved without ever leaving the root, no leading or trailing slash.
 */
export function normalizeLockPath(raw: string): string {
  const parts: string[] = [];
  for (const seg of raw.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') parts.pop();
    else parts.push(seg);
  }
  return parts.join('/');
}

async function withOwners(c: LfsCaller, locks: LfsLockModel[]): Promise<LockView[]> {
  const users = new Map((await findUsersByIds(c.ctx, [...new Set(locks.map((l) => l.ownerId))])).map((u) => [u.id, u.name]));
  // why: a deleted owner shows as Gitea's ghost user.
  return locks.map((lock) => ({ lock, ownerName: users.get(lock.ownerId) ?? 'Ghost' }));
}

/** Locks need a signed-in user; the repository check follows. */
async function authorizeLocks(c: LfsCaller, need: 'read' | 'write', deny: LfsDenial): Promise<RepoContext> {
  if (!c.p.user) throw askCredentials(deny.unauthorized);
  return authorizeLfs(c.ctx, c.p, c.grant, c.owner, c.repo, need, deny);
}

/** A page number cursor (1-based; Gitea's cursor is a page too) and a clamped limit. */
function paging(cursor: unknown, limit: unknown): { page: number; limit: number } {
  const int = (v: unknown) => (typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : 0);
  const l = int(limit);
  return { page: Math.max(1, int(cursor)), limit: l > 0 && l < LOCKS_PAGE_MAX ? l : LOCKS_PAGE_MAX };
}

async function page(c: LfsCaller, repoId: number, cursor: unknown, limit: unknown): Promise<{ locks: LockView[]; next?: string }> {
  const pg = paging(cursor, limit);
  const rows = await listLfsLocks(c.ctx, repoId, pg.limit, (pg.page - 1) * pg.limit);
  return { locks: await withOwners(c, rows), next: rows.length === pg.limit ? String(pg.page + 1) : undefined };
}

/** GET /locks: by `id`, by `path`, or one page of all. */
export async function listLocks(c: LfsCaller, q: Record<string, unknown>): Promise<{ locks: LockView[]; next?: string }> {
  const rc = await authorizeLocks(c, 'read', LIST);
  if (typeof q.id === 'string' && q.id !== '') {
    if (!/^\d{1,15}$/.test(q.id)) throw new BadRequest(`bad request : invalid lock id ${JSON.stringify(q.id)}`);
    const lock = await findLfsLockInRepo(c.ctx, rc.repo.id, Number(q.id));
    return { locks: await withOwners(c, lock ? [lock] : []) };
  }
  if (typeof q.path === 'string' && q.path !== '') {
    const lock = await findLfsLockByPath(c.ctx, rc.repo.id, normalizeLockPath(q.path));
    return { locks: await withOwners(c, lock ? [lock] : []) };
  }
  return page(c, rc.repo.id, q.cursor, q.limit);
}

/** POST /locks: the new lock, or the existing one on that path (409). */
export async function createLock(c: LfsCaller, body: unknown): Promise<{ created: boolean; view: LockView }> {
  const rc = await authorizeLocks(c, 'write', CREATE);
  const b = body as Record<string, unknown> | null;
  if (typeof b !== 'object' || b === null || Array.isArray(b) || (b.path !== undefined && typeof b.path !== 'string')) throw new BadRequest('Bad Request');
  const path = normalizeLockPath(String(b.path ?? ''));
  if (path === '' || path.includes('\0')) throw new Validation('invalid lock path');
  const user = c.p.user!;
  const existing = async () => {
    const lock = await findLfsLockByPath(c.ctx, rc.repo.id, path);
    return lock ? { created: false, view: (await withOwners(c, [lock]))[0] } : null;
  };
  try {
    // why: check and insert in one transaction; the unique (repo, lower(path)) index settles a race between two.
    return await withTx(c.ctx, async (tx) => {
      const clash = await findLfsLockByPath(tx, rc.repo.id, path);
      if (clash) return { created: false, view: (await withOwners({ ...c, ctx: tx }, [clash]))[0] };
      const lock = await insertLfsLock(tx, rc.repo.id, user.id, path);
      return { created: true, view: { lock, ownerName: user.name } };
    });
  } catch (err) {
    const other = isUniqueViolation(err) ? await existing() : null;
    if (other) return other;
    throw err;
  }
}

/** POST /locks/verify: the caller's locks and everybody else's, for a push. */
export async function verifyLocks(c: LfsCaller, body: unknown, q: Record<string, unknown>): Promise<{ ours: LockView[]; theirs: LockView[]; next?: string }> {
  const rc = await authorizeLocks(c, 'write', VERIFY);
  const b = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const { locks, next } = await page(c, rc.repo.id, b.cursor ?? q.cursor, b.limit ?? q.limit);
  const me = c.p.user!.id;
  return { ours: locks.filter((l) => l.lock.ownerId === me), theirs: locks.filter((l) => l.lock.ownerId !== me), next };
}

/**
 * POST /locks/{id}/unlock. The owner may always unlock; someone else's lock needs `force`, and forcing
 * needs admin rights on the repository.
 */
export async function unlock(c: LfsCaller, idRaw: string, body: unknown): Promise<LockView> {
  const rc = await authorizeLocks(c, 'write', DELETE);
  const b = (body ?? {}) as Record<string, unknown>;
  if (typeof b !== 'object' || Array.isArray(b) || (b.force !== undefined && typeof b.force !== 'boolean')) throw new BadRequest('Bad Request');
  const lock = /^\d{1,15}$/.test(idRaw) ? await findLfsLockInRepo(c.ctx, rc.repo.id, Number(idRaw)) : null;
  if (!lock) throw new NotFound('Not Found');
  if (lock.ownerId !== c.p.user!.id) {
    if (b.force !== true) throw new Forbidden('You must have push access to delete locks : user doesn\'t own lock and force flag is not set');
    // why: the brief asks that only repository admins force-unlock others' locks (Gitea lets any writer).
    if (!rc.perm.can(UnitType.Code, AccessMode.Admin)) throw new Forbidden('You must be an administrator of the repository to force delete locks');
  }
  const view = (await withOwners(c, [lock]))[0];
  if (!(await deleteLfsLock(c.ctx, rc.repo.id, lock.id))) throw new NotFound('Not Found');
  return view;
}
