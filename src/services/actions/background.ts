/**
 * The background work of Actions in every worker process: the dispatcher that wakes waiting
 * runners, the sweep that fails tasks whose runner went silent, the schedule ticker, and the
 * hourly cleanup of expired artifacts and old logs. Each is
 * safe to run on every node at once (guarded updates decide who acts).
 */
import { startDispatcher } from './dispatcher';
import { fireDueSchedules } from './schedule.service';
import { sweepStaleTasks } from './task.service';
import { cleanupActions } from './artifact.service';
import { registerCronTask, scheduleCronTask } from '../cron/cron.service';

// why: a due schedule waits at most this long; the look is one indexed query.
const SCHEDULE_TICK_MS = 10_000;
const SWEEP_MS = 60_000;
const CLEANUP = 'cleanup_actions';
// why: expiring artifacts and old logs is a few indexed queries; hourly keeps disk from lagging retention by a day.
registerCronTask(CLEANUP, 3600_000, cleanupActions);

/** Start it; `stop` ends the timers. */
export function startActionsWork(): { stop(): void } {
  startDispatcher();
  const every = (ms: number, what: string, fn: () => Promise<unknown>) => {
    const t = setInterval(() => { fn().catch((err: unknown) => console.error(`actions: ${what}:`, err)); }, ms);
    t.unref();
    return t;
  };
  const timers = [every(SCHEDULE_TICK_MS, 'schedules', fireDueSchedules), every(SWEEP_MS, 'task sweep', sweepStaleTasks)];
  const cleanup = scheduleCronTask(CLEANUP);
  return { stop: () => { timers.forEach(clearInterval); cleanup.stop(); } };
}
