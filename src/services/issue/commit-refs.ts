/**
 * References in pushed commits (Gitea's services/issue/commit.go UpdateIssuesCommit). The ref sync
 * that records a push's branch changes queues one `issue.commit-refs` outbox job in its
 * transaction; the job reads the commits each change brought (one `git rev-list` per change, the
 * messages through the repository's long-running cat-file), resolves every reference of the push
 * at once (one query for the repositories, one for the issues, the pusher's permission once per
 * repository), and writes in one transaction:
 * - a `commit_ref` entry per commit and referenced issue that the pusher may read, once, however
 *   often the commit is pushed (to another branch, or by a replayed job);
 * - for `Fixes #1`/`Reopens #1` on the default branch (or the issue's own branch, when it has one),
 *   the close or reopen through the issue service, as the pusher, when the pusher may close the
 *   issue (writer of its unit, or its poster); the entry names the commit, and a close that this
 *   commit already made is not made again.
 */
import { systemCtx, withTx, type DbContext } from '../../db';
import { listCommitIds, readCommits, type CommitRecord } from '../../git/history';
import { repoPath } from '../../git/paths';
import { ZERO_ID } from '../../git/refs';
import { commitMarks, CommentType, insertComments, type NewComment } from '../../models/comment.model';
import { lockIssueIds, lockIssues, touchIssues } from '../../models/issue.model';
import { AccessMode } from '../../models/perm';
import type { RefChange } from '../../models/push-event.model';
import { findRepoById, type RepositoryModel } from '../../models/repository.model';
import { findUserById, type UserModel } from '../../models/user.model';
import { enqueue } from '../../queue/outbox';
import { settings } from '../../config';
import { unitOf } from './access';
import { applyStateWishes, type StateWish } from './closing';
import { findIssueReferences, RefAction, type IssueReference } from './references';
import { resolveReferences } from './xref';

/** The outbox topic of a push's commit references. */
export const COMMIT_REFS_TOPIC = 'issue.commit-refs';

/** What the job carries: the branch changes a known pusher made. */
interface CommitRefsJob { repoId: number; pusherId: number; changes: RefChange[] }

const HEADS = 'refs/heads/';

/**
 * In the ref sync's transaction: queue the branch changes a known pusher made. Tags and deletions
 * bring no commits to read.
 */
export async function queueCommitRefs(tx: DbContext, repoId: number, pusherId: number, changes: RefChange[]): Promise<void> {
  const branches = changes.filter((c) => c.refName.startsWith(HEADS) && c.newCommitId !== ZERO_ID);
  if (pusherId <= 0 || branches.length === 0) return;
  await enqueue(tx, COMMIT_REFS_TOPIC, { repoId, pusherId, changes: branches } satisfies CommitRefsJob);
}
/** Gitea reads this many commits back from a new branch's tip (CommitsBeforeLimit(10)). */
const NEW_BRANCH_COMMITS = 10;

/** The commits a branch change brought, newest first: all of old..new, or a new branch's last ten. */
async function commitIdsOf(dir: string, c: RefChange): Promise<string[]> {
  try {
    return c.oldCommitId === ZERO_ID
      ? await listCommitIds(dir, { rev: c.newCommitId }, NEW_BRANCH_COMMITS)
      : await listCommitIds(dir, { rev: c.newCommitId, not: [c.oldCommitId] });
  } catch (err) {
    // why: a commit pruned since the push has nothing left to read; the other changes still count.
    console.error(`commit references of ${c.refName}:`, (err as Error).message);
    return [];
  }
}

/** One reference of one commit on one branch, in push order. */
interface Found { branch: string; commit: CommitRecord; ref: IssueReference }

/** A repository's web path below the root URL (Gitea's repo.Link()). */
function repoLink(owner: UserModel, repo: RepositoryModel): string {
  const sub = new URL(settings().server.rootUrl).pathname.replace(/\/$/, '');
  return `${sub}/${encodeURIComponent(owner.name)}/${encodeURIComponent(repo.name)}`;
}

// why: Go's html.EscapeString, so the stored body is the one Gitea writes (&#34; and &#39;, not &quot;).
const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&#34;').replace(/'/g, '&#39;');

/** The outbox handler: the references of a push's commits (idempotent, see the file's comment). */
export async function processCommitRefs(payload: unknown): Promise<void> {
  const job = payload as CommitRefsJob;
  const repo = await findRepoById(systemCtx, job.repoId);
  const owner = repo && (await findUserById(systemCtx, repo.ownerId));
  const pusher = await findUserById(systemCtx, job.pusherId);
  if (!repo || !owner || !pusher) return;
  const dir = repoPath(owner.name, repo.name);
  const ranges = await Promise.all(job.changes.map(async (c) => ({ branch: c.refName.slice(HEADS.length), ids: await commitIdsOf(dir, c) })));
  const records = new Map((await readCommits(dir, [...new Set(ranges.flatMap((r) => r.ids))])).map((c) => [c.id, c]));
  const found: Found[] = [];
  for (const { branch, ids } of ranges) {
    // why: as Gitea, oldest first, so a later commit's keyword wins over an earlier one's.
    for (const id of [...ids].reverse()) {
      const commit = records.get(id);
      if (commit) for (const ref of findIssueReferences(commit.message)) found.push({ branch, commit, ref });
    }
  }
  if (found.length === 0) return;
  const { issues, perms, repoOf } = await resolveReferences(systemCtx, pusher, repo.id, found.map((f) => f.ref), () => true);
  const link = repoLink(owner, repo);
  const refs = new Map<string, NewComment>();
  const wishes: StateWish[] = [];
  for (const { branch, commit, ref } of found) {
    const issue = issues.get(`${repoOf(ref)}#${ref.index}`);
    const perm = issue && perms.get(issue.repoId);
    if (!issue || !perm) continue;
    const unit = unitOf(issue.isPull);
    const canClose = perm.can(unit, AccessMode.Write) || issue.posterId === pusher.id;
    if (!canClose && !perm.can(unit, AccessMode.Read)) continue;
    const title = escapeHtml(commit.message.split('\n')[0]);
    // why: ref_repo_id (which Gitea leaves 0 here) names the commit's repository, so readers who cannot read it are not shown the entry.
    refs.set(`${issue.id} ${commit.id}`, {
      type: CommentType.CommitRef, issueId: issue.id, posterId: pusher.id, commitSha: commit.id, refRepoId: repo.id,
      content: `<a href="${escapeHtml(link)}/commit/${encodeURIComponent(commit.id)}">${title}</a>`,
    });
    if (issue.isPull || !canClose || (ref.action !== RefAction.Closes && ref.action !== RefAction.Reopens)) continue;
    const issueBranch = issue.ref.startsWith(HEADS) ? issue.ref.slice(HEADS.length) : issue.ref;
    if (branch !== (issueBranch || repo.defaultBranch)) continue;
    wishes.push({ issueId: issue.id, close: ref.action === RefAction.Closes, source: { commitSha: commit.id, repoId: repo.id } });
  }
  if (refs.size === 0) return;
  await withTx(systemCtx, async (tx) => {
    const issueIds = [...new Set([...refs.values()].map((r) => r.issueId))];
    // why: the issues are locked first, so two jobs naming the same commit and issue (a replay, the
    // commit pushed to another branch meanwhile) write its entries once: the second sees the first's.
    await lockIssueIds(tx, issueIds);
    const marks = await commitMarks(tx, issueIds, [...new Set([...refs.values()].map((r) => r.commitSha!))]);
    const has = new Set(marks.map((m) => `${m.issueId} ${m.commitSha} ${m.type}`));
    const fresh = [...refs.values()].filter((r) => !has.has(`${r.issueId} ${r.commitSha} ${CommentType.CommitRef}`));
    await insertComments(tx, fresh);
    await touchIssues(tx, fresh.map((r) => r.issueId));
    const due = wishes.filter((w) => !has.has(`${w.issueId} ${w.source.commitSha} ${w.close ? CommentType.Close : CommentType.Reopen}`));
    if (due.length === 0) return;
    const locked = new Map((await lockIssues(tx, due.map((w) => w.issueId))).map((i) => [i.id, i]));
    await applyStateWishes(tx, pusher, locked, due);
  });
}
