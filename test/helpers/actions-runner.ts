/**
 * A conformance runner for the Actions runner protocol, standing in for act_runner (which cannot be
 * built here). It speaks connect-rpc with @connectrpc/connect-node in binary protobuf (or JSON),
 * follows act_runner's sequence (Ping, Register, Declare, FetchTask with its tasks version reset
 * after each task, UpdateLog then UpdateTask while a task runs, a last UpdateLog with no_more and a
 * last UpdateTask with the result and outputs), and runs `run:` steps with bash on the host.
 * Expressions: `${{ secrets.X }}`, `vars`, `matrix`, `inputs`, `github.*`, `env`, `needs.J.outputs.K`,
 * `needs.J.result`, `steps.S.outputs.K`; job `if:` with always(), success(), failure(), cancelled().
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { Code, ConnectError, createClient } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import { PingService, RunnerResult, RunnerService, runnerMessage, type TaskMsg } from '../../src/api/runner-proto';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;
/** A client of a service whose descriptor is built at run time: its methods, loosely typed. */
export type RpcClient = Record<string, (req: Any, opts?: Any) => Promise<Any>>;

/** The connect error code a runner call fails with, or 'ok' when it succeeds. */
export async function codeOf(p: Promise<unknown>): Promise<Code | 'ok'> {
  try {
    await p;
    return 'ok';
  } catch (err) {
    return ConnectError.from(err).code;
  }
}

/** A step's outcome as the runner reports it. */
interface StepReport { id: number; result: RunnerResult; startedAt?: Date; stoppedAt?: Date; logIndex: number; logLength: number }

/** What running a task came to. */
export interface TaskOutcome { taskId: number; result: RunnerResult; outputs: Record<string, string>; log: string[] }

const RESULT_WORD: Record<number, string> = { 1: 'success', 2: 'failure', 3: 'cancelled', 4: 'skipped' };

/** A registered conformance runner. */
export class ConformanceRunner {
  version = 0n;
  /** Rows each task sent, by task id (for assertions). */
  readonly logs = new Map<number, string[]>();
  private constructor(
    /** The forge's address, as act_runner's `Address()`: where its jobs find the artifact service. */
    readonly address: string,
    readonly client: RpcClient,
    readonly id: number,
    readonly uuid: string,
    readonly token: string,
  ) {}

  /** The runner service client of a forge at `baseUrl`. */
  static client(baseUrl: string, json = false): { runner: RpcClient; ping: RpcClient } {
    const transport = createConnectTransport({ baseUrl: `${baseUrl.replace(/\/$/, '')}/api/actions`, httpVersion: '1.1', useBinaryFormat: !json });
    return { runner: createClient(RunnerService, transport) as unknown as RpcClient, ping: createClient(PingService, transport) as unknown as RpcClient };
  }

  /** Ping, Register with a registration token, then Declare (as act_runner's daemon does at start). */
  static async register(baseUrl: string, regToken: string, opts: { name: string; labels: string[]; json?: boolean; ephemeral?: boolean; version?: string }): Promise<ConformanceRunner> {
    const { runner: client, ping } = ConformanceRunner.client(baseUrl, opts.json);
    const pong = await ping.ping({ data: opts.name });
    if (pong.data !== `Hello, ${opts.name}!`) throw new Error(`unexpected ping answer ${pong.data}`);
    const reg = await client.register({ name: opts.name, token: regToken, version: opts.version ?? 'v0.2.12', labels: opts.labels, agentLabels: opts.labels, ephemeral: !!opts.ephemeral });
    const r = new ConformanceRunner(baseUrl.replace(/\/$/, ''), client, Number(reg.runner.id), reg.runner.uuid, reg.runner.token);
    await client.declare({ version: opts.version ?? 'v0.2.12', labels: opts.labels }, r.call());
    return r;
  }

  /** A runner for an existing registration (or a made-up one, to see it refused). */
  static attach(baseUrl: string, uuid: string, token: string, json = false): ConformanceRunner {
    return new ConformanceRunner(baseUrl.replace(/\/$/, ''), ConformanceRunner.client(baseUrl, json).runner, 0, uuid, token);
  }

  /** Call options with the runner's headers and a deadline (act_runner's fetch_timeout is 5 s). */
  call(timeoutMs = 5000) {
    return { headers: { 'x-runner-uuid': this.uuid, 'x-runner-token': this.token, 'x-runner-version': 'v0.2.12' }, timeoutMs };
  }

  /** One FetchTask; keeps a newer tasks version, as act_runner does. */
  async fetch(timeoutMs = 5000): Promise<TaskMsg | undefined> {
    const res = await this.client.fetchTask({ tasksVersion: this.version }, this.call(timeoutMs));
    if (res.tasksVersion > this.version) this.version = res.tasksVersion;
    return res.task as TaskMsg | undefined;
  }

  /**
   * Fetch and run tasks until a FetchTask (with a current version, so a long poll) brings none. A
   * FetchTask that passes its deadline is sent again, as act_runner does (a busy server may take
   * longer than the poll to hand a job out), for up to a minute.
   */
  async drain(pollMs = 1500): Promise<TaskOutcome[]> {
    const done: TaskOutcome[] = [];
    const giveUp = Date.now() + 60_000;
    for (;;) {
      const sent = this.version;
      let task: TaskMsg | undefined;
      try {
        task = await this.fetch(pollMs + 1000);
      } catch (err) {
        if (err instanceof ConnectError && err.code === Code.DeadlineExceeded && Date.now() < giveUp) continue;
        throw err;
      }
      if (!task) {
        // a stale version is answered at once with the latest: poll again, now waiting
        if (sent !== this.version) continue;
        return done;
      }
      done.push(await this.execute(task));
      this.version = 0n; // act_runner: look at the database again after each task
    }
  }

  /** Run one task and report it to the end. */
  async execute(task: TaskMsg): Promise<TaskOutcome> {
    const taskId = Number(task.id);
    const doc = YAML.parse(Buffer.from(task.workflowPayload).toString('utf8')) as Any;
    const [jobKey] = Object.keys(doc.jobs);
    if (Object.keys(doc.jobs).length !== 1) throw new Error('a task must carry exactly one job');
    const job = doc.jobs[jobKey];
    const ctx = task.context as Any;
    const matrix = Object.fromEntries(Object.entries(job.strategy?.matrix ?? {}).map(([k, v]) => [k, (v as unknown[])[0]]));
    const needs = Object.fromEntries(Object.entries(task.needs).map(([k, n]) => [k, { outputs: n.outputs, result: RESULT_WORD[n.result] ?? '' }]));
    const steps: Record<string, { outputs: Record<string, string> }> = {};
    const env: Record<string, string> = {};
    const scope = { secrets: task.secrets, vars: task.vars, matrix, needs, steps, env, github: ctx, inputs: ctx.event?.inputs ?? {} };
    const rows: string[] = [];
    const reports: StepReport[] = [];
    let ack = 0;
    const secrets = Object.values(task.secrets).filter((s) => s.length > 2);
    const log = (line: string) => rows.push(secrets.reduce((l, s) => l.split(s).join('***'), line));
    const started = new Date();
    let cancelled = false;

    const send = async (result = RunnerResult.Unspecified, outputs: Record<string, string> = {}, noMore = false): Promise<void> => {
      const upd = await this.client.updateLog({ taskId: task.id, index: BigInt(ack), rows: rows.slice(ack).map((content) => ({ time: timestampFromDate(new Date()), content })), noMore }, this.call());
      ack = Number(upd.ackIndex);
      const state = create(runnerMessage('TaskState'), {
        id: task.id, result, startedAt: timestampFromDate(started), ...(result ? { stoppedAt: timestampFromDate(new Date()) } : {}),
        steps: reports.map((s) => ({
          id: BigInt(s.id), result: s.result, logIndex: BigInt(s.logIndex), logLength: BigInt(s.logLength),
          ...(s.startedAt ? { startedAt: timestampFromDate(s.startedAt) } : {}), ...(s.stoppedAt ? { stoppedAt: timestampFromDate(s.stoppedAt) } : {}),
        })),
      } as Any);
      const res = await this.client.updateTask({ state, outputs }, this.call());
      if (res.state?.result === RunnerResult.Cancelled) cancelled = true;
    };

    log(`runner ${this.uuid} runs job ${jobKey}`);
    let result = RunnerResult.Success;
    const condition = job.if === undefined ? 'success()' : String(job.if);
    if (!evalCondition(condition, Object.values(needs).map((n) => n.result), false, scope)) {
      result = RunnerResult.Skipped;
      log('skipped: the job condition is false');
    } else {
      const workdir = fs.mkdtempSync(path.join(os.tmpdir(), 'forge-runner-'));
      Object.assign(env, interpolateAll(doc.env ?? {}, scope), interpolateAll(job.env ?? {}, scope));
      for (const [i, step] of (job.steps ?? []).entries()) {
        const rep: StepReport = { id: i, result: RunnerResult.Unspecified, logIndex: rows.length, logLength: 0, startedAt: new Date() };
        reports.push(rep);
        if (result !== RunnerResult.Success || cancelled) {
          rep.result = cancelled ? RunnerResult.Cancelled : RunnerResult.Skipped;
          rep.stoppedAt = new Date();
          continue;
        }
        if (step.uses) {
          log(`uses ${step.uses}: not run by the conformance runner`);
        } else {
          const outFile = path.join(workdir, `output-${i}`);
          fs.writeFileSync(outFile, '');
          const stepEnv = {
            ...env, ...interpolateAll(step.env ?? {}, scope), ...this.runnerEnv(ctx), GITHUB_OUTPUT: outFile, GITHUB_WORKSPACE: workdir,
            GITHUB_SHA: ctx.sha, GITHUB_REF: ctx.ref, GITHUB_RUN_ID: ctx.run_id, GITHUB_RUN_NUMBER: ctx.run_number, CI: 'true',
          };
          const code = await this.runScript(interpolate(String(step.run ?? ''), scope), stepEnv, workdir, log, () => send(), () => cancelled);
          if (step.id) steps[step.id] = { outputs: parseOutputs(fs.readFileSync(outFile, 'utf8')) };
          if (cancelled) result = RunnerResult.Cancelled;
          else if (code !== 0) {
            log(`step ${i} failed with exit code ${code}`);
            result = RunnerResult.Failure;
          }
        }
        rep.result = cancelled ? RunnerResult.Cancelled : result === RunnerResult.Success ? RunnerResult.Success : RunnerResult.Failure;
        rep.stoppedAt = new Date();
        rep.logLength = rows.length - rep.logIndex;
        await send();
      }
      fs.rmSync(workdir, { recursive: true, force: true });
    }
    if (cancelled) result = RunnerResult.Cancelled;
    const outputs = result === RunnerResult.Success ? interpolateAll(job.outputs ?? {}, scope) : {};
    log(`job ${RESULT_WORD[result]}`);
    await send(result, outputs, true);
    this.logs.set(taskId, rows);
    return { taskId, result, outputs, log: rows };
  }

  /** What act_runner puts in every step's environment: the server, and the artifact service with the task's runtime token. */
  private runnerEnv(ctx: Any): Record<string, string> {
    return {
      GITHUB_SERVER_URL: this.address, GITEA_ACTIONS: 'true', ACTIONS_RUNTIME_URL: `${this.address}/api/actions_pipeline/`, ACTIONS_RESULTS_URL: this.address,
      ACTIONS_RUNTIME_TOKEN: String(ctx.gitea_runtime_token || ctx.token),
    };
  }

  /** Run a script with bash, logging each line; reports every 300 ms meanwhile (and stops when told the task is cancelled). */
  private runScript(script: string, env: Record<string, string>, cwd: string, log: (l: string) => void, report: () => Promise<void>, isCancelled: () => boolean): Promise<number> {
    return new Promise((resolve) => {
      const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], { cwd, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: cwd, ...env } });
      let pending = '';
      const take = (chunk: Buffer) => {
        pending += chunk.toString('utf8');
        const lines = pending.split('\n');
        pending = lines.pop()!;
        lines.forEach(log);
      };
      child.stdout.on('data', take);
      child.stderr.on('data', take);
      const beat = setInterval(() => {
        report().then(() => { if (isCancelled()) child.kill('SIGKILL'); }, () => undefined);
      }, 300);
      child.on('close', (code) => {
        clearInterval(beat);
        if (pending) log(pending);
        resolve(code ?? 1);
      });
    });
  }
}

function parseOutputs(text: string): Record<string, string> {
  return Object.fromEntries(text.split('\n').filter((l) => l.includes('=')).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
}

/** The value of a dotted path such as `needs.build.outputs.x`. */
function lookup(expr: string, scope: Any): unknown {
  return expr.trim().split('.').reduce((v: Any, k) => (v === undefined || v === null ? undefined : v[k]), scope);
}

function interpolate(text: string, scope: Any): string {
  return text.replace(/\$\{\{\s*([^}]+?)\s*\}\}/g, (_m, e: string) => {
    const v = lookup(e, scope);
    return v === undefined || v === null ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v);
  });
}

function interpolateAll(map: Record<string, unknown>, scope: Any): Record<string, string> {
  return Object.fromEntries(Object.entries(map).map(([k, v]) => [k, interpolate(String(v), scope)]));
}

/** A job condition: the status functions, `!`, `&&`, `||`, and `a == 'b'` comparisons of looked-up values. */
function evalCondition(cond: string, needResults: string[], cancelled: boolean, scope: Any): boolean {
  const text = cond.replace(/^\s*\$\{\{\s*|\s*\}\}\s*$/g, '').trim();
  if (text.includes('||')) return text.split('||').some((p) => evalCondition(p, needResults, cancelled, scope));
  if (text.includes('&&')) return text.split('&&').every((p) => evalCondition(p, needResults, cancelled, scope));
  if (text.startsWith('!')) return !evalCondition(text.slice(1), needResults, cancelled, scope);
  if (text === 'always()') return true;
  if (text === 'cancelled()') return cancelled;
  if (text === 'failure()') return needResults.includes('failure');
  if (text === 'success()') return needResults.every((r) => r === 'success');
  const eq = /^(.+?)\s*(==|!=)\s*'([^']*)'$/.exec(text);
  if (eq) return (String(lookup(eq[1], scope)) === eq[3]) === (eq[2] === '==');
  return !!lookup(text, scope) && needResults.every((r) => r === 'success');
}
