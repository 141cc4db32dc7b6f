/**
 * The system status a site administrator reads on `/admin/monitor` (Gitea's monitor and system
 * status): this process's uptime and memory, the node it belongs to, the health checks, and the
 * outbox's depth per topic with its oldest waiting job. Everything is read once per request, cheaply:
 * process figures from Node, the outbox in one grouped statement.
 */
import os from 'node:os';
import { systemCtx } from '../../db';
import { outboxDepthByTopic } from '../../queue/outbox';
import { checkHealth, type Health } from './health.service';

/** What the monitor page shows. */
export interface SystemStatus {
  process: { pid: number; workerIndex: number | null; uptimeSeconds: number; nodeStarted: Date | null; node: string; rss: number; heapUsed: number; heapTotal: number; external: number };
  host: { name: string; cpus: number; loadAverage: number[]; freeMemory: number; totalMemory: number };
  health: Health;
  outbox: { topic: string; pending: number; leased: number; dead: number; oldestWaiting: Date | null }[];
}

/** Read the system status now. */
export async function systemStatus(): Promise<SystemStatus> {
  const mem = process.memoryUsage();
  const index = process.env.FORGE_WORKER_INDEX;
  const started = Number(process.env.FORGE_NODE_STARTED);
  const [health, outbox] = await Promise.all([checkHealth(), outboxDepthByTopic(systemCtx)]);
  return {
    process: {
      pid: process.pid, workerIndex: index === undefined ? null : Number(index), uptimeSeconds: Math.floor(process.uptime()),
      nodeStarted: Number.isFinite(started) && started > 0 ? new Date(started) : null, node: process.version,
      rss: mem.rss, heapUsed: mem.heapUsed, heapTotal: mem.heapTotal, external: mem.external,
    },
    host: { name: os.hostname(), cpus: os.cpus().length, loadAverage: os.loadavg(), freeMemory: os.freemem(), totalMemory: os.totalmem() },
    health,
    outbox,
  };
}
