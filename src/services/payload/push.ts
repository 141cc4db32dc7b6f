/**
 * Push payloads, as Gitea sends them (services/repository/push.go): a branch's with the commits it
 * gained (as refs/push-range reads them) and their files, a tag's with its head commit only. The
 * webhook subscriber and Actions' push trigger both build them here.
 */
import { settings } from '../../config';
import type { DbContext } from '../../db';
import type { PushPayload } from '../../api/webhook';
import type { PayloadCommit } from '../../api/refs';
import { ZERO_ID } from '../../git/refs';
import { diffCommits } from '../../git/history';
import { repoPath } from '../../git/paths';
import type { RefChange } from '../../models/push-event.model';
import type { RepositoryModel } from '../../models/repository.model';
import { findUserById, type UserModel } from '../../models/user.model';
import { pathEscapeSegments } from '../content/refs';
import { repoUrls } from '../content/view';
import { PushRanges, type PushRange } from '../refs/push-range';
import { hookCommits, hookRepo, hookUser } from './parts';

const TAGS = 'refs/tags/';

/** The commits of a branch change as a push payload lists them (with their files), its count and head commit. */
async function branchCommits(ctx: DbContext, dir: string, repoHtml: string, range: PushRange): Promise<{ list: PayloadCommit[]; total: number; head: PayloadCommit | null }> {
  const records = [...range.shown, ...(range.head && !range.shown.some((r) => r.id === range.head!.id) ? [range.head] : [])];
  const files = await diffCommits(dir, records.map((r) => r.id));
  const converted = await hookCommits(ctx, records.map((r) => ({ ...r, files: files.get(r.id)?.files ?? [] })), repoHtml);
  const byId = new Map(converted.map((p) => [p.id, p]));
  return { list: range.shown.flatMap((r) => byId.get(r.id) ?? []), total: range.total, head: range.head ? byId.get(range.head.id) ?? null : null };
}

/** What the push payloads of one push share. */
export interface PushEnv { ctx: DbContext; dir: string; repo: RepositoryModel; repoHtml: string; owned: PushPayload['repository']; sender: PushPayload['sender']; ranges: PushRanges }

/** The push payload of one ref change: a branch's with its commits, a tag's with its head commit only. */
export async function pushPayload(e: PushEnv, c: RefChange): Promise<PushPayload> {
  const root = settings().server.rootUrl;
  const deleted = c.newCommitId === ZERO_ID;
  if (c.refName.startsWith(TAGS)) {
    const head = deleted ? null : (await branchCommits(e.ctx, e.dir, e.repoHtml, await e.ranges.of({ ...c, oldCommitId: c.newCommitId }))).head;
    return {
      ref: c.refName, before: c.oldCommitId, after: c.newCommitId, compare_url: deleted ? root : `${e.repoHtml}/compare/${ZERO_ID}...${c.newCommitId}`,
      commits: [], total_commits: 0, head_commit: head, repository: e.owned, pusher: e.sender, sender: e.sender,
    };
  }
  const commits = await branchCommits(e.ctx, e.dir, e.repoHtml, await e.ranges.of(c));
  const from = await e.ranges.compareBase(c, e.repo.defaultBranch);
  return {
    // why: Gitea prefixes its ROOT_URL to the compare path, which is empty when there is nothing to compare.
    ref: c.refName, before: c.oldCommitId, after: c.newCommitId, compare_url: from ? `${e.repoHtml}/compare/${pathEscapeSegments(from)}...${c.newCommitId}` : root,
    commits: commits.list, total_commits: commits.total, head_commit: commits.head, repository: e.owned, pusher: e.sender, sender: e.sender,
  };
}

/** The push payload of one ref change that is not a deletion, as hooks get it (Actions' `github.event`). */
export async function buildPushPayload(ctx: DbContext, repo: RepositoryModel, owner: UserModel, pusherId: number, c: RefChange): Promise<PushPayload> {
  const pusher = pusherId > 0 ? await findUserById(ctx, pusherId) : null;
  const dir = repoPath(owner.name, repo.name);
  const repoHtml = repoUrls(settings().server.rootUrl, owner.name, repo.name).html;
  return pushPayload({ ctx, dir, repo, repoHtml, owned: await hookRepo(ctx, repo, owner, pusher, 'owner'), sender: hookUser(pusher), ranges: new PushRanges(dir) }, c);
}
