/**
 * Git LFS wire types (batch API, basic transfer, locking API) with the field names of the git-lfs
 * spec and Gitea's modules/lfs and modules/structs (LFSLock...).
 */

/** One object of a batch request or response. */
export interface LfsPointer { oid: string; size: number }

/** Where and how to transfer one object. */
export interface LfsLink { href: string; header?: Record<string, string> }

/** A per-object failure inside a successful batch answer. */
export interface LfsObjectError { code: number; message: string }

/** One object of a batch answer: actions to take, or an error. */
export interface LfsObjectResponse extends LfsPointer {
  actions?: { download?: LfsLink; upload?: LfsLink; verify?: LfsLink };
  error?: LfsObjectError;
}

/** The batch answer. */
export interface LfsBatchResponse { transfer: 'basic'; objects: LfsObjectResponse[]; hash_algo: 'sha256' }

/** Error body of every LFS endpoint. */
export interface LfsErrorBody { message: string; request_id?: string; documentation_url?: string; lock?: LfsLock }

/** The owner of a lock. */
export interface LfsLockOwner { name: string }

/** A file lock. */
export interface LfsLock { id: string; path: string; locked_at: string; owner: LfsLockOwner }

/** GET /locks answer. */
export interface LfsLockList { locks: LfsLock[]; next_cursor?: string }

/** POST /locks/verify answer. */
export interface LfsLockListVerify { ours: LfsLock[]; theirs: LfsLock[]; next_cursor?: string }

/** POST /locks and /locks/{id}/unlock answer. */
export interface LfsLockResponse { lock: LfsLock }
