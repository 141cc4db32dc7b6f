/**
 * The AGit flow: `git push origin HEAD:refs/for/<branch>[/<topic>] -o topic=… -o title=… -o
 * description=…` opens a pull request from the pushed commit without a fork or a branch, or moves
 * the head of the one the pusher opened before for that topic. git hands such pushes to the
 * proc-receive hook (after pre-receive, with the objects already stored); the hook asks this
 * service, which answers per ref with the pull request ref it moved or the reason it refused, in
 * Gitea's words. The head lives only in `refs/pull/<n>/head` of the repository.
 */
import type { DbContext } from '../../db';
import { HttpError } from '../../errors';
import { readCommits } from '../../git/history';
import { isAncestor } from '../../git/merge';
import { repoPath } from '../../git/paths';
import { refId } from '../../git/ref-info';
import { updateRefs, validRefFormat } from '../../git/ref-write';
import { ZERO_ID } from '../../git/refs';
import { withRepoLock } from '../../lock';
import { findOpenPullFor, PullFlow, type PullRequestModel } from '../../models/pull-request.model';
import { findRepoById } from '../../models/repository.model';
import { findUserById, type UserModel } from '../../models/user.model';
import { notifyEnqueued } from '../../queue/outbox';
import { asUser } from '../auth/principal';
import { assertNotBlocked } from '../issue/access';
import { issueTitle } from '../issue/issue.service';
import { repoAssignment, type RepoContext } from '../repo/context';
import { recordHeadMove } from './branch-moves';
import { headRefOf } from './check';
import { openPullRequest } from './pull.service';

const FOR = 'refs/for/';

/** One ref of an AGit push as the hook reports it back to git. */
export interface ProcResult { ref: string; ok: boolean; reason?: string; refname?: string; old?: string; new?: string; forced?: boolean }

/** What the proc-receive hook sends: the push's refs/for updates and its push options. */
export interface ProcReceiveRequest { repo_id: number; pusher_id: number; updates: { old: string; new: string; ref: string }[]; options?: unknown }

/** Push options (`-o key=value`, or a bare `-o key`) by key. */
function parseOptions(raw: unknown): Map<string, string> {
  const out = new Map<string, string>();
  for (const o of Array.isArray(raw) ? raw : []) {
    if (typeof o !== 'string') continue;
    const eq = o.indexOf('=');
    out.set(eq < 0 ? o : o.slice(0, eq), eq < 0 ? '' : o.slice(eq + 1));
  }
  return out;
}

/** The target branch and topic of `refs/for/<rest>`: the whole rest when it is a branch (topic from the option), else split at the first `/` after a branch. */
async function targetOf(dir: string, rest: string, topicOption: string): Promise<{ target: string; topic: string } | null> {
  const isBranch = async (b: string) => b !== '' && (await validRefFormat(`refs/heads/${b}`)) && (await refId(dir, `refs/heads/${b}`)) !== null;
  if (await isBranch(rest)) return { target: rest, topic: topicOption };
  for (let i = rest.indexOf('/'); i > 0; i = rest.indexOf('/', i + 1)) {
    if (rest.slice(i + 1) && (await isBranch(rest.slice(0, i)))) return { target: rest.slice(0, i), topic: rest.slice(i + 1) };
  }
  return null;
}

/** A new pull request of the AGit flow from `commit`, titled by the options or the commit message. */
async function openAgitPull(ctx: DbContext, rc: RepoContext, pusher: UserModel, dir: string, target: string, headBranch: string, commit: string, opts: Map<string, string>): Promise<PullRequestModel> {
  const [c] = await readCommits(dir, [commit]);
  const message = c?.message ?? '';
  const title = issueTitle(opts.get('title') || message.split('\n')[0]);
  const blank = message.indexOf('\n\n');
  const description = opts.get('description') || (blank >= 0 ? message.slice(blank + 2).trim() : '') || title;
  const fields = { repoId: rc.repo.id, posterId: pusher.id, name: title, content: description, milestoneId: 0, isPull: true, ref: '', deadlineUnix: 0 };
  const { pull } = await openPullRequest(ctx, rc, pusher, {
    fields, links: { milestone: null, labels: [], assignees: [] }, pull: { flow: PullFlow.AGit, headRepoId: rc.repo.id, headBranch, baseBranch: target },
    duplicate: async (tx) => {
      const again = await findOpenPullFor(tx, { repoId: rc.repo.id, branch: headBranch }, { repoId: rc.repo.id, branch: target }, PullFlow.AGit);
      return again ? new HttpError(409, 'a pull request for this topic was opened meanwhile') : null;
    },
    writeHead: (pr) => updateRefs(dir, [headRefOf(pr), commit]),
  });
  return pull;
}

/** One refs/for update: open or move a pull request, or the reason not to. */
async function procRef(ctx: DbContext, rc: RepoContext, pusher: UserModel, dir: string, u: { old: string; new: string; ref: string }, opts: Map<string, string>): Promise<ProcResult> {
  const refuse = (reason: string): ProcResult => ({ ref: u.ref, ok: false, reason });
  if (u.new === ZERO_ID) return refuse("Can't delete not exist branch");
  const found = await targetOf(dir, u.ref.slice(FOR.length), opts.get('topic') ?? '');
  if (!found) return refuse(`Unexpected ref: ${u.ref}`);
  if (!found.topic) return refuse('topic-branch is not set');
  const prefix = `${pusher.lowerName}/`;
  const headBranch = found.topic.startsWith(prefix) ? found.topic : `${prefix}${found.topic}`;
  if (!(await validRefFormat(`refs/heads/${headBranch}`))) return refuse(`invalid topic: ${found.topic}`);
  const open = await findOpenPullFor(ctx, { repoId: rc.repo.id, branch: headBranch }, { repoId: rc.repo.id, branch: found.target }, PullFlow.AGit);
  if (!open) {
    const pr = await openAgitPull(ctx, rc, pusher, dir, found.target, headBranch, u.new, opts);
    return { ref: u.ref, ok: true, refname: headRefOf(pr), old: ZERO_ID, new: u.new };
  }
  const force = ['', 'true', '1'].includes(opts.get('force-push') ?? 'no');
  return withRepoLock(rc.repo.id, async () => {
    const before = await refId(dir, headRefOf(open));
    if (before === u.new) return refuse('new commit is same with old commit');
    const forced = !!before && !(await isAncestor(dir, before, u.new));
    if (forced && !force) return refuse('request `force-push` push option');
    await updateRefs(dir, before ? [headRefOf(open), u.new, before] : [headRefOf(open), u.new]);
    if (before) await recordHeadMove(ctx, open, dir, before, u.new, pusher.id);
    notifyEnqueued();
    return { ref: u.ref, ok: true, refname: headRefOf(open), old: before ?? ZERO_ID, new: u.new, forced };
  });
}

/** The proc-receive hook's call: every refs/for update of the push, answered in order. */
export async function procReceive(r: ProcReceiveRequest, ctx: DbContext): Promise<{ results: ProcResult[] }> {
  const repo = Number.isInteger(r?.repo_id) ? await findRepoById(ctx, r.repo_id) : null;
  const owner = repo && (await findUserById(ctx, repo.ownerId));
  const pusher = Number.isInteger(r?.pusher_id) ? await findUserById(ctx, r.pusher_id) : null;
  const updates = Array.isArray(r?.updates) ? r.updates.filter((u) => typeof u?.ref === 'string' && u.ref.startsWith(FOR)) : [];
  if (!repo || !owner || !pusher) return { results: updates.map((u) => ({ ref: u.ref, ok: false, reason: 'User permission denied for creating pull-request.' })) };
  const rc = await repoAssignment(ctx, asUser(pusher), owner.name, repo.name);
  const dir = repoPath(owner.name, repo.name);
  const opts = parseOptions(r.options);
  const results: ProcResult[] = [];
  for (const u of updates) {
    try {
      await assertNotBlocked(ctx, rc, pusher);
      results.push(await procRef(ctx, rc, pusher, dir, u, opts));
    } catch (err) {
      if (!(err instanceof HttpError) || err.status >= 500) throw err;
      results.push({ ref: u.ref, ok: false, reason: err.message });
    }
  }
  return { results };
}
