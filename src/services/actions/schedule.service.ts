/**
 * Scheduled workflows: each push to a repository's default branch replaces its schedules with the
 * crons of the workflows there; every process looks for due schedules every few seconds, and a
 * schedule fires where a guarded update moves it on, so it fires once across the cluster.
 */
import { systemCtx, withTx } from '../../db';
import { repoPath } from '../../git/paths';
import { readCommits } from '../../git/history';
import { advanceSchedule, dueSchedules, replaceSchedules, type NewSchedule } from '../../models/action-schedule.model';
import { findRepoById, type RepositoryModel } from '../../models/repository.model';
import { findUserById, type UserModel } from '../../models/user.model';
import { nowUnix } from '../../models/issue.model';
import { hookRepo, hookUser } from '../payload/parts';
import { nextCron, parseCron } from './cron';
import { createRuns } from './run.service';
import { parseWorkflow } from './workflow-parse';
import { workflowFiles } from './workflows';

/** The crons of a workflow's `on.schedule`. */
function cronsOf(content: string): string[] {
  const wf = parseWorkflow(content);
  if (!wf.on.has('schedule')) return [];
  const list = (wf.doc.on as { schedule?: unknown }).schedule;
  return Array.isArray(list) ? list.flatMap((e) => (e && typeof e === 'object' && typeof (e as { cron?: unknown }).cron === 'string' ? [(e as { cron: string }).cron] : [])) : [];
}

/** Replace a repository's schedules with those of the default branch's commit `sha` (pushed by `pusherId`). */
export async function refreshSchedules(repo: RepositoryModel, owner: UserModel, sha: string, pusherId: number): Promise<void> {
  const now = nowUnix();
  const rows: NewSchedule[] = [];
  for (const f of await workflowFiles(repoPath(owner.name, repo.name), sha)) {
    let crons: string[];
    try { crons = cronsOf(f.content); } catch { continue; }
    for (const spec of crons) {
      try {
        const next = Math.floor(nextCron(parseCron(spec), new Date(now * 1000)).getTime() / 1000);
        rows.push({ repoId: repo.id, ownerId: owner.id, workflowId: f.id, spec, ref: `refs/heads/${repo.defaultBranch}`, commitSha: sha, triggerUserId: pusherId, next });
      } catch { /* a cron that does not parse never fires */ }
    }
  }
  await withTx(systemCtx, (tx) => replaceSchedules(tx, repo.id, rows, now));
}

/** Fire the schedules that are due and that this process wins; returns how many it fired. */
export async function fireDueSchedules(): Promise<number> {
  const now = nowUnix();
  let fired = 0;
  for (const s of await dueSchedules(systemCtx, now, 100)) {
    const next = Math.floor(nextCron(parseCron(s.spec), new Date(now * 1000)).getTime() / 1000);
    if (!(await withTx(systemCtx, (tx) => advanceSchedule(tx, s.id, s.next, next)))) continue;
    const repo = await findRepoById(systemCtx, s.repoId);
    const owner = repo && (await findUserById(systemCtx, repo.ownerId));
    if (!repo || !owner) continue;
    const [commit] = await readCommits(repoPath(owner.name, repo.name), [s.commitSha]);
    if (!commit) continue;
    const trigger = s.triggerUserId > 0 ? await findUserById(systemCtx, s.triggerUserId) : null;
    await createRuns({
      repo, owner, doerId: s.triggerUserId, event: 'schedule', ref: s.ref, sha: s.commitSha, workflowId: s.workflowId,
      details: async () => ({ title: commit.message, payload: { schedule: s.spec, repository: await hookRepo(systemCtx, repo, owner, trigger, 'none'), sender: hookUser(trigger) } }),
      trigger: async (wf) => (wf.on.has('schedule') ? 'schedule' : null),
    });
    fired++;
  }
  return fired;
}
