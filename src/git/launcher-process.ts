/**
 * The git launcher: a small helper process that starts git for a server process and hands the
 * child's stdin, stdout and stderr pipes back over the IPC channel, so git's data flows between git
 * and the server directly. It only uses Node's built-ins, to stay small.
 * why: starting a child forks the calling process; a server process holding hundreds of megabytes
 * blocks its event loop for several milliseconds per fork (and stalls its other threads), while
 * this process forks in about one.
 *
 * Messages in: {op:'spawn', id, args, cwd, env, nice, stdoutFile} and {op:'kill', id, signal}.
 * Messages out: {op:'fd', id, fd, pid} with the pipe as handle (fd 0, 1, 2 in order; no fd 1
 * when stdout goes to a file),
 * {op:'exit', id, code, signal} and {op:'error', id, message, code}.
 */
import fs from 'node:fs';
import os from 'node:os';
import { spawn, type ChildProcess } from 'node:child_process';
import type { Socket } from 'node:net';

/** A request from the server. */
export type LauncherRequest =
  | { op: 'spawn'; id: number; args: string[]; cwd: string; env: Record<string, string>; nice: number; stdoutFile?: string }
  | { op: 'kill'; id: number; signal: NodeJS.Signals };

/** A report to the server. */
export type LauncherReport =
  | { op: 'fd'; id: number; fd: 0 | 1 | 2; pid: number }
  | { op: 'exit'; id: number; code: number | null; signal: NodeJS.Signals | null }
  | { op: 'error'; id: number; message: string; code?: string };

interface PipeHandle { readStop(): void; close(): void }

const children = new Map<number, ChildProcess>();

function report(msg: LauncherReport, handle?: PipeHandle): void {
  try {
    // why: the handle is duplicated into the message; this process's copy is closed once it is written,
    // so git's pipes end when git (not this process) closes them.
    if (handle) process.send!(msg, handle as never, undefined, () => handle.close());
    else process.send!(msg);
  } catch {
    handle?.close();
  }
}

/** Take the pipe out of the child's stream before Node reads anything from it. */
function detach(stream: Socket): PipeHandle {
  const s = stream as unknown as { _handle: PipeHandle | null };
  const handle = s._handle!;
  s._handle = null;
  handle.readStop();
  return handle;
}

function start(req: Extract<LauncherRequest, { op: 'spawn' }>): void {
  let child: ChildProcess;
  let out: number | null = null;
  try {
    if (req.stdoutFile) out = fs.openSync(req.stdoutFile, 'w', 0o600);
    child = spawn('git', req.args, { cwd: req.cwd, env: req.env, stdio: ['pipe', out ?? 'pipe', 'pipe'] });
  } catch (err) {
    report({ op: 'error', id: req.id, message: (err as Error).message });
    return;
  } finally {
    if (out !== null) fs.closeSync(out);
  }
  child.on('error', (err: NodeJS.ErrnoException) => report({ op: 'error', id: req.id, message: err.message, code: err.code }));
  if (child.pid === undefined) return;
  const pid = child.pid;
  children.set(req.id, child);
  if (req.nice) {
    try { os.setPriority(pid, req.nice); } catch { /* the child may already be gone */ }
  }
  report({ op: 'fd', id: req.id, fd: 0, pid }, detach(child.stdin as Socket));
  if (child.stdout) report({ op: 'fd', id: req.id, fd: 1, pid }, detach(child.stdout as Socket));
  report({ op: 'fd', id: req.id, fd: 2, pid }, detach(child.stderr as Socket));
  child.once('exit', (code, signal) => {
    children.delete(req.id);
    report({ op: 'exit', id: req.id, code, signal });
  });
}

process.on('message', (req: LauncherRequest) => {
  if (req.op === 'spawn') start(req);
  else if (req.op === 'kill') children.get(req.id)?.kill(req.signal);
});
// why: when the server process goes, so does the launcher; running git children finish on their own
// (their pipes are closed), exactly as children of the server itself would.
process.on('disconnect', () => process.exit(0));
