/**
 * The commits a push brought to a branch, as Gitea lists them for its hooks and feeds: at most
 * FEED_MAX_COMMIT_NUM, newest first, with their count; for a new branch, up to 10 commits back from
 * its tip. Read once per push and shared by the hook payloads and the feed's events.
 */
import { ZERO_ID } from '../../git/refs';
import { countCommits, listCommitIds, readCommits, type CommitRecord } from '../../git/history';
import type { RefChange } from '../../models/push-event.model';

/** Gitea's `[ui] FEED_MAX_COMMIT_NUM` default: the most commits a push lists. */
export const FEED_MAX_COMMIT_NUM = 5;
/** The most commits back from a new branch's tip that Gitea reads (CommitsBeforeLimit(10)). */
const NEW_BRANCH_COMMITS = 10;

/** The commits of one branch change. */
export interface PushRange {
  /** The listed commits, newest first. */
  shown: CommitRecord[];
  /** How many commits the change brought (a new branch: how many were read, at most 10). */
  total: number;
  /** The new tip. */
  head: CommitRecord | null;
  /** The oldest commit read (a new branch's compare starts at its parent). */
  oldest: string | null;
}

/** The ranges of one push's changes, each read from git once (many branches made at one commit share theirs). */
export class PushRanges {
  private readonly seen = new Map<string, Promise<PushRange>>();

  constructor(private readonly dir: string) {}

  /** The commits `c` brought (`c` must not be a deletion). */
  of(c: RefChange): Promise<PushRange> {
    const key = `${c.oldCommitId}..${c.newCommitId}`;
    let got = this.seen.get(key);
    if (!got) {
      got = this.read(c);
      this.seen.set(key, got);
    }
    return got;
  }

  private async read(c: RefChange): Promise<PushRange> {
    const created = c.oldCommitId === ZERO_ID;
    // why: most moves add one commit (every server-side write does); its record, read through the
    // repository's long-running cat-file, says so without a rev-list process under the push's lock.
    const [tip] = created ? [] : await readCommits(this.dir, [c.newCommitId]);
    if (tip && tip.parents.length === 1 && tip.parents[0] === c.oldCommitId) return { shown: [tip], total: 1, head: tip, oldest: tip.id };
    const range = created ? { rev: c.newCommitId } : { rev: c.newCommitId, not: [c.oldCommitId] };
    const ids = await listCommitIds(this.dir, range, created ? NEW_BRANCH_COMMITS : FEED_MAX_COMMIT_NUM);
    const total = created || ids.length < FEED_MAX_COMMIT_NUM ? ids.length : await countCommits(this.dir, range);
    const shownIds = ids.slice(0, FEED_MAX_COMMIT_NUM);
    const records = new Map((await readCommits(this.dir, [...new Set([...shownIds, c.newCommitId])])).map((r) => [r.id, r]));
    return {
      shown: shownIds.flatMap((id) => records.get(id) ?? []), total,
      head: records.get(c.newCommitId) ?? null, oldest: ids.length ? ids[ids.length - 1] : null,
    };
  }

  /**
   * Where Gitea's compare of a branch change starts: the old tip; for a new branch, the parent of
   * the oldest commit read, else the default branch (unless it is that branch); null when there is
   * nothing to compare.
   */
  async compareBase(c: RefChange, defaultBranch: string): Promise<string | null> {
    let from = c.oldCommitId;
    const oldest = from === ZERO_ID ? (await this.of(c)).oldest : null;
    if (oldest) from = (await readCommits(this.dir, [oldest]))[0]?.parents[0] ?? ZERO_ID;
    const branch = c.refName.startsWith('refs/heads/') ? c.refName.slice('refs/heads/'.length) : '';
    if (from === ZERO_ID && defaultBranch !== branch) from = defaultBranch;
    return from === ZERO_ID ? null : from;
  }
}
