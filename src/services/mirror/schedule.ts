/**
 * The mirrors' background work in each worker process: an outbox runner for syncs and pushes, and
 * (with [cron.update_mirrors] ENABLED) a look at the schedule every SCHEDULE that queues the due
 * ones. A due mirror is queued where a guarded update moves its schedule on, so once across the
 * cluster however many nodes look. The look is Gitea's cron task `update_mirrors`.
 */
import { systemCtx, withTx } from '../../db';
import { settings } from '../../config';
import { notifyEnqueued } from '../../queue/outbox';
import { startOutboxWorker, type OutboxWorker } from '../../queue/worker';
import { nowUnix } from '../../models/issue.model';
import { claimMirrorSchedule, dueMirrors } from '../../models/mirror.model';
import { claimPushMirrorSchedule, duePushMirrors } from '../../models/push-mirror.model';
import { registerCronTask, scheduleCronTask } from '../cron/cron.service';
import { PULL_SYNC_TOPIC, queuePullSync, runPullSync } from './pull-mirror.service';
import { PUSH_SYNC_TOPIC, queuePushSync, runPushSync } from './push-mirror.service';

const CRON = 'update_mirrors';
// why: a claimed sync is not handed to another runner while its git may still run; the job's lease outlasts git's timeout.
const LEASE_MARGIN_MS = 60_000;

/**
 * Queue the pull and push mirrors whose time has come (at most PULL_LIMIT and PUSH_LIMIT). A claimed
 * mirror's schedule moves a lease ahead, so a sync that never reports back is tried again later;
 * the sync itself sets the real next time.
 */
export async function queueDueMirrors(): Promise<number> {
  if (!settings().mirror.enabled) return 0;
  const u = settings().updateMirrors;
  const now = nowUnix();
  const retry = now + settings().gitTimeout.mirror + 60;
  let queued = 0;
  for (const m of await dueMirrors(systemCtx, now, u.pullLimit)) {
    await withTx(systemCtx, async (tx) => {
      if (await claimMirrorSchedule(tx, m.id, Number(m.nextUpdateUnix), retry)) {
        await queuePullSync(tx, m.repoId);
        queued++;
      }
    });
  }
  for (const m of await duePushMirrors(systemCtx, now, u.pushLimit)) {
    await withTx(systemCtx, async (tx) => {
      if (await claimPushMirrorSchedule(tx, m.id, Number(m.nextUpdateUnix), retry)) {
        await queuePushSync(tx, m.id);
        queued++;
      }
    });
  }
  if (queued) notifyEnqueued();
  return queued;
}

/** Start the runner and, when scheduled syncs are on, the schedule's timer; `stop` ends both. */
export function startMirrorWork(): { stop(): Promise<void> } {
  registerCronTask(CRON, settings().updateMirrors.schedule * 1000, queueDueMirrors);
  const worker: OutboxWorker = startOutboxWorker({
    [PULL_SYNC_TOPIC]: (p) => runPullSync((p as { repoId: number }).repoId),
    [PUSH_SYNC_TOPIC]: (p) => runPushSync((p as { id: number }).id),
  }, { leaseMs: settings().gitTimeout.mirror * 1000 + LEASE_MARGIN_MS, pollMs: 1000, batch: 8, concurrency: 4 });
  const timer = settings().updateMirrors.enabled ? scheduleCronTask(CRON) : null;
  return { stop: async () => { timer?.stop(); await worker.stop(); } };
}
