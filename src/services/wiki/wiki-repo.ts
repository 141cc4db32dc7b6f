/**
 * A repository's wiki: who may read and write it (the wiki unit, decided with the one permission
 * function), where its bare repository lives (`<repo>.wiki.git` beside the code), and bringing it
 * into being on the first write (API or push), configured like every repository.
 */
import type { DbContext } from '../../db';
import { Forbidden, HttpError } from '../../errors';
import { settings } from '../../config';
import { repoPath } from '../../git/paths';
import { dirExists, initBare } from '../../git/init';
import { refId } from '../../git/ref-info';
import { withRepoLock } from '../../lock';
import { AccessMode, UnitType } from '../../models/perm';
import type { Principal } from '../auth/principal';
import { repoAssignment, type RepoContext } from '../repo/context';
import { notFoundWith, NOT_FOUND_MESSAGE } from '../content/access';
import { repoUrls } from '../content/view';

/** A repository whose wiki the caller may read (or write), with the wiki's git directory and branch. */
export interface WikiRepo extends RepoContext {
  gitDir: string;
  /** The wiki's default branch (Gitea's repository.default_wiki_branch). */
  branch: string;
  /** `<root><owner>/<repo>`, the base of html_url. */
  htmlUrl: string;
}

/** The wiki directory and branch of a resolved repository. */
export function wikiOf(rc: RepoContext): WikiRepo {
  return {
    ...rc,
    gitDir: repoPath(rc.owner.name, rc.repo.name, true),
    branch: rc.repo.defaultWikiBranch || 'main',
    htmlUrl: repoUrls(settings().server.rootUrl, rc.owner.name, rc.repo.name).html,
  };
}

/**
 * Resolve owner/repo for a wiki route. Reads need wiki read (a disabled wiki unit answers 404, as
 * Gitea's mustEnableWiki); writes also need a repository that is not archived (423, checked first
 * as Gitea's mustNotBeArchived) and wiki write permission (403).
 */
export async function wikiRepo(ctx: DbContext, p: Principal, owner: string, repo: string, need: 'read' | 'write' = 'read'): Promise<WikiRepo> {
  const rc = await repoAssignment(ctx, p, owner, repo);
  if (!rc.perm.can(UnitType.Wiki, AccessMode.Read)) throw notFoundWith(NOT_FOUND_MESSAGE, null);
  if (need === 'write') {
    if (rc.repo.isArchived) throw new HttpError(423, 'repo is archived');
    if (!rc.perm.can(UnitType.Wiki, AccessMode.Write)) throw new Forbidden('user should have a permission to write to a repo');
  }
  return wikiOf(rc);
}

/** The commit the wiki's branch points at, or null when the wiki or the branch does not exist yet. */
export async function wikiHead(w: WikiRepo): Promise<string | null> {
  if (!(await dirExists(w.gitDir))) return null;
  return refId(w.gitDir, `refs/heads/${w.branch}`);
}

/**
 * Create the wiki's bare repository when it is missing, with HEAD on the wiki branch. The caller
 * holds the repository's write lock. why: `git init` on a directory another node is creating
 * concurrently is harmless, but the lock keeps a half-configured wiki from being served.
 */
export async function ensureWikiLocked(w: WikiRepo): Promise<void> {
  if (await dirExists(w.gitDir)) return;
  await initBare(w.gitDir, w.branch);
}

/**
 * For git over HTTP and SSH, after the caller was authorized on the wiki unit: a missing wiki is
 * created when the caller may write to it (Gitea creates it on first access), and otherwise
 * answers like a missing repository.
 */
export async function prepareWikiForGit(rc: RepoContext, missing: () => Error): Promise<void> {
  const w = wikiOf(rc);
  if (await dirExists(w.gitDir)) return;
  if (rc.repo.isArchived || !rc.perm.can(UnitType.Wiki, AccessMode.Write)) throw missing();
  // why: the lock serializes creation with API writes to the same wiki, on any node.
  await withRepoLock(rc.repo.id, () => ensureWikiLocked(w));
}
