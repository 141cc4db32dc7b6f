/** What the Actions pages share: who may change Actions, and durations as Gitea writes them. */
import { isDone, type ActionStatus } from '../../models/action-run.model';
import { AccessMode, UnitType } from '../../models/perm';
import { assertUnitWriter } from '../../services/repo/access';
import type { RepoContext } from '../../services/repo/context';

/** Whether the caller may change the repository's Actions (Disable, Run workflow, Rerun, Cancel, Approve). */
export function canWriteActions(rc: RepoContext): boolean {
  return rc.perm.can(UnitType.Actions, AccessMode.Write);
}

/**
 * 404 when the Actions unit is off or unreadable, 403 for a reader: a change asked by someone who
 * may not make it is the error page, not a message on the page (nothing is changed).
 */
export function assertActionsWriter(rc: RepoContext): void {
  assertUnitWriter(rc, UnitType.Actions);
}

/** Seconds a run or job took (or has taken so far), with a run's earlier attempts. */
export function durationOf(x: { started: number; stopped: number; status: ActionStatus }, previous = 0): number {
  const started = Number(x.started);
  if (!started) return Number(previous);
  const end = isDone(x.status) && Number(x.stopped) ? Number(x.stopped) : Math.floor(Date.now() / 1000);
  return Number(previous) + Math.max(0, end - started);
}

/** A duration as Gitea writes it: `1h 2m 3s`, `4m 5s`, `6s`. */
export function formatDuration(sec: number): string {
  const h = Math.floor(sec / 3600);
  const m = Math.floor((sec % 3600) / 60);
  const s = sec % 60;
  return h ? `${h}h ${m}m ${s}s` : m ? `${m}m ${s}s` : `${s}s`;
}
