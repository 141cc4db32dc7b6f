/**
 * The periodic tasks of the forge by Gitea's cron names, for `GET /admin/cron` and
 * `POST /admin/cron/{task}`. Each domain registers its task when its module loads; its own timer
 * runs it through `runCronTask`, so the counts and times cover every run this process made.
 * Figures are per process (a cluster node's worker answers with what it ran).
 */
import { NotFound } from '../../errors';
import { createNotice, NoticeType } from '../admin/notice.service';

/** A registered task and what this process has seen of it. */
export interface CronTask { name: string; schedule: string; everyMs: number; prev: number; next: number; execTimes: number; run: () => Promise<unknown> }

const tasks = new Map<string, CronTask>();

/** A period as Gitea's cron lines write it: `1h`, `10m`, `30s`. */
function everyText(secs: number): string {
  return secs % 3600 === 0 ? `${secs / 3600}h` : secs % 60 === 0 ? `${secs / 60}m` : `${secs}s`;
}

/** Register a task that runs every `everyMs` (its schedule shown as Gitea's `@every` form). */
export function registerCronTask(name: string, everyMs: number, run: () => Promise<unknown>): void {
  if (!tasks.has(name)) tasks.set(name, { name, schedule: `@every ${everyText(everyMs / 1000)}`, everyMs, prev: 0, next: Date.now() + everyMs, execTimes: 0, run });
}

/** An error's message with its cause's (a database error's driver message sits in `parent`). */
function failureText(err: unknown): string {
  const e = err as { message?: string; parent?: unknown; cause?: unknown };
  const msg = e?.message ?? String(err);
  const cause = e?.parent ?? e?.cause;
  return cause instanceof Error && cause.message !== msg ? `${msg} (${cause.message})` : msg;
}

/** Run a task now; 404 for a name no module registered. */
export async function runCronTask(name: string): Promise<void> {
  const t = tasks.get(name);
  if (!t) throw new NotFound(`Unknown cron task: ${name}`);
  t.prev = Date.now();
  t.next = t.prev + t.everyMs;
  t.execTimes++;
  try {
    await t.run();
  } catch (err) {
    // why: as Gitea, a failed periodic task leaves a system notice, so an administrator reads it without the log.
    await createNotice(NoticeType.Task, `Cron task ${name} failed: ${failureText(err)}`);
    throw err;
  }
}

/** Start a task's timer in this process; `stop` ends it. */
export function scheduleCronTask(name: string): { stop(): void } {
  const t = tasks.get(name);
  if (!t) throw new Error(`cron task ${name} is not registered`);
  const timer = setInterval(() => { runCronTask(name).catch((err: unknown) => console.error(`cron ${name}:`, err)); }, t.everyMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

/** The registered tasks, by name. */
export function listCronTasks(): CronTask[] {
  return [...tasks.values()].sort((a, b) => a.name.localeCompare(b.name));
}
