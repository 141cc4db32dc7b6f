/**
 * The access log: one line per HTTP request (ACCESS_LOG_TEMPLATE, Gitea's shape by default, then
 * the request id and the time taken unless the template placed them), and one per git operation
 * over HTTP or SSH (who fetched or pushed which repository, and how it ended). With [log] FORMAT =
 * json, each is one JSON object with the same facts. Lines are Info: LEVEL Warn or above, or
 * ENABLE_ACCESS_LOG = false, turns them off, and then nothing here runs for a request.
 *
 * why the cost stays small: the template is compiled once into a list of small functions, a line
 * is one string concatenation, the time text is kept per second, and the body size is counted by
 * the response class itself rather than by a wrapper per request.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { parseAccessLogTemplate, settings, type AccessField } from '../config';
import { accessLogOn, jsonLines, writeAccessLine } from './index';
import { timeFormatter } from './time';

/** Who made a request, as the access log names them (the forge's Principal, seen structurally). */
export interface LoggedPrincipal {
  user?: { name: string } | null;
  /** A deploy key; id 0 while it is not known yet (an SSH command refused before its repository was found). */
  deployKey?: { id: number } | null;
}

/** What the access log reads of a request; Express and the forge's middleware set these fields. */
export interface LoggedRequest extends IncomingMessage {
  requestId?: string;
  principal?: LoggedPrincipal;
  ip?: string;
  originalUrl?: string;
}

/** A response the access log follows. */
export interface LoggedResponse extends ServerResponse<LoggedRequest> {
  forgeLogStart: number;
  forgeLogT0: number;
  forgeBodyBytes: number;
  /** The statements the request sent to the database, counted by the web server (absent elsewhere). */
  forgeQueries?: { n: number };
}

/** The name an access line gives a caller: the user, a deploy key, or `-`. */
export function identityOf(p: LoggedPrincipal | null | undefined): string {
  if (p?.user) return p.user.name;
  if (p?.deployKey) return p.deployKey.id ? `deploy-key/${p.deployKey.id}` : 'deploy-key';
  return '-';
}

/* eslint-disable no-control-regex -- control characters are exactly what must not reach a line */
const UNSAFE = /[\x00-\x1f\x7f"\\]/;
const UNSAFE_ALL = /[\x00-\x1f\x7f"\\]/g;
/* eslint-enable no-control-regex */

/** A value as a field of a text line: quotes, backslashes and control characters as \xHH, so no value can end a field or a line. */
function esc(s: string): string {
  return UNSAFE.test(s) ? s.replace(UNSAFE_ALL, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`) : s;
}

const SECRET_QUERY = /([?&](?:token|access_token|sig)=)[^&#]*/g;

/**
 * The request target without the credentials a query may carry: an API token (`token`,
 * `access_token`) or an artifact download's signature (`sig`). why: Gitea writes them into its
 * access log; a log is read by more people and programs than should hold a token.
 */
function redactedUri(u: string): string {
  return u.includes('token=') || u.includes('sig=') ? u.replace(SECRET_QUERY, '$1REDACTED') : u;
}

/** An IPv4 client seen through an IPv6 socket, written as IPv4 (as Go prints it). */
function plainIp(ip: string | undefined): string {
  if (!ip) return '-';
  return ip.startsWith('::ffff:') && ip.includes('.') ? ip.slice(7) : ip;
}

/** The facts of one finished request (what a line is built from). */
export interface Facts { req: LoggedRequest; res: LoggedResponse; start: number; ms: number }

const remoteHost = (f: Facts): string => plainIp(f.req.ip ?? f.req.socket.remoteAddress);
const FIELDS: Record<AccessField, (f: Facts) => string> = {
  remoteHost: (f) => esc(remoteHost(f)),
  remoteAddr: (f) => {
    const ip = plainIp(f.req.socket.remoteAddress);
    return esc(`${ip.includes(':') ? `[${ip}]` : ip}:${f.req.socket.remotePort ?? 0}`);
  },
  identity: (f) => esc(identityOf(f.req.principal)),
  method: (f) => esc(f.req.method ?? ''),
  requestUri: (f) => esc(redactedUri(f.req.originalUrl ?? f.req.url ?? '')),
  path: (f) => {
    const u = f.req.originalUrl ?? f.req.url ?? '';
    const q = u.indexOf('?');
    return esc(q < 0 ? u : u.slice(0, q));
  },
  proto: (f) => `HTTP/${f.req.httpVersion}`,
  host: (f) => esc(f.req.headers.host ?? ''),
  referer: (f) => esc(f.req.headers.referer ?? ''),
  userAgent: (f) => esc(f.req.headers['user-agent'] ?? ''),
  status: (f) => String(f.res.statusCode),
  size: (f) => String(f.res.forgeBodyBytes),
  requestId: (f) => esc(f.req.requestId ?? '-'),
  durationMs: (f) => f.ms.toFixed(1),
};

/** The duration as lines print it: milliseconds with one decimal. */
const msText = (ms: number): string => ms.toFixed(1);

/** Compile ACCESS_LOG_TEMPLATE (checked when the settings were read) into the text line of a request. */
export function compileAccessTemplate(template: string): (f: Facts) => string {
  const pieces = parseAccessLogTemplate(template).map((p): (f: Facts) => string => {
    if ('text' in p) return () => p.text;
    if ('time' in p) {
      const fmt = timeFormatter(p.time);
      return (f) => fmt(f.start);
    }
    return FIELDS[p.field];
  });
  const fields = new Set(parseAccessLogTemplate(template).flatMap((p) => ('field' in p ? [p.field] : [])));
  // why: every access line carries the request id (the one a 500 answer names) and the time taken; a template that places them itself gets neither appended.
  if (!fields.has('requestId')) pieces.push((f) => ` "${esc(f.req.requestId ?? '-')}"`);
  if (!fields.has('durationMs')) pieces.push((f) => ` ${msText(f.ms)}ms`);
  return (f) => {
    let line = '';
    for (const piece of pieces) line += piece(f);
    return `${line}\n`;
  };
}

/** The JSON line of a request: the same facts as the default template, and the request id and duration. */
function jsonLine(f: Facts): string {
  const { req, res } = f;
  const user = identityOf(req.principal);
  return `${JSON.stringify({
    time: new Date(f.start).toISOString(), level: 'info', type: 'access', pid: process.pid,
    remote_addr: remoteHost(f), user: user === '-' ? null : user, method: req.method, uri: redactedUri(req.originalUrl ?? req.url ?? ''),
    proto: `HTTP/${req.httpVersion}`, status: res.statusCode, size: res.forgeBodyBytes,
    referrer: req.headers.referer ?? '', user_agent: req.headers['user-agent'] ?? '',
    request_id: req.requestId ?? null, duration_ms: Number(msText(f.ms)),
    ...(res.forgeQueries ? { queries: res.forgeQueries.n } : {}),
  })}\n`;
}

type Chunk = string | Uint8Array | undefined | null | ((err?: Error | null) => void);

function chunkBytes(chunk: Chunk, encoding: unknown): number {
  if (typeof chunk === 'string') return Buffer.byteLength(chunk, typeof encoding === 'string' ? encoding as BufferEncoding : 'utf8');
  return chunk instanceof Uint8Array ? chunk.length : 0;
}

/** Make the responses of `proto` count the body bytes they write (the access line's size). */
function countBodyBytes(proto: ServerResponse): void {
  const r = proto as unknown as Record<'write' | 'end', (this: LoggedResponse, chunk: Chunk, encoding?: unknown, cb?: unknown) => unknown>;
  const { write, end } = r;
  r.write = function (this: LoggedResponse, chunk: Chunk, encoding?: unknown, cb?: unknown) {
    this.forgeBodyBytes += chunkBytes(chunk, encoding);
    return write.call(this, chunk, encoding, cb);
  };
  r.end = function (this: LoggedResponse, chunk: Chunk, encoding?: unknown, cb?: unknown) {
    this.forgeBodyBytes += chunkBytes(chunk, encoding);
    return end.call(this, chunk, encoding, cb);
  };
}

/**
 * The per-request hook of the web server, or null when access lines are off. `responsePrototype`
 * is the prototype of the server's responses (every response of this server counts its bytes).
 */
export function accessLogHook(responsePrototype: ServerResponse): ((req: IncomingMessage, res: ServerResponse) => void) | null {
  if (!accessLogOn()) return null;
  countBodyBytes(responsePrototype);
  const line = jsonLines() ? jsonLine : compileAccessTemplate(settings().log.accessLogTemplate);
  function onClose(this: LoggedResponse): void {
    writeAccessLine(line({ req: this.req, res: this, start: this.forgeLogStart, ms: performance.now() - this.forgeLogT0 }));
  }
  return (_req, res) => {
    const r = res as LoggedResponse;
    r.forgeLogStart = Date.now();
    r.forgeLogT0 = performance.now();
    r.forgeBodyBytes = 0;
    // why: 'close' comes once for every response, finished or cut off by the client.
    r.on('close', onClose);
  };
}

/** How a git operation ended. */
export type GitOutcome =
  | { exitCode: number | null; signal?: string | null; aborted?: boolean }
  | { refused: string }
  | { error: string };

/** One git operation over HTTP or SSH, for its access line. */
export interface GitOperation {
  transport: 'http' | 'ssh';
  /** What the client ran: git-upload-pack, git-receive-pack, git-upload-archive, git-lfs-authenticate, or shell (the greeting). */
  command: string;
  /** `owner/name` (`owner/name.wiki` for a wiki), or null when none was named. */
  repo: string | null;
  /** An LFS operation (upload, download). */
  operation?: string;
  principal: LoggedPrincipal | null;
  remote: string | undefined;
  requestId: string;
  /** Date.now() and performance.now() when it started. */
  start: number;
  t0: number;
  outcome: GitOutcome;
}

const gitTime = timeFormatter('[02/Jan/2006:15:04:05 -0700]');

/** Write the access line of a git operation (nothing when access lines are off). */
export function logGitOperation(op: GitOperation): void {
  if (!accessLogOn()) return;
  const ms = performance.now() - op.t0;
  const user = identityOf(op.principal);
  const remote = plainIp(op.remote);
  const o = op.outcome;
  if (jsonLines()) {
    writeAccessLine(`${JSON.stringify({
      time: new Date(op.start).toISOString(), level: 'info', type: 'git', pid: process.pid,
      remote_addr: remote, user: user === '-' ? null : user, transport: op.transport, command: op.command, repo: op.repo,
      ...(op.operation ? { operation: op.operation } : {}),
      exit_code: 'exitCode' in o ? o.exitCode : null, signal: 'exitCode' in o ? o.signal ?? null : null,
      aborted: 'exitCode' in o ? !!o.aborted : false, refused: 'refused' in o ? o.refused : null, error: 'error' in o ? o.error : null,
      request_id: op.requestId, duration_ms: Number(msText(ms)),
    })}\n`);
    return;
  }
  let result: string;
  if ('refused' in o) result = `refused="${esc(o.refused)}"`;
  else if ('error' in o) result = `error="${esc(o.error)}"`;
  else if (o.aborted) result = 'aborted';
  else result = o.exitCode !== null ? `exit=${o.exitCode}` : `signal=${o.signal ?? '?'}`;
  const what = `${op.transport.toUpperCase()} ${op.command}${op.repo ? ` ${op.repo}` : ''}${op.operation ? ` ${op.operation}` : ''}`;
  writeAccessLine(`${esc(remote)} - ${esc(user)} ${gitTime(op.start)} "${esc(what)}" ${result} "${esc(op.requestId)}" ${msText(ms)}ms\n`);
}
