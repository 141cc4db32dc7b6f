/**
 * Changing a wiki as Gitea's wiki service does (add, edit or rename, delete a page), but in the
 * object database: under the repository's write lock a temporary index is loaded from the wiki
 * branch, edited, written as a tree and committed, and the branch moves with `git update-ref`
 * against the commit it was read at. The wiki is created on its first write.
 */
import { BadRequest, Conflict } from '../../errors';
import { RefConflict } from '../../git/ref-write';
import { entriesAt } from '../../git/objects';
import { IndexEditor, updateRef } from '../../git/tree-edit';
import { withRepoLock } from '../../lock';
import type { UserModel } from '../../models/user.model';
import { commitPeople } from '../content/identity';
import { notFoundWith, NOT_FOUND_MESSAGE } from '../content/access';
import { isSafeGitPath, isSafeTitle, reservedSegment, titleToWebPath, webPathToGitPath } from './wiki-path';
import { ensureWikiLocked, wikiHead, type WikiRepo } from './wiki-repo';
import { invalidName } from './wiki-read.service';
import { systemCtx, withTx } from '../../db';
import { notify } from '../notify/notifier';

/** Go's %q for a commit message: a double-quoted string with Go's escapes. */
export function goQuote(s: string): string {
  const named: Record<string, string> = { '\x07': '\\a', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\v': '\\v', '"': '\\"', '\\': '\\\\' };
  let out = '"';
  for (const ch of s) {
    const code = ch.codePointAt(0)!;
    if (named[ch]) out += named[ch];
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}

/** The web path of a new page's title: 400 for reserved names and for names the forge refuses. */
export function webPathOfTitle(title: string): string {
  // why: Gitea escapes any title into a harmless file name; the forge additionally refuses control
  // characters, `.`/`..`, `.git` and a leading `-` outright, so such names never reach a wiki.
  if (!isSafeTitle(title)) throw invalidName(title);
  return titleToWebPath(title);
}

function assertNotReserved(wp: string): void {
  const seg = reservedSegment(wp);
  if (seg !== null) throw new BadRequest(`wiki title is reserved: ${seg}`);
}

/**
 * Where page `wp` lives in `base` (Gitea's prepareGitPath): the legacy unescaped file `<wp>.md` when
 * present, else the git path; and whether either exists.
 */
async function locate(gitDir: string, base: string | null, wp: string): Promise<{ exists: boolean; path: string }> {
  const gitPath = webPathToGitPath(wp);
  const unescaped = `${wp}.md`;
  if (!base) return { exists: false, path: gitPath };
  const paths = [unescaped, gitPath].filter((p) => isSafeGitPath(p, false));
  const found = await entriesAt(gitDir, base, paths);
  if (found.has(unescaped)) return { exists: true, path: unescaped };
  return { exists: found.has(gitPath), path: gitPath };
}

type Edit = (ed: IndexEditor, base: string | null) => Promise<void>;

/**
 * Commit one edit of the wiki as `doer` and move the branch. why: the lock serializes API writes to
 * the repository on every node; update-ref's expected old value refuses a push that landed in
 * between (409) instead of losing it.
 */
async function commitEdit(w: WikiRepo, doer: UserModel, message: string, edit: Edit, create: boolean): Promise<void> {
  await withRepoLock(w.repo.id, async () => {
    if (create) await ensureWikiLocked(w);
    const base = await wikiHead(w);
    if (!base && !create) throw notFoundWith(NOT_FOUND_MESSAGE, ['file does not exist']);
    const ed = await IndexEditor.open(w.gitDir, base);
    try {
      await edit(ed, base);
      const { author, committer } = commitPeople(doer, undefined, undefined, undefined);
      // why: Gitea's CommitTree ends the message with a newline.
      const commit = await ed.commit(base ? [base] : [], `${message}\n`, author, committer);
      await updateRef(w.gitDir, `refs/heads/${w.branch}`, commit, base).catch((err: unknown) => {
        if (err instanceof RefConflict) throw new Conflict('the wiki was changed meanwhile, try again');
        throw err;
      });
    } finally {
      await ed.close();
    }
  });
}

/** Add page `title` (Gitea's AddWikiPage); returns its web path. 400 when it exists or is reserved. */
/** State a page's change; why: a wiki page is a git commit, made before this, so its event gets a transaction of its own. */
function announce(w: WikiRepo, doer: UserModel, action: 'created' | 'edited' | 'deleted', page: string, comment: string): Promise<void> {
  return withTx(systemCtx, (tx) => notify.wikiChanged(tx, { doer, at: w, action, page, comment }));
}

export async function addPage(w: WikiRepo, doer: UserModel, title: string, content: Buffer, message: string): Promise<string> {
  const wp = webPathOfTitle(title);
  assertNotReserved(wp);
  await commitEdit(w, doer, message || `Add ${goQuote(title)}`, async (ed, base) => {
    const at = await locate(w.gitDir, base, wp);
    if (at.exists) throw new BadRequest(`wiki page already exists [title: ${at.path}]`);
    if (!isSafeGitPath(at.path, true)) throw invalidName(wp);
    await ed.set(at.path, '100644', await ed.hashBlob(content));
  }, true);
  await announce(w, doer, 'created', wp, message);
  return wp;
}

/**
 * Replace page `oldWp` with `content`, renamed to `title` when one is given (Gitea's EditWikiPage:
 * a page that does not exist yet is created, and so is the wiki); returns the new web path.
 */
export async function editPage(w: WikiRepo, doer: UserModel, oldWp: string, title: string, content: Buffer, message: string): Promise<string> {
  // why: Gitea 1.24 turns an empty title into "unnamed" (a rename nobody asked for); its API
  // documents "leave empty to keep unchanged", which is what happens here.
  const newWp = title.trim() ? webPathOfTitle(title) : oldWp;
  assertNotReserved(newWp);
  // why: every name is checked before the lock, so a refused edit leaves no trace (not even a new wiki).
  if (!isSafeGitPath(webPathToGitPath(oldWp), false)) throw invalidName(oldWp);
  if (!isSafeGitPath(webPathToGitPath(newWp), true)) throw invalidName(newWp);
  await commitEdit(w, doer, message || `Update ${goQuote(newWp)}`, async (ed, base) => {
    const target = await locate(w.gitDir, base, newWp);
    if (!isSafeGitPath(target.path, true)) throw invalidName(newWp);
    const old = newWp === oldWp ? target : await locate(w.gitDir, base, oldWp);
    if (old.exists) await ed.remove(old.path);
    await ed.set(target.path, '100644', await ed.hashBlob(content));
  }, true);
  await announce(w, doer, 'edited', newWp, message);
  return newWp;
}

/** Delete page `wp` (Gitea's DeleteWikiPage); 404 "file does not exist" when it is not there. */
export async function deletePage(w: WikiRepo, doer: UserModel, wp: string): Promise<void> {
  if (!isSafeGitPath(webPathToGitPath(wp), false)) throw invalidName(wp);
  await commitEdit(w, doer, `Delete page ${goQuote(wp)}`, async (ed, base) => {
    const at = await locate(w.gitDir, base, wp);
    if (!at.exists) throw notFoundWith(NOT_FOUND_MESSAGE, ['file does not exist']);
    await ed.remove(at.path);
  }, false);
  await announce(w, doer, 'deleted', wp, '');
}
