/**
 * The git launcher: a small helper process that starts git for a server process and hands the
 * child's stdin, stdout and stderr pipes back over the IPC channel, so git's data flows between git
 * and the server directly. It only uses Node's built-ins, to stay small.
 * why: starting a child forks the calling process; a server process holding hundreds of megabytes
 * blocks its event loop for several milliseconds per fork (and stalls its other threads), while
 * this process forks in about one.
 *
 * Messages in: {op:'spawn', id, args, cwd, env, nice, stdin, stdoutFile, maxFileBytes} and {op:'kill', id, signal}.
 * Messages out: {op:'fd', id, fd, pid} with the pipe as handle (fd 0 then 1; no fd 0 without
 * stdin, no fd 1 when stdout goes to a file), {op:'stderr', id, data} (base64) as git writes it,
 * {op:'exit', id, code, signal} once git exited and its stderr ended, and {op:'error', id, message, code}.
 * why: a message carrying a pipe holds back every later message until the server acknowledges it,
 * so git's stderr (small: errors, progress) travels as text; two hand-overs per git at most.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import type { Socket } from 'node:net';

/** A request from the server. */
export type LauncherRequest =
  | { op: 'spawn'; id: number; args: string[]; cwd: string; env: Record<string, string>; nice: number; stdin: boolean; stdoutFile?: string; maxFileBytes?: number }
  | { op: 'kill'; id: number; signal: NodeJS.Signals };

/** A report to the server. */
export type LauncherReport =
  | { op: 'fd'; id: number; fd: 0 | 1; pid: number }
  | { op: 'stderr'; id: number; data: string }
  | { op: 'exit'; id: number; code: number | null; signal: NodeJS.Signals | null }
  | { op: 'error'; id: number; message: string; code?: string };

interface PipeHandle { readStop(): void; close(): void }

const children = new Map<number, ChildProcess>();

function report(msg: LauncherReport, handle?: PipeHandle): void {
  // why: once the server is gone there is no one to tell; its git children finish quietly.
  if (!process.connected) {
    handle?.close();
    return;
  }
  try {
    // why: the handle is duplicated into the message; this process's copy is closed once it is written,
    // so git's pipes end when git (not this process) closes them. A failed send only means the server left.
    if (handle) process.send!(msg, handle as never, undefined, () => handle.close());
    else process.send!(msg, undefined, undefined, () => undefined);
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

const found = new Map<string, string>();

/**
 * The absolute path of `cmd` in the directories of `searchPath`, looked up once (the bare name when
 * none has it, so spawn reports it missing). why: spawn searched PATH on every start; on a machine
 * with tool directories ahead of /usr/bin, that was nine failed execve calls per git.
 */
function onPath(cmd: string, searchPath: string): string {
  let hit = found.get(cmd);
  if (hit) return hit;
  hit = cmd;
  // why: an empty or relative entry would find a program in git's working directory, a repository.
  for (const dir of searchPath.split(':').filter((d) => path.isAbsolute(d))) {
    const candidate = path.join(dir, cmd);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      if (!fs.statSync(candidate).isFile()) continue;
      hit = candidate;
      break;
    } catch { /* not here */ }
  }
  found.set(cmd, hit);
  return hit;
}

function start(req: Extract<LauncherRequest, { op: 'spawn' }>): void {
  let child: ChildProcess;
  let out: number | null = null;
  // why: a missing working directory makes spawn fail with the same ENOENT as a missing git binary; name it.
  if (!fs.existsSync(req.cwd)) {
    report({ op: 'error', id: req.id, message: `directory ${req.cwd} does not exist`, code: 'ENOCWD' });
    return;
  }
  // why: RLIMIT_FSIZE bounds what git may write to its output file; prlimit sets it and execs git (same pid).
  const git = onPath('git', req.env.PATH ?? '');
  const [cmd, args] = req.maxFileBytes ? [onPath('prlimit', req.env.PATH ?? ''), [`--fsize=${req.maxFileBytes}`, '--core=0', '--', git, ...req.args]] : [git, req.args];
  try {
    if (req.stdoutFile) out = fs.openSync(req.stdoutFile, 'w', 0o600);
    child = spawn(cmd, args, { cwd: req.cwd, env: req.env, stdio: [req.stdin ? 'pipe' : 'ignore', out ?? 'pipe', 'pipe'] });
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
  if (child.stdin) report({ op: 'fd', id: req.id, fd: 0, pid }, detach(child.stdin as Socket));
  if (child.stdout) report({ op: 'fd', id: req.id, fd: 1, pid }, detach(child.stdout as Socket));
  child.stderr!.on('data', (d: Buffer) => report({ op: 'stderr', id: req.id, data: d.toString('base64') }));
  const stderrEnded = new Promise<void>((resolve) => { child.stderr!.once('end', resolve); child.stderr!.once('error', () => resolve()); });
  child.once('exit', (code, signal) => {
    children.delete(req.id);
    void stderrEnded.then(() => report({ op: 'exit', id: req.id, code, signal }));
  });
}

/**
 * Take the data-size limit (RLIMIT_DATA) for this process, so every git it starts inherits it.
 * why: git's heap (a tree walk, a delta window) is what can grow without end; packs are mapped
 * read-only and do not count. Node has no setrlimit; prlimit(1) sets it on this process by pid.
 */
function limitMemory(): void {
  const bytes = Number(process.env.FORGE_GIT_DATA_LIMIT ?? 0);
  if (!(bytes > 0)) return;
  const r = spawnSync('prlimit', ['--pid', String(process.pid), `--data=${bytes}:${bytes}`], { stdio: ['ignore', 'ignore', 'pipe'] });
  if (r.status !== 0) process.stderr.write(`forge: git children run without a memory limit (prlimit: ${r.error?.message ?? String(r.stderr).trim()})\n`);
}

limitMemory();
process.on('message', (req: LauncherRequest) => {
  if (req.op === 'spawn') start(req);
  else if (req.op === 'kill') children.get(req.id)?.kill(req.signal);
});
// why: when the server process goes, the launcher stays until its running git children are done
// (their pipes close with the server, so they end soon), then exits quietly; nothing is reported.
process.on('disconnect', () => {
  if (children.size === 0) process.exit(0);
  for (const child of children.values()) child.once('exit', () => { if (children.size === 0) process.exit(0); });
});
