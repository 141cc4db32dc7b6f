/**
 * A repository's licenses (Gitea 1.24's license updater, services/repository/license.go): after a
 * push to the default branch, a change of the default branch, a creation, a fork or an adoption, one
 * `repo.licenses` outbox job reads the license files at the root of the default branch
 * (LICENSE, LICENCE, COPYING, UNLICENSE, any case, with or without an extension or suffix), has the
 * worker pool compare them with the SPDX texts, and replaces the repository's `repo_license` rows.
 * Off the request path; a replayed or late job reads the branch as it is then, so the last one wins.
 */
import { systemCtx, withTx, type DbContext } from '../../db';
import { listDir, readBlobHead, type TreeEntry } from '../../git/objects';
import { repoPath } from '../../git/paths';
import { refId } from '../../git/ref-info';
import { nowUnix } from '../../models/issue.model';
import { listRepoLicenses, replaceRepoLicenses } from '../../models/repo-license.model';
import { findRepoById } from '../../models/repository.model';
import { findUserById } from '../../models/user.model';
import { runTask } from '../../pool';
import { enqueue } from '../../queue/outbox';
import type { RepoContext } from '../repo/context';
import { assertCodeReadable } from '../history/commit.service';

/** The outbox topic of a repository's license detection. */
export const LICENSES_TOPIC = 'repo.licenses';

// why: the names go-license-detector and Gitea's FileTypeLicense look for, at the root only.
const LICENSE_FILE = /^(?:un)?(?:licen[cs]e|copying)(?:[-._][^/]*)?$/i;

/** The most bytes of one license file read (the longest SPDX texts are about 60 KB). */
const MAX_LICENSE_BYTES = 256 * 1024;

/** Is `name` (a root entry) a license file? */
export function isLicenseFileName(name: string): boolean {
  return LICENSE_FILE.test(name);
}

/** Queue a detection of the repository's licenses (inside the caller's transaction). */
export async function queueLicenseUpdate(tx: DbContext, repoId: number): Promise<void> {
  await enqueue(tx, LICENSES_TOPIC, { repoId });
}

/** The licenses of the files among `entries` (root entries of one commit). */
async function detect(gitDir: string, entries: TreeEntry[]): Promise<string[]> {
  const files = entries.filter((e) => e.type === 'blob' && e.mode !== '120000' && e.mode !== '160000' && isLicenseFileName(e.path));
  if (files.length === 0) return [];
  const texts = await Promise.all(files.map(async (f) => (await readBlobHead(gitDir, f.oid, MAX_LICENSE_BYTES)).toString('utf8')));
  return runTask('detectLicenses', { texts });
}

/** Detect and store the licenses of repository `repoId` at the head of its default branch. */
export async function updateRepoLicenses(repoId: number): Promise<void> {
  const ctx = systemCtx;
  const repo = await findRepoById(ctx, repoId);
  if (!repo) return;
  const owner = await findUserById(ctx, repo.ownerId);
  if (!owner) return;
  const gitDir = repoPath(owner.name, repo.name);
  const head = await refId(gitDir, `refs/heads/${repo.defaultBranch}`).catch(() => null);
  if (!head) {
    await withTx(ctx, (tx) => replaceRepoLicenses(tx, repoId, '', [], nowUnix()));
    return;
  }
  const rows = await listRepoLicenses(ctx, repoId);
  // why: a replayed job, or a second one for the same head, has nothing new to read.
  if (rows.length > 0 && rows.every((r) => r.commitId === head)) return;
  const licenses = await detect(gitDir, await listDir(gitDir, head, ''));
  await withTx(ctx, (tx) => replaceRepoLicenses(tx, repoId, head, licenses, nowUnix()));
}

/** The outbox handler of `repo.licenses`. */
export async function processLicenseJob(payload: unknown): Promise<void> {
  const { repoId } = payload as { repoId: number };
  await updateRepoLicenses(repoId);
}

/** GET /repos/{owner}/{repo}/licenses: the SPDX ids found, by name (needs code read, as Gitea's reqRepoReader(code)). */
export async function repoLicenses(ctx: DbContext, rc: RepoContext): Promise<string[]> {
  assertCodeReadable(rc);
  return (await listRepoLicenses(ctx, rc.repo.id)).map((r) => r.license);
}

