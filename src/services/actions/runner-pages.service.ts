/**
 * What the runners pages need beyond the API's runner service: the runners a scope can use (a
 * repository sees its own, its owner's and the instance's, as Gitea's list does), each with its
 * status word and the scope it belongs to, a registration token reset, and a runner's description.
 */
import { withTx, type DbContext } from '../../db';
import { Validation } from '../../errors';
import type { ActionsScope } from '../../models/actions-scope';
import { listRunnersOfScopes, setRunnerDescription, type ActionRunnerModel } from '../../models/action-runner.model';
import { insertRunnerToken } from '../../models/action-runner-token.model';
import { findReposByIds } from '../../models/repository.model';
import { findUsersByIds } from '../../models/user.model';
import { nowUnix } from '../../models/issue.model';
import { listScopeRunners, newRegistrationToken, runnerPresence, scopeRunner } from './runner.service';

const MAX_DESCRIPTION = 4096;

/** A runner as the pages list it. */
export interface RunnerRow {
  id: number; name: string; version: string; labels: string[]; description: string;
  /** Gitea's status words: offline, idle or active. */
  status: 'offline' | 'idle' | 'active';
  /** "Global", the owner's name, or the repository's full name. */
  belongsTo: string;
  lastOnline: Date | null;
  /** Whether this scope owns the runner (may edit and delete it). */
  editable: boolean;
}

const isInstance = (s: ActionsScope) => s.ownerId === 0 && s.repoId === 0;
const owns = (s: ActionsScope, r: ActionRunnerModel) => isInstance(s) || (s.repoId ? r.repoId === s.repoId : r.ownerId === s.ownerId && r.repoId === 0);

/** A runner's status word, as Gitea computes it from its last call and its last task update. */
export function runnerStatus(r: ActionRunnerModel): RunnerRow['status'] {
  const p = runnerPresence(r);
  return !p.online ? 'offline' : p.busy ? 'active' : 'idle';
}

/** The rows of runners as seen from scope `s`. */
async function rowsOf(ctx: DbContext, s: ActionsScope, runners: ActionRunnerModel[]): Promise<RunnerRow[]> {
  const users = new Map((await findUsersByIds(ctx, [...new Set(runners.map((r) => r.ownerId).filter(Boolean))])).map((u) => [u.id, u.name]));
  const repos = await findReposByIds(ctx, [...new Set(runners.map((r) => r.repoId).filter(Boolean))]);
  const repoOwners = new Map((await findUsersByIds(ctx, [...new Set(repos.map((r) => r.ownerId))])).map((u) => [u.id, u.name]));
  const repoNames = new Map(repos.map((r) => [r.id, `${repoOwners.get(r.ownerId) ?? '?'}/${r.name}`]));
  return runners.map((r) => ({
    id: r.id, name: r.name, version: r.version, labels: r.labels(), description: r.description, status: runnerStatus(r),
    belongsTo: r.repoId ? repoNames.get(r.repoId) ?? 'Repository' : r.ownerId ? users.get(r.ownerId) ?? 'Owner' : 'Global',
    lastOnline: r.lastOnline ? new Date(Math.max(r.lastOnline, 0) * 1000) : null,
    editable: owns(s, r),
  }));
}

/**
 * The runners scope `s` can use, one page: every runner for the instance, an owner's and the
 * instance's for an owner, and for a repository (`repoOwnerId` given) its own, its owner's and the instance's.
 */
export async function listUsableRunners(ctx: DbContext, s: ActionsScope, page: { limit: number; offset: number }, repoOwnerId = 0): Promise<{ rows: RunnerRow[]; count: number }> {
  const global = { ownerId: 0, repoId: 0 };
  const { rows, count } = isInstance(s) ? await listScopeRunners(ctx, s, page)
    : await listRunnersOfScopes(ctx, s.repoId ? [s, { ownerId: repoOwnerId, repoId: 0 }, global] : [s, global], page);
  return { rows: await rowsOf(ctx, s, rows), count };
}

/** One runner the scope owns (404 otherwise), as the edit page shows it. */
export async function ownedRunner(ctx: DbContext, s: ActionsScope, id: number): Promise<RunnerRow> {
  const r = await scopeRunner(ctx, s, id);
  return (await rowsOf(ctx, s, [r]))[0];
}

/** Change the description of a runner the scope owns (404 for another's). */
export async function editRunnerDescription(ctx: DbContext, s: ActionsScope, id: number, description: string): Promise<void> {
  if ([...description].length > MAX_DESCRIPTION) throw new Validation(`The description is longer than ${MAX_DESCRIPTION} characters.`);
  const r = await scopeRunner(ctx, s, id);
  await setRunnerDescription(ctx, r.id, description, nowUnix());
}

/** Replace the scope's registration token: the old one registers no runner from then on. */
export async function resetRegistrationToken(ctx: DbContext, s: ActionsScope): Promise<string> {
  // why: one transaction, so the old token is invalidated exactly when the new one exists.
  return (await withTx(ctx, (tx) => insertRunnerToken(tx, s, newRegistrationToken(), nowUnix()))).token;
}
