/** LFS lock rows as the locking API shows them. */
import type { LfsLock } from '../api/lfs';
import { isoTime } from './time';

/** A lock with its owner's login name (Gitea: ToLFSLock). */
export function toLfsLock(lock: { id: number; path: string; createdUnix: number }, ownerName: string): LfsLock {
  return { id: String(lock.id), path: lock.path, locked_at: isoTime(new Date(Number(lock.createdUnix) * 1000)), owner: { name: ownerName } };
}
