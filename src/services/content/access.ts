/**
 * Who may read and write a repository's files: code read for every content route (a disabled code
 * unit or no read access answers 404, like a missing repository), code write plus a non-archived
 * repository for changes. Decided with the one permission function.
 */
import type { DbContext } from '../../db';
import { Forbidden, HttpError, NotFound } from '../../errors';
import { settings } from '../../config';
import { repoPath } from '../../git/paths';
import { AccessMode, UnitType } from '../../models/perm';
import type { Principal } from '../auth/principal';
import { repoAssignment, type RepoContext } from '../repo/context';
import { repoUrls, type RepoUrls } from './view';

/** A repository whose code the caller may read (or write), with its git directory and URLs. */
export interface CodeRepo extends RepoContext { gitDir: string; urls: RepoUrls }

/** A 404 with Gitea's `errors` list. */
export function notFoundWith(message: string, errors: string[] | null): HttpError {
  return new HttpError(404, message, {}, { errors });
}

/** Gitea's default 404 message. */
export const NOT_FOUND_MESSAGE = new NotFound().message;

/**
 * Resolve owner/repo for a content route. `write` also needs code write permission (403), a
 * repository that is not archived (423, as Gitea's mustNotBeArchived) and not a pull mirror (403).
 */
export async function codeRepo(ctx: DbContext, p: Principal, owner: string, repo: string, need: 'read' | 'write' = 'read'): Promise<CodeRepo> {
  const rc = await repoAssignment(ctx, p, owner, repo);
  if (!rc.perm.units.has(UnitType.Code) || !rc.perm.can(UnitType.Code, AccessMode.Read)) throw new NotFound();
  if (need === 'write') {
    if (!rc.perm.can(UnitType.Code, AccessMode.Write)) throw new Forbidden('user should have a permission to write to a repo');
    // why: Gitea answers 423 Locked for changes to an archived repository (mustNotBeArchived).
    if (rc.repo.isArchived) throw new HttpError(423, 'repo is archived');
    // why: a pull mirror's branches follow its source; a commit here would be undone by the next sync.
    if (rc.repo.isMirror) throw new Forbidden('Git Repository is a mirror.');
  }
  return { ...rc, gitDir: repoPath(rc.owner.name, rc.repo.name), urls: repoUrls(settings().server.rootUrl, rc.owner.name, rc.repo.name) };
}
