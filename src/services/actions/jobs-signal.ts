/**
 * The tasks version of the runner protocol, and the wake-up of waiting runners: when a job becomes
 * ready anywhere in the cluster, every process hears a newer version and its waiting FetchTask
 * calls look for work. why: versions are milliseconds since the epoch, so a restarted process
 * never hands out a version older than one a runner holds, and nodes agree without a shared counter.
 */
import { publish, subscribe } from '../../queue/bus';

const TOPIC = 'actions.jobs-ready';
let latest = Date.now();
const listeners = new Set<() => void>();

subscribe(TOPIC, (v) => {
  if (Number(v) > latest) latest = Number(v);
  for (const fn of listeners) fn();
});

/** The newest tasks version this process knows. */
export function tasksVersion(): number {
  return latest;
}

/** Say that jobs are ready to be picked (after the transaction that made them waiting committed). */
export function signalJobsReady(): void {
  latest = Math.max(latest + 1, Date.now());
  publish(TOPIC, latest);
}

/** Be called whenever jobs become ready; returns the way to stop. */
export function onJobsReady(fn: () => void): () => void {
  listeners.add(fn);
  return () => listeners.delete(fn);
}
