/**
 * Reading a wiki as Gitea's API does: the page list (the `.md` files at the top of the wiki
 * branch's tree), one page with its content, revision count, last commit and the wiki's
 * `_Sidebar`/`_Footer`, and a page's revisions (50 per page, Gitea's CommitsRangeSize).
 */
import { BadRequest } from '../../errors';
import { settings } from '../../config';
import { entriesAt, lastCommitOfPath, listDir, readBlob, type TreeEntry } from '../../git/objects';
import { listCommitIds, readCommits, type CommitRecord } from '../../git/history';
import type { WikiCommitList, WikiPage, WikiPageMetaData } from '../../api/wiki';
import { notFoundWith, NOT_FOUND_MESSAGE } from '../content/access';
import { gitPathToWebPath, isSafeGitPath, queryUnescape, webPathToGitPath, webPathToTitle } from './wiki-path';
import { wikiHead, type WikiRepo } from './wiki-repo';
import { toWikiCommit, toWikiPageMetaData } from './view';
import { dirExists } from '../../git/init';

/** A window of a list: skip `offset` items, take `limit`. */
export interface Window { offset: number; limit: number }

/** Gitea's setting.Git.CommitsRangeSize: revisions per page. */
export const REVISIONS_PER_PAGE = 50;

/** Gitea's error for a name that cannot be a wiki file. */
export function invalidName(name: string): BadRequest {
  return new BadRequest(`Invalid wiki filename: ${name}`);
}

/** The commit of the wiki branch; 404 (Gitea's findWikiRepoCommit) when the wiki or its branch is missing. */
export async function wikiCommitOr404(w: WikiRepo): Promise<string> {
  const head = await wikiHead(w);
  if (head) return head;
  const why = (await dirExists(w.gitDir)) ? `object does not exist [id: ${w.branch}, rel_path: ]` : 'no such file or directory';
  throw notFoundWith(NOT_FOUND_MESSAGE, [why]);
}

/** A page's file as found in a commit. */
export interface FoundPage { path: string; entry: TreeEntry }

/**
 * The file of web path `wp` in `commit`: its git path, or else that path query-unescaped (Gitea's
 * findEntryForFile reaches files pushed with real subdirectories this way). Null when neither is a
 * file. A name whose git path could never be a wiki file (`..`, `.git`, control characters) is 400.
 */
export async function findPage(gitDir: string, commit: string, wp: string): Promise<FoundPage | null> {
  const gitPath = webPathToGitPath(wp);
  if (!isSafeGitPath(gitPath, false)) throw invalidName(wp);
  const candidates = [gitPath];
  const alt = queryUnescape(gitPath);
  // why: the unescaped alternative is looked up only when it is itself a harmless path.
  if (alt !== null && alt !== gitPath && isSafeGitPath(alt, false)) candidates.push(alt);
  const found = await entriesAt(gitDir, commit, candidates);
  for (const p of candidates) {
    const e = found.get(p);
    if (e && e.type === 'blob') return { path: p, entry: e };
  }
  return null;
}

/** Base64 of a page blob, or "" when it is larger than [api] DEFAULT_MAX_BLOB_SIZE (as Gitea). */
async function contentOf(gitDir: string, e: TreeEntry | undefined): Promise<string> {
  if (!e || e.size > settings().api.defaultMaxBlobSize) return '';
  return (await readBlob(gitDir, e.oid)).toString('base64');
}

/** Commits touching `path` up to `commit`, newest first. */
function historyOf(gitDir: string, commit: string, path: string): Promise<string[]> {
  return listCommitIds(gitDir, { rev: commit, path });
}

/** One page with its content, revision count, last commit, sidebar and footer; 404 when missing. */
export async function getPage(w: WikiRepo, wp: string): Promise<WikiPage> {
  const commit = await wikiCommitOr404(w);
  const page = await findPage(w.gitDir, commit, wp);
  if (!page) throw notFoundWith(NOT_FOUND_MESSAGE, null);
  const [sidebar, footer] = [await findPage(w.gitDir, commit, '_Sidebar'), await findPage(w.gitDir, commit, '_Footer')];
  const ids = await historyOf(w.gitDir, commit, page.path);
  const [last] = ids.length ? await readCommits(w.gitDir, [ids[0]]) : [];
  return {
    ...toWikiPageMetaData(webPathToTitle(wp), wp, w.htmlUrl, last ?? null),
    content_base64: await contentOf(w.gitDir, page.entry),
    commit_count: ids.length,
    sidebar: await contentOf(w.gitDir, sidebar?.entry),
    footer: await contentOf(w.gitDir, footer?.entry),
  };
}

/**
 * A window of the wiki's pages and the number of top-level entries (Gitea counts every entry, and
 * skips non-pages inside the window, so a window may hold fewer pages than `limit`).
 */
export async function listPages(w: WikiRepo, opts: Window): Promise<{ pages: WikiPageMetaData[]; total: number }> {
  const commit = await wikiCommitOr404(w);
  const entries = await listDir(w.gitDir, commit, '');
  const wanted: { wp: string; last: string }[] = [];
  for (const e of entries.slice(opts.offset, opts.offset + opts.limit)) {
    // why: Gitea lists regular files only (mode 100644): not executables, symlinks, trees or submodules.
    if (e.type !== 'blob' || e.mode !== '100644') continue;
    const wp = gitPathToWebPath(e.path);
    if (wp === null) continue;
    const last = await lastCommitOfPath(w.gitDir, commit, e.path);
    wanted.push({ wp, last: last?.sha ?? '' });
  }
  const commits = new Map((await readCommits(w.gitDir, [...new Set(wanted.map((x) => x.last).filter(Boolean))])).map((c) => [c.id, c]));
  const pages = wanted.map((x) => toWikiPageMetaData(webPathToTitle(x.wp), x.wp, w.htmlUrl, commits.get(x.last) ?? null));
  return { pages, total: entries.length };
}

/** A page's revisions, page `page` of REVISIONS_PER_PAGE (`wp` '' is Home); 404 when the page is missing. */
export async function pageRevisions(w: WikiRepo, wp: string, opts: Window): Promise<WikiCommitList> {
  const commit = await wikiCommitOr404(w);
  const page = await findPage(w.gitDir, commit, wp || 'Home');
  if (!page) throw notFoundWith(NOT_FOUND_MESSAGE, null);
  const ids = await historyOf(w.gitDir, commit, page.path);
  const commits: CommitRecord[] = await readCommits(w.gitDir, ids.slice(opts.offset, opts.offset + opts.limit));
  return { commits: commits.map(toWikiCommit), count: ids.length };
}
