/**
 * The one implementation behind every file change of the contents API (create, update, delete and
 * the multi-file `POST /contents`): every input is checked first, then, holding the repository's
 * write lock, the operations are checked against the branch head, a new tree and commit are built in
 * the object database, the branch moves with a compare-and-swap `update-ref`, and the database is
 * brought in line with `syncRepoRefsLocked`. A refused change leaves the ref, the LFS links and the
 * database as they were.
 */
import { Readable } from 'node:stream';
import type { DbContext } from '../../db';
import { Conflict, HttpError, NotFound, TooLarge, Validation } from '../../errors';
import { settings } from '../../config';
import { entriesAt, type TreeEntry } from '../../git/objects';
import { runGit } from '../../git/run';
import { RefConflict } from '../../git/ref-write';
import { IndexEditor, updateRef } from '../../git/tree-edit';
import { withRepoLock } from '../../lock';
import { findLfsMeta, linkLfsMeta, unlinkLfsMeta } from '../../models/lfs-meta-object.model';
import type { UserModel } from '../../models/user.model';
import { syncRepoRefsLocked } from '../git-push/sync.service';
import type { CodeRepo } from './access';
import { assertCanCommitFiles } from '../refs/branch-guard';
import { checkWritePath, isValidBranchName } from './paths';
import { branchHead, type RefCommit } from './refs';
import { commitPeople, defaultMessage, finalMessage, type IdentityInput } from './identity';
import { storeLfsContent } from './lfs-pointer';

/** The operations a change may hold. */
export type ChangeKind = 'create' | 'update' | 'upload' | 'rename' | 'delete';
const KINDS: ChangeKind[] = ['create', 'update', 'upload', 'rename', 'delete'];

/** One file operation, content already decoded. */
export interface ChangeOp { operation: ChangeKind; path: string; fromPath?: string; content?: Buffer | null; sha?: string }

/** A whole change request. */
export interface ChangeRequest {
  message?: string;
  branch?: string;
  newBranch?: string;
  author?: IdentityInput;
  committer?: IdentityInput;
  dates?: { author?: string; committer?: string };
  signoff?: boolean;
  files: ChangeOp[];
}

/** What a change made: the new branch head and the target path of each operation. */
export interface ChangeResult { ref: RefCommit; paths: string[] }

interface Planned extends ChangeOp { target: string; from: string; fromEntry?: TreeEntry }

/** The largest file a change may commit, in bytes ([repository.upload] FILE_MAX_SIZE). */
export function maxFileBytes(): number {
  return settings().repositoryUpload.fileMaxSize * 1024 * 1024;
}

/** A branch name from the request: at most 100 characters and a valid git branch name (422 otherwise). */
export function checkBranch(name: string | undefined, field: string): void {
  if (name === undefined || name === '') return;
  if ([...name].length > 100) throw new Validation(`[${field}]: MaxSize`);
  if (!isValidBranchName(name)) throw new Validation(`[${field}]: GitRefName`);
}

/** Check the request on its own (no git, no lock): paths, branch names, operations, sizes, dates. */
function plan(req: ChangeRequest): Planned[] {
  checkBranch(req.branch, 'BranchName');
  checkBranch(req.newBranch, 'NewBranchName');
  if (!Array.isArray(req.files) || req.files.length === 0) throw new Validation('[Files]: Required');
  const max = maxFileBytes();
  return req.files.map((op) => {
    if (!KINDS.includes(op.operation)) throw new Validation(`invalid file operation: ${op.operation} ${op.path}, supported operations are create, update, upload, rename, delete`);
    const target = checkWritePath(op.path);
    const from = op.fromPath ? checkWritePath(op.fromPath) : target;
    if (op.content && op.content.length > max) throw new TooLarge(`file ${target} is ${op.content.length} bytes, larger than the limit of ${max} bytes`);
    if (op.operation === 'rename' && from === target) throw new Validation(`[FromPath]: rename needs a from_path different from the path [path: ${target}]`);
    return { ...op, target, from };
  });
}

const invalid = (message: string) => new Validation(message);

/** Gitea's handleCheckErrors: each operation against the tree of the branch head. */
function checkAgainstBase(ops: Planned[], base: Map<string, TreeEntry>): void {
  for (const op of ops) {
    if (op.operation !== 'create') {
      const e = base.get(op.from);
      const isFile = !!e && e.type === 'blob';
      if (!isFile && op.operation !== 'upload') throw new NotFound(`repository file does not exist [path: ${op.from}]`);
      if (isFile) op.fromEntry = e;
      if (op.sha) {
        // why: the issue asks for 409 on a stale sha (the file changed since the caller read it).
        if (op.sha !== (e?.oid ?? '')) throw new Conflict(`sha does not match [given: ${op.sha}, expected: ${e?.oid ?? ''}]`);
      } else if (op.operation !== 'upload') {
        throw invalid('a SHA or commit ID must be proved when updating a file');
      }
    }
    if (op.operation === 'delete') continue;
    const parts = op.target.split('/');
    for (let i = 0; i < parts.length; i++) {
      const sub = parts.slice(0, i + 1).join('/');
      const e = base.get(sub);
      if (!e) break;
      if (i < parts.length - 1) {
        if (e.type !== 'tree') throw invalid(`a file exists where you’re trying to create a subdirectory [path: ${sub}]`);
      } else if (e.mode === '120000') {
        throw invalid(`a symbolic link exists where you’re trying to create a subdirectory [path: ${sub}]`);
      } else if (e.type === 'tree') {
        throw invalid(`a directory exists where you’re trying to create a file [path: ${sub}]`);
      } else if (e.type === 'commit') {
        throw invalid(`a submodule exists where you’re trying to create a file [path: ${sub}]`);
      } else if (op.from !== op.target || op.operation === 'create') {
        throw invalid(`repository file already exists [path: ${op.target}]`);
      }
    }
  }
}

/** Every prefix of every path the operations touch, for one `ls-tree`. */
function pathsToInspect(ops: Planned[]): string[] {
  const all = new Set<string>();
  for (const op of ops) {
    for (const p of [op.target, op.from]) {
      const parts = p.split('/');
      for (let i = 1; i <= parts.length; i++) all.add(parts.slice(0, i).join('/'));
    }
  }
  return [...all];
}

/** Operations inside one request that collide with each other (same target twice, or a file under another's path). */
function checkWithinBatch(ops: Planned[]): void {
  const written = new Set<string>();
  for (const op of ops) {
    if (op.operation === 'delete') continue;
    if (written.has(op.target)) throw invalid(`repository file already exists [path: ${op.target}]`);
    written.add(op.target);
  }
  for (const p of written) {
    const parts = p.split('/');
    for (let i = 1; i < parts.length; i++) {
      const sub = parts.slice(0, i).join('/');
      if (written.has(sub)) throw invalid(`a file exists where you’re trying to create a subdirectory [path: ${sub}]`);
    }
  }
}

/** Is there any branch at all (an empty repository has none)? */
export async function hasBranches(gitDir: string): Promise<boolean> {
  const out = (await runGit(['for-each-ref', '--count=1', '--format=%(refname)', 'refs/heads/'], { gitDir })).stdout.toString().trim();
  return out !== '';
}

/** Apply every operation to the index; returns the LFS objects whose pointers were written. */
async function applyOps(ed: IndexEditor, ops: Planned[]): Promise<{ oid: string; size: number }[]> {
  const lfs: { oid: string; size: number }[] = [];
  const useLfs = settings().server.lfsStartServer;
  for (const op of ops) {
    if (op.operation === 'delete') {
      await ed.remove(op.from);
      continue;
    }
    if (op.from !== op.target && op.fromEntry) await ed.remove(op.from);
    const keepMode = op.fromEntry && (op.fromEntry.mode === '100755' || (op.operation === 'rename' && op.content == null)) ? op.fromEntry.mode : '100644';
    let oid: string;
    if (op.operation === 'rename' && op.content == null) {
      oid = op.fromEntry!.oid;
    } else {
      const content = op.content ?? Buffer.alloc(0);
      if (useLfs && (await ed.isLfs(op.target))) {
        // why: read once for the pointer, once into the store; the store checks the second read against the first.
        const stored = await storeLfsContent(() => Readable.from([content]));
        lfs.push({ oid: stored.oid, size: stored.size });
        oid = await ed.hashBlob(stored.pointer);
      } else {
        oid = await ed.hashBlob(content);
      }
    }
    await ed.set(op.target, keepMode, oid);
  }
  return lfs;
}

/** Link the new LFS objects to the repository; returns the links this change created (to undo on failure). */
async function linkObjects(ctx: DbContext, repoId: number, objs: { oid: string; size: number }[]): Promise<string[]> {
  const created: string[] = [];
  for (const o of objs) {
    if (await findLfsMeta(ctx, repoId, o.oid)) continue;
    await linkLfsMeta(ctx, repoId, o.oid, o.size);
    created.push(o.oid);
  }
  return created;
}

/** Commit `req` to the repository as `doer`. */
export async function changeFiles(ctx: DbContext, cr: CodeRepo, doer: UserModel, req: ChangeRequest): Promise<ChangeResult> {
  const ops = plan(req);
  checkWithinBatch(ops);
  const people = commitPeople(doer, req.author, req.committer, req.dates);
  const message = finalMessage((req.message ?? '').trim() || defaultMessage(ops.map((o) => ({ operation: o.operation, path: o.target }))), !!req.signoff, people.committer);
  const { gitDir, repo } = cr;
  // why: the lock makes this the only server-side writer of the repository; the ref move is still a compare-and-swap against pushes.
  return withRepoLock(repo.id, async () => {
    const branch = req.branch || repo.defaultBranch;
    const newBranch = req.newBranch || branch;
    await assertCanCommitFiles(ctx, cr, doer, newBranch, [...new Set(ops.flatMap((o) => [o.from, o.target]))]);
    const base = await branchHead(gitDir, branch);
    if (!base) {
      const empty = !(await hasBranches(gitDir));
      if (!empty) throw new NotFound(`branch does not exist [repo_id: ${repo.id} name: ${branch}]`);
      const notNew = ops.find((o) => o.operation !== 'create' && o.operation !== 'upload');
      if (notNew) throw new NotFound(`repository file does not exist [path: ${notNew.from}]`);
    }
    if (newBranch !== branch && (await branchHead(gitDir, newBranch))) throw invalid(`branch already exists [name: ${newBranch}]`);
    checkAgainstBase(ops, base ? await entriesAt(gitDir, base, pathsToInspect(ops)) : new Map());

    const ed = await IndexEditor.open(gitDir, base);
    let lfsObjects: { oid: string; size: number }[];
    let commit: string;
    try {
      lfsObjects = await applyOps(ed, ops);
      commit = await ed.commit(base ? [base] : [], message, people.author, people.committer);
    } finally {
      await ed.close();
    }
    const created = await linkObjects(ctx, repo.id, lfsObjects);
    const ref = `refs/heads/${newBranch}`;
    const expected = newBranch === branch ? base : null;
    try {
      await updateRef(gitDir, ref, commit, expected);
    } catch (err) {
      for (const oid of created) await unlinkLfsMeta(ctx, repo.id, oid);
      if (err instanceof RefConflict) throw new HttpError(409, `branch ${newBranch} was changed meanwhile, try again`);
      throw err;
    }
    await syncRepoRefsLocked(repo.id, { pusherId: doer.id, transport: 'api', updates: [{ old: expected ?? '0'.repeat(40), new: commit, ref }] }, ctx);
    return { ref: { inputRef: newBranch, kind: 'branch', name: newBranch, commitId: commit }, paths: ops.map((o) => o.target) };
  });
}
