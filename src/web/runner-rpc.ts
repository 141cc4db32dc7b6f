/**
 * The runner protocol of Gitea Actions at Gitea's paths: `/api/actions/ping.v1.PingService/Ping`
 * and `/api/actions/runner.v1.RunnerService/{Register,Declare,FetchTask,UpdateTask,UpdateLog}`.
 * Every call but Register names its runner in `x-runner-uuid` and `x-runner-token`.
 *
 * Two doors lead to the same implementations:
 * - `runnerUnaryCall`, ahead of Express, serves what act_runner sends: a Connect unary POST in
 *   binary protobuf or JSON, uncompressed. It uses connect's own serializers and error encoding,
 *   without connect-node's per-call machinery (two abort controllers whose aborts each built a
 *   DOMException with its stack, web Headers, async iterables): a thousand polling runners made
 *   that a third of the forge's idle CPU.
 * - `runnerRpcHandler`, connect-node mounted in Express, serves every other form (gRPC, gRPC-Web,
 *   compressed requests, Connect GET) and answers malformed calls as connect does.
 */
import type http from 'node:http';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type { RequestHandler } from 'express';
import { create, type DescMessage, type DescMethod, type DescService, type Message } from '@bufbuild/protobuf';
import { Code, ConnectError, type HandlerContext } from '@connectrpc/connect';
import { connectNodeAdapter } from '@connectrpc/connect-node';
import { createMethodSerializationLookup, type MethodSerializationLookup } from '@connectrpc/connect/protocol';
import {
  codeToHttpStatus, contentTypeUnaryJson, contentTypeUnaryProto, errorToJsonBytes, parseContentType, parseTimeout,
} from '@connectrpc/connect/protocol-connect';
import { settings } from '../config';
import { systemCtx } from '../db';
import { HttpError } from '../errors';
import {
  PingService, RunnerService, packTaskContext, runnerMessage, type DeclareRequestMsg, type FetchTaskRequestMsg, type RegisterRequestMsg,
  type UpdateLogRequestMsg, type UpdateTaskRequestMsg,
} from '../api/runner-proto';
import { authenticateRunner, declare, registerRunner, type RunnerIdentity } from '../services/actions/runner.service';
import { fetchTask } from '../services/actions/dispatcher';
import { appendTaskLog, reportTaskState } from '../services/actions/task.service';

const CODES: Record<number, Code> = {
  400: Code.InvalidArgument, 401: Code.Unauthenticated, 403: Code.PermissionDenied, 404: Code.NotFound, 409: Code.AlreadyExists,
  413: Code.ResourceExhausted, 422: Code.InvalidArgument, 429: Code.ResourceExhausted, 503: Code.Unavailable,
};

/** What an implementation sees of its call, whichever door it came through. */
interface RunnerCall {
  header(name: string): string | undefined;
  /** The client's deadline from now, if it set one. */
  timeoutMs: number | undefined;
  /** Aborts when the client goes away. */
  signal: AbortSignal;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Impl = (req: any, call: RunnerCall) => Promise<object>;

const runnerOf = (call: RunnerCall) => authenticateRunner(call.header('x-runner-uuid'), call.header('x-runner-token'));

function runnerReply(r: RunnerIdentity, token = '') {
  return {
    runner: create(runnerMessage('Runner'), {
      id: BigInt(r.id), uuid: r.uuid, token, name: r.name, version: r.version, labels: r.labels, agentLabels: r.labels, ephemeral: r.ephemeral,
    }),
  };
}

/** How long a FetchTask may wait: the configured long poll, ending a second before the client's own deadline. */
function waitOf(call: RunnerCall): number {
  const configured = settings().actions.runnerLongPollTimeout * 1000;
  const deadline = call.timeoutMs;
  return Math.max(0, Math.min(configured, deadline === undefined ? configured : deadline - 1000));
}

/** The implementations, by service and method local name. */
const IMPLEMENTATIONS: [DescService, Record<string, Impl>][] = [
  [PingService, { ping: async (req: { data: string }) => ({ data: `Hello, ${req.data}!` }) }],
  [RunnerService, {
    register: async (req: RegisterRequestMsg) => {
      const labels = req.labels.length ? req.labels : req.agentLabels;
      const { runner, token } = await registerRunner(systemCtx, { token: req.token, name: req.name, version: req.version, labels, ephemeral: req.ephemeral });
      return runnerReply({ id: runner.id, uuid: runner.uuid, name: runner.name, ownerId: runner.ownerId, repoId: runner.repoId, labels, ephemeral: runner.ephemeral, version: runner.version }, token);
    },
    declare: async (req: DeclareRequestMsg, call) => runnerReply(await declare(systemCtx, await runnerOf(call), req.version, req.labels)),
    fetchTask: async (req: FetchTaskRequestMsg, call) => {
      const { task, version } = await fetchTask(await runnerOf(call), req.tasksVersion, waitOf(call), call.signal);
      return { tasksVersion: version, ...(task ? { task: create(runnerMessage('Task'), task as unknown as Record<string, unknown>) } : {}) };
    },
    updateTask: async (req: UpdateTaskRequestMsg, call) => {
      const r = await reportTaskState(await runnerOf(call), req.state, req.outputs);
      return { state: create(runnerMessage('TaskState'), { id: req.state!.id, result: r.result }), sentOutputs: r.sentOutputs };
    },
    updateLog: async (req: UpdateLogRequestMsg, call) => ({
      ackIndex: BigInt(await appendTaskLog(await runnerOf(call), req.taskId, req.index, req.rows, req.noMore)),
    }),
  }],
];

// why: a Task is a few KiB; gzip costs more CPU than the bytes it saves between a runner and the forge. Large messages are still compressed.
const COMPRESS_MIN_BYTES = 64 * 1024;
// why: the largest honest call is an UpdateLog of many rows; a body beyond this is refused before it is held in memory.
const READ_MAX_BYTES = 64 * 1024 * 1024;

/** Run an implementation; its errors become connect errors with the code of their HTTP status. */
async function invoke(impl: Impl, method: string, req: unknown, call: RunnerCall): Promise<object> {
  try {
    return await impl(req, call);
  } catch (err) {
    if (err instanceof HttpError) throw new ConnectError(err.message, CODES[err.status] ?? Code.Internal);
    console.error(`actions rpc ${method}:`, err);
    throw new ConnectError('internal error', Code.Internal);
  }
}

interface UnaryMethod { method: DescMethod; impl: Impl; serialization: MethodSerializationLookup<DescMessage, DescMessage> }

// What an answer's binary encoding prepares first, by output type.
const BEFORE_BINARY: Record<string, (out: Message) => void> = {
  'runner.v1.FetchTaskResponse': (out) => { const { task } = out as unknown as { task?: Message }; if (task) packTaskContext(task); },
};

/** The methods by request path (`/api/actions/<service>/<method>`). */
const UNARY = new Map<string, UnaryMethod>(IMPLEMENTATIONS.flatMap(([service, impls]) => service.methods.map((method): [string, UnaryMethod] => [
  `/api/actions/${service.typeName}/${method.name}`,
  { method, impl: impls[method.localName], serialization: createMethodSerializationLookup(method, undefined, undefined, { readMaxBytes: READ_MAX_BYTES, writeMaxBytes: 0xffffffff }) },
])));

const gzip = promisify(zlib.gzip);
// why: a shared reason; aborting without one makes a DOMException, stack and all, per call.
const CLIENT_GONE = new ConnectError('the client went away', Code.Canceled);

/**
 * Serve a Connect unary POST of the runner protocol (binary or JSON, uncompressed) and answer
 * true; anything else answers false and is left to connect-node behind Express.
 */
export function runnerUnaryCall(req: http.IncomingMessage, res: http.ServerResponse): boolean {
  if (req.method !== 'POST') return false;
  const entry = UNARY.get(req.url ?? '');
  if (!entry) return false;
  const type = parseContentType(req.headers['content-type'] ?? null);
  const encoding = req.headers['content-encoding'];
  const version = req.headers['connect-protocol-version'];
  if (!type || type.stream || (encoding && encoding !== 'identity') || (version !== undefined && version !== '1')) return false;
  void serveUnary(entry, type.binary, req, res);
  return true;
}

async function serveUnary({ method, impl, serialization }: UnaryMethod, binary: boolean, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const gone = new AbortController();
  res.once('close', () => { if (!res.writableFinished) gone.abort(CLIENT_GONE); });
  let status = 200;
  let body: Uint8Array;
  try {
    const timeout = parseTimeout(headerOf(req, 'connect-timeout-ms') ?? null, Number.MAX_SAFE_INTEGER);
    if (timeout.error) throw timeout.error;
    const input = parseInput(serialization, binary, await readBody(req));
    const call: RunnerCall = { header: (name) => headerOf(req, name), timeoutMs: timeout.timeoutMs, signal: gone.signal };
    const out = create(method.output, await invoke(impl, method.name, input, call) as Record<string, unknown>);
    if (binary) BEFORE_BINARY[method.output.typeName]?.(out);
    body = serialization.getO(binary).serialize(out);
  } catch (err) {
    const error = ConnectError.from(err, Code.Internal);
    status = codeToHttpStatus(error.code);
    binary = false;
    body = errorToJsonBytes(error, undefined);
  }
  const headers: http.OutgoingHttpHeaders = { 'content-type': binary ? contentTypeUnaryProto : contentTypeUnaryJson };
  if (body.byteLength >= COMPRESS_MIN_BYTES && /\bgzip\b/.test(req.headers['accept-encoding'] ?? '')) {
    body = await gzip(body);
    headers['content-encoding'] = 'gzip';
  }
  headers['content-length'] = body.byteLength;
  res.writeHead(status, headers).end(body);
}

/** The request message; one that does not decode is the caller's fault (connect itself calls a binary one internal). */
function parseInput(serialization: UnaryMethod['serialization'], binary: boolean, bytes: Uint8Array): unknown {
  try {
    return serialization.getI(binary).parse(bytes);
  } catch (err) {
    const e = ConnectError.from(err);
    throw e.code === Code.ResourceExhausted ? e : new ConnectError(e.rawMessage, Code.InvalidArgument);
  }
}

/** A request header as one string (node joins repeated ones). */
function headerOf(req: http.IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v.join(', ') : v;
}

/** The request body, refused beyond READ_MAX_BYTES. */
function readBody(req: http.IncomingMessage): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > READ_MAX_BYTES) {
        req.destroy();
        reject(new ConnectError(`message size is larger than configured readMaxBytes ${READ_MAX_BYTES}`, Code.ResourceExhausted));
      } else {
        chunks.push(chunk);
      }
    });
    req.once('end', () => resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size)));
    req.once('error', reject);
    // why: a client gone before the end of its body ends the wait (after 'end' this changes nothing).
    req.once('close', () => reject(CLIENT_GONE));
  });
}

/** The Express handler of the runner protocol's other forms (connect-node), mounted at /api/actions. */
export function runnerRpcHandler(): RequestHandler {
  const callOf = (ctx: HandlerContext): RunnerCall => ({ header: (name) => ctx.requestHeader.get(name) ?? undefined, timeoutMs: ctx.timeoutMs(), signal: ctx.signal });
  const handler = connectNodeAdapter({
    compressMinBytes: COMPRESS_MIN_BYTES,
    readMaxBytes: READ_MAX_BYTES,
    routes: (router) => {
      for (const [service, impls] of IMPLEMENTATIONS) {
        const wrapped = Object.fromEntries(service.methods.map((m) => [m.localName, (req: unknown, ctx: HandlerContext) => invoke(impls[m.localName], m.name, req, callOf(ctx))]));
        // why: the descriptors are built at run time (src/api/runner-proto.ts), so the implementations are typed by hand.
        router.service(service, wrapped as never);
      }
    },
  });
  return (req, res) => { handler(req, res); };
}
