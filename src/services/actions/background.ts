/**
 * The background work of Actions in every worker process: the dispatcher that wakes waiting
 * runners, the sweep that fails tasks whose runner went silent, and the schedule ticker. Each is
 * safe to run on every node at once (guarded updates decide who acts).
 */
import { startDispatcher } from './dispatcher';
import { fireDueSchedules } from './schedule.service';
import { sweepStaleTasks } from './task.service';

// why: a due schedule waits at most this long; the look is one indexed query.
const SCHEDULE_TICK_MS = 10_000;
const SWEEP_MS = 60_000;

/** Start it; `stop` ends the timers. */
export function startActionsWork(): { stop(): void } {
  startDispatcher();
  const every = (ms: number, what: string, fn: () => Promise<unknown>) => {
    const t = setInterval(() => { fn().catch((err: unknown) => console.error(`actions: ${what}:`, err)); }, ms);
    t.unref();
    return t;
  };
  const timers = [every(SCHEDULE_TICK_MS, 'schedules', fireDueSchedules), every(SWEEP_MS, 'task sweep', sweepStaleTasks)];
  return { stop: () => timers.forEach(clearInterval) };
}
