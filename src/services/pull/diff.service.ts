/**
 * What a pull request changes, read from the base repository: its commits (`/commits`, newest
 * first), its files with line counts (`/files`), and its `.diff` and `.patch`, all between the
 * merge base and `refs/pull/<n>/head`. A merged pull request keeps the merge base it had.
 */
import type { DbContext } from '../../db';
import { NotFound, Validation } from '../../errors';
import { diffWithStats, type FileChange } from '../../git/history';
import { repoPath } from '../../git/paths';
import { refId } from '../../git/ref-info';
import { Readable, Transform } from 'node:stream';
import { WeightedLru } from '../../git/lru';
import { spawnGit } from '../../git/run';
import { findIssueByIndex } from '../../models/issue.model';
import { pullsOfIssues, type PullRequestModel } from '../../models/pull-request.model';
import type { RepoContext } from '../repo/context';
import { listCommitRange, type CommitDetail, type CommitsResult } from '../history/commit.service';
import { headRefOf } from './check';
import { assertPullsReadable } from './pull.service';

/** The two ends of a pull request's changes in the base repository. */
interface PullRange { dir: string; pr: PullRequestModel; from: string; head: string }

async function rangeOf(ctx: DbContext, rc: RepoContext, index: number): Promise<PullRange> {
  assertPullsReadable(rc);
  const issue = Number.isSafeInteger(index) && index > 0 ? await findIssueByIndex(ctx, rc.repo.id, index) : null;
  const pr = issue?.isPull ? (await pullsOfIssues(ctx, [issue.id])).get(issue.id) : undefined;
  if (!pr) throw new NotFound();
  const dir = repoPath(rc.owner.name, rc.repo.name);
  const head = await refId(dir, headRefOf(pr));
  // why: an open pull request is compared with its base branch as it is now; a merged one with the base it was merged from.
  const from = pr.hasMerged ? pr.mergeBase : (await refId(dir, `refs/heads/${pr.baseBranch}`)) ?? pr.mergeBase;
  if (!head || !from) throw new NotFound();
  return { dir, pr, from, head };
}

/** A page of the pull request's commits, newest first, with the total. */
export async function pullCommits(ctx: DbContext, rc: RepoContext, index: number, page: { skip: number; limit: number }, detail: CommitDetail): Promise<CommitsResult & { total: number }> {
  const r = await rangeOf(ctx, rc, index);
  return listCommitRange(ctx, r.dir, { rev: r.head, not: [r.from] }, page.skip, page.limit, detail);
}

const WHITESPACE: Record<string, string[]> = { 'ignore-all': ['-w'], 'ignore-change': ['-b'], 'ignore-eol': ['--ignore-space-at-eol'], 'show-all': [] };

/** The files the pull request changes (from `skipTo` on, when given), with the head commit the URLs name. */
export async function pullFiles(ctx: DbContext, rc: RepoContext, index: number, q: { skipTo?: string; whitespace?: string }): Promise<{ files: FileChange[]; head: string }> {
  const flags = WHITESPACE[q.whitespace ?? 'show-all'];
  if (!flags) throw new Validation(`[whitespace]: must be one of ${Object.keys(WHITESPACE).join(', ')}`);
  const r = await rangeOf(ctx, rc, index);
  const base = r.pr.hasMerged ? r.pr.mergeBase : r.pr.mergeBase || r.from;
  let files = await diffWithStats(r.dir, base, r.head, flags);
  if (q.skipTo) {
    const at = files.findIndex((f) => f.path === q.skipTo);
    if (at >= 0) files = files.slice(at);
  }
  return { files, head: r.head };
}

/** The most bytes of `.diff` and `.patch` answers a process keeps, and the largest one it keeps. */
const KEPT_DIFF_BYTES = 64 * 1024 * 1024;
const LARGEST_KEPT_DIFF = 8 * 1024 * 1024;

// why: a diff of two commits never changes, and CI systems and review tools fetch the same one again
// and again; kept answers are sent from memory, weighed by their size.
const keptDiffs = new WeightedLru<Buffer>(KEPT_DIFF_BYTES, (b) => b.length + 100);

/** `.diff` (`binary` adds binary patches) or `.patch` of the pull request: a kept answer, or streamed from git and kept when small enough. */
export async function pullDiff(ctx: DbContext, rc: RepoContext, index: number, kind: 'diff' | 'patch', binary: boolean): Promise<Readable> {
  const r = await rangeOf(ctx, rc, index);
  const base = r.pr.mergeBase || r.from;
  const key = `${r.dir}\0${kind}\0${binary}\0${base}\0${r.head}`;
  const kept = keptDiffs.get(key);
  if (kept) return Readable.from([kept]);
  const args = kind === 'patch'
    ? ['format-patch', '--binary', '--no-signature', '--stdout', `${base}..${r.head}`]
    : ['diff', '-p', ...(binary ? ['--binary', '--histogram'] : []), base, r.head];
  const child = spawnGit(args, { gitDir: r.dir, stdin: false });
  child.stderr.resume();
  let parts: Buffer[] | null = [];
  let size = 0;
  let flushed = false;
  let exit: number | null | undefined;
  // why: kept only once git exited cleanly and every byte went through, whichever comes last.
  const keep = () => {
    if (flushed && exit === 0 && parts) keptDiffs.set(key, Buffer.concat(parts));
  };
  const tee = new Transform({
    transform(chunk: Buffer, _enc, done) {
      size += chunk.length;
      if (parts && size <= LARGEST_KEPT_DIFF) parts.push(chunk);
      else parts = null;
      done(null, chunk);
    },
    flush(done) {
      flushed = true;
      keep();
      done();
    },
  });
  child.once('exit', (code) => {
    exit = code;
    keep();
  });
  return child.stdout.pipe(tee);
}
