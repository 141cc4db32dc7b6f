/**
 * The feed's events of a push, as Gitea records them (services/repository/push.go and the feed
 * notifier): a moved branch is a `commit_repo` with the commits as JSON; a new branch is two of
 * them (the creation, empty, and the push); a deleted branch a `delete_branch`; a new tag a
 * `push_tag` and a deleted one a `delete_tag`. Planned before the push's transaction (the git work),
 * recorded in it.
 */
import { ZERO_ID } from '../../git/refs';
import type { CommitRecord } from '../../git/history';
import { ActionType } from '../../models/action.model';
import type { RefChange } from '../../models/push-event.model';
import type { RepositoryModel } from '../../models/repository.model';
import type { UserModel } from '../../models/user.model';
import { pathEscapeSegments } from '../content/refs';
import type { PushRanges } from '../refs/push-range';
import type { Activity } from './record';

/** A commit as Gitea's PushCommits JSON writes it (Go field names, the author's time). */
function pushCommit(c: CommitRecord) {
  return {
    Sha1: c.id, Message: c.message, AuthorEmail: c.author.email, AuthorName: c.author.name,
    CommitterEmail: c.committer.email, CommitterName: c.committer.name, Timestamp: c.author.date,
  };
}

/** Gitea's PushCommits as its feed stores it. */
function pushContent(commits: CommitRecord[] | null, head: CommitRecord | null, compareUrl: string, len: number): string {
  return JSON.stringify({ Commits: commits && commits.map(pushCommit), HeadCommit: head && pushCommit(head), CompareURL: compareUrl, Len: len });
}

/** The feed's events of `changes` pushed by `pusherId` (none for changes found without a pusher). */
export async function planPushActivity(repo: RepositoryModel, owner: UserModel, pusherId: number, changes: RefChange[], ranges: PushRanges): Promise<Activity[]> {
  if (pusherId <= 0) return [];
  const out: Activity[] = [];
  const act = (opType: ActionType, refName: string, content = '') => out.push({ opType, actUserId: pusherId, repoId: repo.id, refName, content });
  // why: Gitea's compare links in feeds are relative to the site.
  const compare = (from: string, to: string) => `${pathEscapeSegments(owner.name)}/${pathEscapeSegments(repo.name)}/compare/${from}...${to}`;
  for (const c of changes) {
    const deleted = c.newCommitId === ZERO_ID;
    if (c.refName.startsWith('refs/tags/')) {
      if (deleted) act(ActionType.DeleteTag, c.refName, pushContent(null, null, '', 0));
      else act(ActionType.PushTag, c.refName, pushContent(null, (await ranges.of({ ...c, oldCommitId: c.newCommitId })).head, compare(c.oldCommitId, c.newCommitId), 0));
      continue;
    }
    if (deleted) {
      act(ActionType.DeleteBranch, c.refName);
      continue;
    }
    if (c.oldCommitId === ZERO_ID) act(ActionType.CommitRepo, c.refName);
    const range = await ranges.of(c);
    const from = await ranges.compareBase(c, repo.defaultBranch);
    act(ActionType.CommitRepo, c.refName, pushContent(range.shown, range.head, from ? compare(pathEscapeSegments(from), c.newCommitId) : '', range.total));
  }
  return out;
}
