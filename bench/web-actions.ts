/**
 * bench/web's Actions part (`npm run bench -- web actions`, or BENCH_WEB=actions): a run's page
 * whose job wrote a 50,000-line log, reported through the runner protocol by the conformance
 * runner: the page's first view while the job runs (the log a plain file) and once it failed (the
 * log compressed; the failed step open with its last lines), and reading the whole step through the
 * live fetch in pieces; then the live view's fetch (`POST .../jobs/{job}` with a cursor at the end)
 * p99 while 100 jobs report through the runner protocol at once (each: UpdateLog with 10 rows and
 * UpdateTask about once a second, as act_runner's reporter). Targets: first view under 300 ms,
 * fetch p99 under 50 ms.
 */
import os from 'node:os';
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { sessionRequest, type TimedAnswer } from './http';
import { median, percentile } from './util';
import { ConformanceRunner } from '../test/helpers/actions-runner';
import { RunnerResult, runnerMessage } from '../src/api/runner-proto';

const LOG_LINES = Number(process.env.BENCH_ACTIONS_LOG_LINES ?? '50000');
const JOBS = Number(process.env.BENCH_ACTIONS_JOBS ?? '100');
const FETCHES = Number(process.env.BENCH_ACTIONS_FETCHES ?? '300');
const FIRST_MS = 300;
const FETCH_P99_MS = 50;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

interface Ctx { url: string; api: string; token: string; cookie: string; say: (m: string) => void }

/** One request with the session: milliseconds, status, body. */
function request(c: Ctx, method: string, path: string, body?: string, headers: Record<string, string> = {}): Promise<TimedAnswer> {
  return sessionRequest(`${c.url}${path}`, c.cookie, method, body, headers);
}

async function api(c: Ctx, method: string, p: string, body?: unknown): Promise<Any> {
  const res = await fetch(`${c.api}${p}`, { method, headers: { Authorization: `token ${c.token}`, 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  if (res.status >= 300) throw new Error(`${method} ${p}: ${res.status} ${await res.text()}`);
  return res.json().catch(() => ({}));
}

const row = (content: string) => ({ time: timestampFromDate(new Date()), content });
const state = (task: Any, steps: Any[], result = RunnerResult.Unspecified) => create(runnerMessage('TaskState'), {
  id: task.id, result, startedAt: timestampFromDate(new Date()), ...(result ? { stoppedAt: timestampFromDate(new Date()) } : {}), steps,
} as Any);

/** A live fetch of the run page's job: the state and the lines of step 1 from `cursor`. */
function liveFetch(c: Ctx, page: string, csrf: string, cursor: number) {
  return request(c, 'POST', page, JSON.stringify({ logCursors: [{ step: 1, cursor }] }), { 'Content-Type': 'application/json', 'X-Csrf-Token': csrf, Origin: new URL(c.url).origin });
}

/** Run the Actions part; its table rows are returned for bench/web to print. */
export async function actionsPart(url: string, apiUrl: string, token: string, cookie: string, say: (m: string) => void): Promise<string[]> {
  const c: Ctx = { url, api: apiUrl, token, cookie, say };
  await api(c, 'POST', '/user/repos', { name: 'ci', auto_init: true });
  const wf = 'on: workflow_dispatch\njobs:\n  work:\n    runs-on: bench\n    steps:\n      - name: make\n        run: make\n';
  await api(c, 'POST', '/repos/alice/ci/contents/.gitea/workflows/work.yml', { content: Buffer.from(wf).toString('base64'), message: 'workflow' });
  // why: a dispatch cancels the workflow's unfinished runs of the same ref (as Gitea), so the many jobs are one run's matrix.
  const many = `on: workflow_dispatch\njobs:\n  job:\n    runs-on: bench\n    strategy:\n      matrix:\n        n: [${Array.from({ length: JOBS }, (_, i) => i + 1).join(', ')}]\n    steps:\n      - name: make\n        run: make\n`;
  await api(c, 'POST', '/repos/alice/ci/contents/.gitea/workflows/many.yml', { content: Buffer.from(many).toString('base64'), message: 'many jobs' });
  const reg = await api(c, 'POST', '/repos/alice/ci/actions/runners/registration-token');
  const runners = await Promise.all(Array.from({ length: JOBS }, (_, i) => ConformanceRunner.register(url, reg.token, { name: `bench-${i}`, labels: ['bench'] })));
  const dispatch = (file = 'work.yml') => api(c, 'POST', `/repos/alice/ci/actions/workflows/${file}/dispatches`, { ref: 'main' });
  const rows: string[] = [];
  // why: a measure without a target of its own (reading a whole step) is printed for information.
  const out = (name: string, ms: number, target: number | null, extra = '') => {
    rows.push(`| ${name} | ${ms.toFixed(1)} | ${target ?? '-'} | ${target === null ? '-' : ms < target ? 'met' : 'NOT met'} | ${extra || '-'} |`);
    say(`${name}: ${ms.toFixed(1)} ms`);
  };

  // The big log: 50,000 rows in UpdateLog calls of 5,000, as a runner that reports a chatty step.
  say(`writing a ${LOG_LINES}-line log through the runner protocol ...`);
  await dispatch();
  const big = runners[0];
  let task: Any;
  while (!(task = await big.fetch(3000)));
  await big.client.updateTask({ state: state(task, [{ id: 0n, logIndex: 0n, logLength: 0n, startedAt: timestampFromDate(new Date()) }]), outputs: {} }, big.call());
  for (let at = 0; at < LOG_LINES; at += 5000) {
    const n = Math.min(5000, LOG_LINES - at);
    const rowsOut = Array.from({ length: n }, (_, k) => row(`\x1b[3${(at + k) % 8}mline ${at + k + 1}\x1b[0m of the build, with some text to make it the length of a real log line`));
    await big.client.updateLog({ taskId: task.id, index: BigInt(at), rows: rowsOut, noMore: false }, big.call(30000));
  }
  const page = 'alice/ci/actions/runs/1/jobs/0';
  const running = await request(c, 'GET', page);
  if (running.status !== 200) throw new Error(`run page: ${running.status}`);
  out(`run page, first view, ${LOG_LINES}-line log still running`, running.ms, FIRST_MS, `${(running.text.length / 1024).toFixed(0)} KiB`);
  const csrf = /data-csrf="([^"]+)"/.exec(running.text)![1];
  await big.client.updateLog({ taskId: task.id, index: BigInt(LOG_LINES), rows: [row('step failed')], noMore: true }, big.call(30000));
  await big.client.updateTask({
    state: state(task, [{ id: 0n, result: RunnerResult.Failure, logIndex: 0n, logLength: BigInt(LOG_LINES + 1), startedAt: timestampFromDate(new Date()), stoppedAt: timestampFromDate(new Date()) }], RunnerResult.Failure),
    outputs: {},
  }, big.call());
  const failed = await request(c, 'GET', page);
  out(`run page, first view, ${LOG_LINES}-line log done (failed step open)`, failed.ms, FIRST_MS, `${(failed.text.length / 1024).toFixed(0)} KiB`);
  const warm: number[] = [];
  for (let i = 0; i < 20; i++) warm.push((await request(c, 'GET', page)).ms);
  out('run page, same, warm p50 of 20', median(warm), null);
  let cursor = 0;
  let pieces = 0;
  const t0 = performance.now();
  for (;;) {
    const res = await liveFetch(c, page, csrf, cursor);
    const got = (JSON.parse(res.text) as Any).logs[0].lines.length as number;
    if (!got) break;
    cursor += got;
    pieces++;
  }
  out(`whole ${cursor}-line step through the live fetch (${pieces} pieces)`, performance.now() - t0, null);

  // 100 jobs reporting at once; the live view of one of them fetched the whole time.
  say(`${JOBS} jobs reporting through the runner protocol ...`);
  await dispatch('many.yml');
  const tasks: Any[] = [];
  for (const r of runners) {
    let t: Any;
    while (!(t = await r.fetch(3000)));
    tasks.push(t);
  }
  let stop = false;
  const reporters = runners.map(async (r, k) => {
    const t = tasks[k];
    let sent = 0;
    await r.client.updateTask({ state: state(t, [{ id: 0n, logIndex: 0n, logLength: 0n, startedAt: timestampFromDate(new Date()) }]), outputs: {} }, r.call());
    // why: spread the reporters over the second, as runners that started at different times are.
    await new Promise((res) => setTimeout(res, (k * 1000) / JOBS));
    while (!stop) {
      const next = Array.from({ length: 10 }, (_, i) => row(`job ${k} line ${sent + i + 1}`));
      await r.client.updateLog({ taskId: t.id, index: BigInt(sent), rows: next, noMore: false }, r.call(30000));
      sent += next.length;
      await r.client.updateTask({ state: state(t, [{ id: 0n, logIndex: 0n, logLength: BigInt(sent), startedAt: timestampFromDate(new Date()) }]), outputs: {} }, r.call(30000));
      await new Promise((res) => setTimeout(res, 1000));
    }
    await r.client.updateLog({ taskId: t.id, index: BigInt(sent), rows: [row('done')], noMore: true }, r.call(30000));
    await r.client.updateTask({ state: state(t, [{ id: 0n, result: RunnerResult.Success, logIndex: 0n, logLength: BigInt(sent + 1) }], RunnerResult.Success), outputs: {} }, r.call(30000));
  });
  const watched = 'alice/ci/actions/runs/2/jobs/0';
  const livePage = await request(c, 'GET', watched);
  const liveCsrf = /data-csrf="([^"]+)"/.exec(livePage.text)![1];
  await new Promise((res) => setTimeout(res, 2000));
  const times: number[] = [];
  let liveCursor = 0;
  let lines = 0;
  for (let i = 0; i < FETCHES; i++) {
    const res = await liveFetch(c, watched, liveCsrf, liveCursor);
    if (res.status !== 200) throw new Error(`live fetch: ${res.status} ${res.text.slice(0, 200)}`);
    const got = (JSON.parse(res.text) as Any).logs[0]?.lines.length ?? 0;
    liveCursor += got;
    lines += got;
    times.push(res.ms);
    // why: the page asks about once a second; a faster pace here gathers enough samples in the time the jobs report.
    await new Promise((res) => setTimeout(res, 50));
  }
  stop = true;
  await Promise.all(reporters);
  const spread = `p50 ${median(times).toFixed(1)}, p90 ${percentile(times, 90).toFixed(1)}, p95 ${percentile(times, 95).toFixed(1)} ms`;
  out(`live fetch p99 while ${JOBS} jobs report (${FETCHES} fetches; ${spread}; ${lines} new lines seen)`, percentile(times, 99), FETCH_P99_MS, `load ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} cores`);
  return rows;
}
