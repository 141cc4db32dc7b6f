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
import { prepareObjectReads, resolveCommit } from '../../git/cat-file';
import { refId } from '../../git/ref-info';
import { countCommits, listCommitIds, readCommits, diffCommits, diffFiles, mergeBase, prepareDiffs, type ChangedFile, type CommitRecord, type HistoryRange } from '../../git/history';
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

/** What is known of one history: its first ids (all of them when `complete`) and its length. */
interface KnownHistory { ids: string[]; complete: boolean; total: number }

// why: a history's ids depend only on immutable commit ids and the filters, so what was learnt of
// one is kept without expiry (bounded by the number of ids held, least recently used first): a page
// within the known ids is a slice and the total is remembered, so a later page walks nothing.
const histories = new WeightedLru<KnownHistory>(2_000_000, (h) => h.ids.length + 1);

/**
 * The ids of one page of a history (`skip`, then `limit`) and its total, from what is known or from
 * git: the ids with `rev-list --max-count` and the total with `rev-list --count`, side by side.
 * why: counting costs git the walk without writing 20,000 ids into a pipe. A deep page of a history
 * not known yet asks git for that page alone (`--skip`), and the ids before it are learnt after
 * the answer, so a later page walks nothing.
 */
function historyWindow(gitDir: string, range: HistoryRange, skip: number, limit: number): { ids: Promise<string[]>; total: Promise<number> } {
  const key = JSON.stringify([gitDir, range.rev, range.not, range.path, range.since?.getTime(), range.until?.getTime()]);
  const need = skip + limit;
  const known = histories.get(key);
  if (known && (known.complete || known.ids.length >= need)) return { ids: Promise.resolve(known.ids.slice(skip, need)), total: Promise.resolve(known.total) };
  // why: the page's ids are asked for first; the commits are read as soon as they come, while git counts.
  const ids = skip < DEEP_PAGE ? listCommitIds(gitDir, range, need) : listCommitIds(gitDir, range, limit, skip);
  const total = known ? Promise.resolve(known.total) : countCommits(gitDir, range);
  const learn = (ids: Promise<string[]>) => Promise.all([ids, total]).then(([got, count]) => {
    const cur = histories.get(key);
    const best = cur && cur.ids.length >= got.length ? cur.ids : got;
    histories.set(key, { ids: best, complete: best.length >= count, total: count });
  }, () => undefined);
  if (skip < DEEP_PAGE) {
    void learn(ids);
    return { ids: ids.then((all) => all.slice(skip)), total };
  }
  void Promise.all([ids, total]).then(() => learn(listCommitIds(gitDir, range, need)), () => undefined);
  return { ids, total };
}

/** From this many skipped commits on, a page of an unknown history is asked of git alone. */
const DEEP_PAGE = 1000;

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
  // why: the default branch is a branch (never a tag of the same name), read straight from its ref.
  const rev = (!q.sha && (await refId(gitDir, `refs/heads/${rc.repo.defaultBranch}`))) || (await resolveCommitId(gitDir, q.sha || rc.repo.defaultBranch));
  const range: HistoryRange = { rev, since: q.since, until: q.until };
  if (q.not) range.not = [await resolveCommitId(gitDir, q.not, 'not')];
  if (q.path) range.path = assertSafeGitArg(q.path, 'path');
  const history = historyWindow(gitDir, range, q.skip, q.limit);
  // why: git's start-up of the processes that read the page overlaps the walks that find its ids
  // and the total; started after those, so the walks are not queued behind them.
  prepareObjectReads(gitDir);
  if (q.stat || q.files) prepareDiffs(gitDir);
  // why: the page's commits are read while git still counts the history for the total.
  const page = history.ids.then((ids) => loadCommits(gitDir, ids, q));
  page.catch(() => undefined);
  const total = await history.total;
  // why: Gitea answers 404 when a path has no history at all.
  if (q.path && total === 0) throw new NotFound(`path does not exist [path: ${q.path}]`);
  return { ...(await decorate(ctx, await page, q.verification)), total };
}

/** One page of the commits of `range` (newest first) in `gitDir`, with the total. */
export async function listCommitRange(ctx: DbContext, gitDir: string, range: HistoryRange, skip: number, limit: number, detail: CommitDetail): Promise<CommitsResult & { total: number }> {
  const history = historyWindow(gitDir, range, skip, limit);
  const page = history.ids.then((ids) => loadCommits(gitDir, ids, detail));
  page.catch(() => undefined);
  const total = await history.total;
  return { ...(await decorate(ctx, await page, detail.verification)), total };
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
  const history = historyWindow(gitDir, { rev: head, not: [base] }, 0, MAX_COMPARE_COMMITS);
  const [ids, total, from] = await Promise.all([history.ids, history.total, mergeBase(gitDir, base, head)]);
  const commits = await loadCommits(gitDir, ids, { stat: true, files: true, verification: true });
  const files = await diffFiles(gitDir, from ?? base, head);
  return { ...(await decorate(ctx, commits, true)), total, files };
}
