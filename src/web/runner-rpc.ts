/**
 * The runner protocol of Gitea Actions at Gitea's paths: `/api/actions/ping.v1.PingService/Ping`
 * and `/api/actions/runner.v1.RunnerService/{Register,Declare,FetchTask,UpdateTask,UpdateLog}`,
 * served by connect-rpc (the Connect protocol in binary protobuf or JSON, and gRPC and gRPC-Web).
 * Every call but Register names its runner in `x-runner-uuid` and `x-runner-token`.
 */
import type { RequestHandler } from 'express';
import { create } from '@bufbuild/protobuf';
import { Code, ConnectError, type HandlerContext } from '@connectrpc/connect';
import { connectNodeAdapter } from '@connectrpc/connect-node';
import { settings } from '../config';
import { systemCtx } from '../db';
import { HttpError } from '../errors';
import {
  PingService, RunnerService, runnerMessage, type DeclareRequestMsg, type FetchTaskRequestMsg, type RegisterRequestMsg,
  type UpdateLogRequestMsg, type UpdateTaskRequestMsg,
} from '../api/runner-proto';
import { authenticateRunner, declare, registerRunner, type RunnerIdentity } from '../services/actions/runner.service';
import { fetchTask } from '../services/actions/dispatcher';
import { appendTaskLog, reportTaskState } from '../services/actions/task.service';

const CODES: Record<number, Code> = {
  400: Code.InvalidArgument, 401: Code.Unauthenticated, 403: Code.PermissionDenied, 404: Code.NotFound, 409: Code.AlreadyExists,
  413: Code.ResourceExhausted, 422: Code.InvalidArgument, 429: Code.ResourceExhausted, 503: Code.Unavailable,
};

/** A handler whose errors become connect errors with the code of their HTTP status. */
function rpc<I, O>(fn: (req: I, ctx: HandlerContext) => Promise<O>) {
  return async (req: I, ctx: HandlerContext): Promise<O> => {
    try {
      return await fn(req, ctx);
    } catch (err) {
      if (err instanceof HttpError) throw new ConnectError(err.message, CODES[err.status] ?? Code.Internal);
      console.error(`actions rpc ${ctx.method.name}:`, err);
      throw new ConnectError('internal error', Code.Internal);
    }
  };
}

const runnerOf = (ctx: HandlerContext) => authenticateRunner(ctx.requestHeader.get('x-runner-uuid') ?? undefined, ctx.requestHeader.get('x-runner-token') ?? undefined);

function runnerReply(r: RunnerIdentity, token = '') {
  return {
    runner: create(runnerMessage('Runner'), {
      id: BigInt(r.id), uuid: r.uuid, token, name: r.name, version: r.version, labels: r.labels, agentLabels: r.labels, ephemeral: r.ephemeral,
    }),
  };
}

/** How long a FetchTask may wait: the configured long poll, ending a second before the client's own deadline. */
function waitOf(ctx: HandlerContext): number {
  const configured = settings().actions.runnerLongPollTimeout * 1000;
  const deadline = ctx.timeoutMs();
  return Math.max(0, Math.min(configured, deadline === undefined ? configured : deadline - 1000));
}

/** The Express handler of the runner protocol, mounted at /api/actions. */
export function runnerRpcHandler(): RequestHandler {
  const handler = connectNodeAdapter({
    // why: a Task is a few KiB; gzip costs more CPU than the bytes it saves between a runner and the forge. Large messages are still compressed.
    compressMinBytes: 64 * 1024,
    routes: (router) => {
      // why: the descriptors are built at run time (src/api/runner-proto.ts), so the implementations are typed by hand.
      router.service(PingService, { ping: rpc(async (req: { data: string }) => ({ data: `Hello, ${req.data}!` })) } as never);
      router.service(RunnerService, {
        register: rpc(async (req: RegisterRequestMsg) => {
          const labels = req.labels.length ? req.labels : req.agentLabels;
          const { runner, token } = await registerRunner(systemCtx, { token: req.token, name: req.name, version: req.version, labels, ephemeral: req.ephemeral });
          return runnerReply({ id: runner.id, uuid: runner.uuid, name: runner.name, ownerId: runner.ownerId, repoId: runner.repoId, labels, ephemeral: runner.ephemeral, version: runner.version }, token);
        }),
        declare: rpc(async (req: DeclareRequestMsg, ctx) => runnerReply(await declare(systemCtx, await runnerOf(ctx), req.version, req.labels))),
        fetchTask: rpc(async (req: FetchTaskRequestMsg, ctx) => {
          const { task, version } = await fetchTask(await runnerOf(ctx), req.tasksVersion, waitOf(ctx), ctx.signal);
          return { tasksVersion: version, ...(task ? { task: create(runnerMessage('Task'), task as unknown as Record<string, unknown>) } : {}) };
        }),
        updateTask: rpc(async (req: UpdateTaskRequestMsg, ctx) => {
          const r = await reportTaskState(await runnerOf(ctx), req.state, req.outputs);
          return { state: create(runnerMessage('TaskState'), { id: req.state!.id, result: r.result }), sentOutputs: r.sentOutputs };
        }),
        updateLog: rpc(async (req: UpdateLogRequestMsg, ctx) => ({
          ackIndex: BigInt(await appendTaskLog(await runnerOf(ctx), req.taskId, req.index, req.rows, req.noMore)),
        })),
      } as never);
    },
  });
  return (req, res) => { handler(req, res); };
}
