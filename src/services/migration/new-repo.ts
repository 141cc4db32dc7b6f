/**
 * Making a repository from a filler, the way a migration and a restore bring one into being: the
 * row first, marked "being migrated" (status 1, what a reader sees meanwhile); then the filler makes
 * the git directory (and the wiki) and writes the issues and the rest; then the row is marked
 * ready and the creation announced. A filler that fails leaves nothing: no directory, no row, no
 * count, no stored release asset (Gitea leaves a broken row).
 */
import { withTx, type DbContext } from '../../db';
import { Conflict, Validation } from '../../errors';
import { repoPath } from '../../git/paths';
import { dirExists, removeRepoDir } from '../../git/init';
import { findRepoById, markRepoMigrated, type NewRepoRow, type RepositoryModel } from '../../models/repository.model';
import { attachmentUuidsOfRepos } from '../../models/attachment.model';
import type { UserModel } from '../../models/user.model';
import { DEFAULT_UNITS, discardNewRepo, insertOwnedRepo } from '../lifecycle/repo-create.service';
import { assertRepoName } from '../repo/rules';
import { removeAttachmentFiles } from '../storage/attachment-store';
import { notify } from '../notify/notifier';

/** What a filler leaves to the transaction that marks the repository ready. */
export interface Filled {
  /** More rows that make the repository what it is (a mirror's), written with the mark. */
  ready?: (tx: DbContext) => Promise<void>;
  /** A mirror's last update, in Unix seconds (0 for others). */
  mirrorUpdatedUnix?: number;
}

/** Fills a new repository: its git directory `dir` (which does not exist yet), its wiki, its issues and the rest. */
export type Filler = (repo: RepositoryModel, dirs: { dir: string; wikiDir: string }) => Promise<Filled | void>;

/** The name rules of a migrated or restored repository, in Gitea's order and words (422). */
export function assertNewRepoName(name: string): void {
  if (!name) throw new Validation('[RepoName]: Required');
  if (!/^[\w.-]+$/.test(name)) throw new Validation('[RepoName]: AlphaDashDot');
  if (name.length > 100) throw new Validation('[RepoName]: MaxSize');
  assertRepoName(name);
}

/**
 * Make repository `row.name` of `owner` for `doer` with `fill`; answers it once it is ready. A name
 * in use is a 409 with Gitea's words.
 */
export async function makeRepoFrom(ctx: DbContext, doer: UserModel, owner: UserModel, row: Omit<NewRepoRow, 'ownerId' | 'ownerName' | 'status'>, fill: Filler): Promise<RepositoryModel> {
  const repo = await insertOwnedRepo(ctx, doer, owner, { ...row, status: 1 }, DEFAULT_UNITS, { kind: 'create', taken: () => 'The repository with the same name already exists.' });
  const dir = repoPath(owner.name, row.name);
  const wikiDir = repoPath(owner.name, row.name, true);
  if (await dirExists(dir)) {
    // why: as Gitea's ErrRepoFilesAlreadyExist, files on disk without a row are an unadopted repository
    // for an administrator to adopt or delete; they are never replaced by a migration.
    await discardNewRepo(ctx, repo, null);
    throw new Conflict('Files already exist for this repository. Adopt them or delete them.');
  }
  try {
    // why: a wiki directory without its repository's is nobody's (Gitea lists only repositories as unadopted).
    if (await dirExists(wikiDir)) await removeRepoDir(wikiDir);
    const filled = (await fill(repo, { dir, wikiDir })) ?? {};
    await withTx(ctx, async (tx) => {
      await filled.ready?.(tx);
      await markRepoMigrated(tx, repo.id, filled.mirrorUpdatedUnix ?? 0);
    });
  } catch (err) {
    // why: asset files are stored outside any transaction; their rows name them, so they are read before the rows go.
    const assets = await attachmentUuidsOfRepos(ctx, [repo.id]).catch(() => []);
    await removeRepoDir(wikiDir).catch(() => undefined);
    await discardNewRepo(ctx, repo, dir);
    await removeAttachmentFiles(assets);
    throw err;
  }
  await withTx(ctx, (tx) => notify.repositoryCreated(tx, { doer, repo, owner }));
  return (await findRepoById(ctx, repo.id)) ?? repo;
}
