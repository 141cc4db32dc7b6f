/**
 * Commit history of a repository: the paged commit list (`/commits`) and single commits
 * (`/git/commits/{sha}`), with changed files, line stats and signature verification each only
 * computed when asked for.
 */
import type { DbContext } from '../../db';
import { Conflict, NotFound } from '../../errors';
import { assertSafeGitArg } from '../../git/run';
import { repoPath } from '../../git/paths';
import { logPage, countCommits, type CommitRecord, type HistoryRange } from '../../git/log';
import { findUsersByEmails } from '../../models/email-address.model';
import type { UserModel } from '../../models/user.model';
import { AccessMode, UnitType } from '../../models/perm';
import { runTask } from '../../pool';
import type { RepoContext } from '../repo/context';
import { verifyCommits, type Verification } from './verify.service';

/** What to compute for each commit (Gitea's `stat`, `files` and `verification` switches). */
export interface CommitDetail { stat: boolean; files: boolean; verification: boolean }

/** Commits with what the API shows beside them. */
export interface CommitsResult {
  commits: CommitRecord[];
  /** Users behind author and committer emails, by lower-cased email. */
  users: Map<string, UserModel>;
  verifications: Map<string, Verification>;
}

/** The paged listing's query. */
export interface CommitListQuery extends CommitDetail {
  sha?: string;
  path?: string;
  not?: string;
  since?: Date;
  until?: Date;
  skip: number;
  limit: number;
}

/** Code read on a repository with a code unit; 404 otherwise (as for a missing repository). */
export function assertCodeReadable(rc: RepoContext): void {
  if (!rc.perm.units.has(UnitType.Code) || !rc.perm.can(UnitType.Code, AccessMode.Read)) throw new NotFound();
}

/** Gitea's answer for history requests on an empty repository. */
function assertNotEmpty(rc: RepoContext): void {
  if (rc.repo.isEmpty) throw new Conflict('Git Repository is empty.');
}

/** The full commit id `rev` names in the repository at `gitDir`; 404 when there is none. */
export async function resolveCommitId(gitDir: string, rev: string, what = 'sha'): Promise<string> {
  assertSafeGitArg(rev, what);
  return runTask('resolveCommit', { gitDir, rev });
}

// why: a count only depends on immutable commit ids and the filters, so it is cached without expiry
// (bounded, least recently used first) and a deep page does not recount the whole history.
const counts = new Map<string, number>();
const MAX_COUNTS = 2000;

async function cachedCount(gitDir: string, range: HistoryRange): Promise<number> {
  const key = JSON.stringify([gitDir, range.rev, range.not, range.path, range.since?.getTime(), range.until?.getTime()]);
  const hit = counts.get(key);
  if (hit !== undefined) {
    counts.delete(key);
    counts.set(key, hit);
    return hit;
  }
  const n = await countCommits(gitDir, range);
  counts.set(key, n);
  if (counts.size > MAX_COUNTS) counts.delete(counts.keys().next().value as string);
  return n;
}

/** Users and verifications for a set of commits. */
async function decorate(ctx: DbContext, gitDir: string, commits: CommitRecord[], verification: boolean): Promise<CommitsResult> {
  const users = await findUsersByEmails(ctx, commits.flatMap((c) => [c.author.email, c.committer.email]));
  const verifications = verification ? await verifyCommits(ctx, gitDir, commits, users) : new Map<string, Verification>();
  return { commits, users, verifications };
}

/** One page of a repository's history and the total number of commits it has. */
export async function listCommits(ctx: DbContext, rc: RepoContext, q: CommitListQuery): Promise<CommitsResult & { total: number }> {
  assertCodeReadable(rc);
  assertNotEmpty(rc);
  const gitDir = repoPath(rc.owner.name, rc.repo.name);
  const rev = await resolveCommitId(gitDir, q.sha || rc.repo.defaultBranch);
  const range: HistoryRange = { rev, since: q.since, until: q.until };
  if (q.not) range.not = [await resolveCommitId(gitDir, q.not, 'not')];
  if (q.path) range.path = assertSafeGitArg(q.path, 'path');
  const [total, commits] = await Promise.all([
    cachedCount(gitDir, range),
    logPage(gitDir, range, { skip: q.skip, limit: q.limit, files: q.files, stats: q.stat }),
  ]);
  // why: Gitea answers 404 when a path has no history at all.
  if (q.path && total === 0) throw new NotFound(`path does not exist [path: ${q.path}]`);
  return { ...(await decorate(ctx, gitDir, commits, q.verification)), total };
}

/** One commit by id or ref name. */
export async function getCommit(ctx: DbContext, rc: RepoContext, sha: string, detail: CommitDetail): Promise<CommitsResult> {
  assertCodeReadable(rc);
  assertNotEmpty(rc);
  const gitDir = repoPath(rc.owner.name, rc.repo.name);
  const id = await resolveCommitId(gitDir, sha);
  const commits = await logPage(gitDir, { rev: id }, { skip: 0, limit: 1, files: detail.files, stats: detail.stat });
  return decorate(ctx, gitDir, commits, detail.verification);
}
