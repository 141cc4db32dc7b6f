/**
 * Commit history of a repository: the paged commit list (`/commits`) and single commits
 * (`/git/commits/{sha}`), with changed files, line stats and signature verification each only
 * computed when asked for.
 */
import type { DbContext } from '../../db';
import { Conflict, NotFound } from '../../errors';
import { assertSafeGitArg } from '../../git/run';
import { repoPath } from '../../git/paths';
import { WeightedLru } from '../../git/lru';
import { resolveCommit } from '../../git/cat-file';
import { listCommitIds, readCommits, diffCommits, diffFiles, mergeBase, type ChangedFile, type CommitRecord, type HistoryRange } from '../../git/history';
import { findUsersByEmails } from '../../models/email-address.model';
import type { UserModel } from '../../models/user.model';
import { AccessMode, UnitType } from '../../models/perm';
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
  const id = await resolveCommit(gitDir, assertSafeGitArg(rev, what));
  if (!id) throw new NotFound(`object does not exist [id: ${rev}, rel_path: ]`);
  return id;
}

// why: a history's id list depends only on immutable commit ids and the filters, so it is cached
// without expiry (bounded by the number of ids held, least recently used first): the count is its
// length and any page is a slice, so a deep page does not walk the history again.
const histories = new WeightedLru<string[]>(2_000_000, (ids) => ids.length);

async function historyIds(gitDir: string, range: HistoryRange): Promise<string[]> {
  const key = JSON.stringify([gitDir, range.rev, range.not, range.path, range.since?.getTime(), range.until?.getTime()]);
  const hit = histories.get(key);
  if (hit) return hit;
  const ids = await listCommitIds(gitDir, range);
  histories.set(key, ids);
  return ids;
}

/** Read commits and, when asked, their changed files and line stats. */
async function loadCommits(gitDir: string, ids: string[], detail: CommitDetail): Promise<CommitRecord[]> {
  const [commits, diffs] = await Promise.all([
    readCommits(gitDir, ids),
    detail.files || detail.stat ? diffCommits(gitDir, ids) : Promise.resolve(null),
  ]);
  if (diffs) {
    for (const c of commits) {
      const d = diffs.get(c.id) ?? { files: [], additions: 0, deletions: 0 };
      if (detail.files) c.files = d.files;
      if (detail.stat) { c.additions = d.additions; c.deletions = d.deletions; }
    }
  }
  return commits;
}

/** Users and verifications for a set of commits. */
async function decorate(ctx: DbContext, commits: CommitRecord[], verification: boolean): Promise<CommitsResult> {
  const users = await findUsersByEmails(ctx, commits.flatMap((c) => [c.author.email, c.committer.email]));
  const verifications = verification ? await verifyCommits(ctx, commits, users) : new Map<string, Verification>();
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
  const ids = await historyIds(gitDir, range);
  // why: Gitea answers 404 when a path has no history at all.
  if (q.path && ids.length === 0) throw new NotFound(`path does not exist [path: ${q.path}]`);
  const commits = await loadCommits(gitDir, ids.slice(q.skip, q.skip + q.limit), q);
  return { ...(await decorate(ctx, commits, q.verification)), total: ids.length };
}

/** One commit by id or ref name. */
export async function getCommit(ctx: DbContext, rc: RepoContext, sha: string, detail: CommitDetail): Promise<CommitsResult> {
  assertCodeReadable(rc);
  assertNotEmpty(rc);
  const gitDir = repoPath(rc.owner.name, rc.repo.name);
  const id = await resolveCommitId(gitDir, sha);
  return decorate(ctx, await loadCommits(gitDir, [id], detail), detail.verification);
}

/** Most commits a comparison lists (the total is still reported). */
const MAX_COMPARE_COMMITS = 250;

/** What `/compare/{base}...{head}` shows: the commits of head since the merge base, and the files they change. */
export interface Comparison extends CommitsResult { total: number; files: ChangedFile[] }

/** Compare `base...head` (or `base..head`): commits reachable from head but not from base, and the changed files. */
export async function compareCommits(ctx: DbContext, rc: RepoContext, basehead: string): Promise<Comparison> {
  assertCodeReadable(rc);
  assertNotEmpty(rc);
  const m = /^(.+?)\.\.\.?(.+)$/.exec(basehead);
  if (!m) throw new NotFound(`invalid compare range: ${basehead}`);
  const gitDir = repoPath(rc.owner.name, rc.repo.name);
  const [base, head] = await Promise.all([resolveCommitId(gitDir, m[1], 'base'), resolveCommitId(gitDir, m[2], 'head')]);
  const [ids, from] = await Promise.all([historyIds(gitDir, { rev: head, not: [base] }), mergeBase(gitDir, base, head)]);
  const commits = await loadCommits(gitDir, ids.slice(0, MAX_COMPARE_COMMITS), { stat: true, files: true, verification: true });
  const files = await diffFiles(gitDir, from ?? base, head);
  return { ...(await decorate(ctx, commits, true)), total: ids.length, files };
}
