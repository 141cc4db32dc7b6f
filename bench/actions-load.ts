/**
 * The runners of bench/actions, in a process of their own:
 * `node actions-load.js <base url> <registration token> <count> <label> <out file>`.
 * Registers `count` runners (Ping, Register, Declare, in binary protobuf), prints "ready", then each
 * polls as act_runner 0.2 does: FetchTask with a 5 s deadline, at most one call per 2 s, keeping
 * the newest tasks version and resetting it after a task. A task is finished at once (UpdateLog
 * with no_more, UpdateTask with success), and its arrival time and `inputs.seq` are kept. On
 * SIGTERM the runners stop and the arrivals are written to the out file as JSON.
 */
import fs from 'node:fs';
import http from 'node:http';
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { createClient } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import { PingService, RunnerResult, RunnerService, runnerMessage, type TaskMsg } from '../src/api/runner-proto';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Rpc = Record<string, (req: any, opts?: any) => Promise<any>>;

const FETCH_TIMEOUT_MS = 5000;
const FETCH_INTERVAL_MS = 2000;

async function main(): Promise<void> {
  const [baseUrl, regToken, countText, label, outFile] = process.argv.slice(2);
  const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
  const transport = createConnectTransport({ baseUrl: `${baseUrl.replace(/\/$/, '')}/api/actions`, httpVersion: '1.1', nodeOptions: { agent } });
  const client = createClient(RunnerService, transport) as unknown as Rpc;
  const ping = createClient(PingService, transport) as unknown as Rpc;
  await ping.ping({ data: 'bench' });
  const runners: { uuid: string; token: string }[] = [];
  for (let i = 0; i < Number(countText); i++) {
    const reg = await client.register({ name: `${label}-${i}`, token: regToken, version: 'v0.2.12', labels: [label], agentLabels: [label] });
    runners.push({ uuid: reg.runner.uuid, token: reg.runner.token });
  }
  const headers = (r: { uuid: string; token: string }) => ({ 'x-runner-uuid': r.uuid, 'x-runner-token': r.token, 'x-runner-version': 'v0.2.12' });
  for (const r of runners) await client.declare({ version: 'v0.2.12', labels: [label] }, { headers: headers(r) });
  process.stdout.write('ready\n');

  let stopping = false;
  const arrivals: { at: number; seq: number }[] = [];
  let errors = 0;
  const loop = async (r: { uuid: string; token: string }) => {
    let version = 0n;
    while (!stopping) {
      const started = Date.now();
      try {
        const res = await client.fetchTask({ tasksVersion: version }, { headers: headers(r), timeoutMs: FETCH_TIMEOUT_MS });
        if (res.tasksVersion > version) version = res.tasksVersion;
        const task = res.task as TaskMsg | undefined;
        if (task) {
          const ctx = task.context as { event?: { inputs?: { seq?: string } } };
          arrivals.push({ at: Date.now(), seq: Number(ctx.event?.inputs?.seq ?? -1) });
          const now = timestampFromDate(new Date());
          await client.updateLog({ taskId: task.id, index: 0n, rows: [{ time: now, content: 'done' }], noMore: true }, { headers: headers(r) });
          const state = create(runnerMessage('TaskState'), { id: task.id, result: RunnerResult.Success, startedAt: now, stoppedAt: now } as never);
          await client.updateTask({ state, outputs: {} }, { headers: headers(r) });
          version = 0n;
          continue;
        }
      } catch {
        if (!stopping) errors++;
      }
      const wait = FETCH_INTERVAL_MS - (Date.now() - started);
      if (wait > 0 && !stopping) await new Promise((res) => setTimeout(res, wait));
    }
  };
  const loops = runners.map(loop);
  process.once('SIGTERM', () => {
    stopping = true;
    fs.writeFileSync(outFile, JSON.stringify({ arrivals, errors }));
    process.exit(0);
  });
  await Promise.all(loops);
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
