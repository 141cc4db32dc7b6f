/**
 * `GET /repos/{owner}/{repo}/git/notes/{sha}` (Gitea's GetNote): the note `refs/notes/commits`
 * holds for a commit, and the notes commit that last changed it. The note is found under any fan-out
 * of the commit id (`ab/cdef...`, `ab/cd/ef...`, as `git notes` writes them) with one tree read.
 */
import type { DbContext } from '../../db';
import { NotFound, Validation } from '../../errors';
import { entriesAt, lastCommitOfPath, readBlob } from '../../git/objects';
import { refId } from '../../git/ref-info';
import { getCommit, resolveCommitId, type CommitDetail, type CommitsResult } from '../history/commit.service';
import type { CodeRepo } from './access';

const NOTES_REF = 'refs/notes/commits';

// why: Gitea's IsValidRefPattern on the sha: no option-like, control or range syntax.
const REF_PATTERN = /^(?!-)(?!.*\.\.)[^\0-\x20~^:?*[\\]+$/;

/** Every path git may have stored the note of `id` under: the id itself and each two-character fan-out. */
function notePaths(id: string): string[] {
  const out: string[] = [];
  for (let depth = 0; depth * 2 < id.length - 2; depth++) {
    const dirs: string[] = [];
    for (let i = 0; i < depth; i++) dirs.push(id.slice(i * 2, i * 2 + 2));
    out.push([...dirs, id.slice(depth * 2)].join('/'));
  }
  return out;
}

/** The note of commit `sha` (an id or a ref name) with its notes commit; 404 when it has none. */
export async function getNote(ctx: DbContext, cr: CodeRepo, sha: string, detail: CommitDetail): Promise<{ message: string; commit: CommitsResult }> {
  if (!REF_PATTERN.test(sha)) throw new Validation(`no valid ref or sha: ${sha}`);
  const id = await resolveCommitId(cr.gitDir, sha);
  const notes = await refId(cr.gitDir, NOTES_REF);
  const missing = () => new NotFound(`object does not exist [id: ${id}, rel_path: ]`);
  if (!notes) throw missing();
  const found = await entriesAt(cr.gitDir, notes, notePaths(id));
  const path = notePaths(id).find((p) => found.get(p)?.type === 'blob');
  if (!path) throw missing();
  const message = (await readBlob(cr.gitDir, found.get(path)!.oid)).toString('utf8');
  const last = await lastCommitOfPath(cr.gitDir, notes, path);
  if (!last) throw missing();
  return { message, commit: await getCommit(ctx, cr, last.sha, detail) };
}
