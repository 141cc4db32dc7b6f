/**
 * Starting git without forking the server process: requests go to a small launcher process
 * (launcher-process.ts, started on first use, one per thread that runs git) which starts git and
 * passes the child's pipes back, so data still flows between git and the server directly.
 * `GitChild` looks like a ChildProcess to its users: stdin, stdout and stderr streams that exist
 * at once, `pid`, `exitCode`, `signalCode`, `kill()`, and the 'spawn', 'error', 'exit' and
 * 'close' events.
 */
import path from 'node:path';
import { EventEmitter } from 'node:events';
import { spawn, type ChildProcess } from 'node:child_process';
import { Socket } from 'node:net';
import { PassThrough } from 'node:stream';
import { settings } from '../config';
import type { LauncherReport, LauncherRequest } from './launcher-process';

/** How the launcher starts one git process. */
export interface LaunchOptions {
  cwd: string;
  env: Record<string, string>;
  /** Niceness for background work (0 = as the server). */
  nice?: number;
  /** Write git's stdout to this file (created or truncated) instead of a pipe; `stdout` then ends at once. */
  stdoutFile?: string;
  /** The largest file git may write (RLIMIT_FSIZE); beyond it git dies of SIGXFSZ. */
  maxFileBytes?: number;
  /** false: git gets no stdin (end-of-file); what is written to `stdin` is dropped. Default true. */
  stdin?: boolean;
}

/** A git process started by the launcher. */
export class GitChild extends EventEmitter {
  readonly stdin = new PassThrough();
  readonly stdout = new PassThrough();
  readonly stderr = new PassThrough();
  pid: number | undefined;
  exitCode: number | null = null;
  signalCode: NodeJS.Signals | null = null;
  private fds = 0;
  private readonly wanted: number;
  private exited = false;
  private exitEmitted = false;
  private closed = false;
  /**
   * Work done once git has exited and before 'exit' and 'close' are emitted (the server recording
   * what a receive-pack did), so whoever waits for git waits for that too. Its failure is its own.
   */
  afterExit: (() => Promise<void>) | null = null;
  private open: number;

  constructor(readonly id: number, private readonly send: (req: LauncherRequest) => void, toFile: boolean, hasStdin: boolean) {
    super();
    this.wanted = 2 - (toFile ? 1 : 0) - (hasStdin ? 0 : 1);
    if (toFile) this.stdout.end();
    if (!hasStdin) this.stdin.resume();
    const outs = toFile ? [this.stderr] : [this.stdout, this.stderr];
    this.open = outs.length;
    // why: like a ChildProcess, 'close' waits until its output streams were read to their end (or destroyed).
    for (const out of outs) {
      let counted = false;
      const ended = () => {
        if (counted) return;
        counted = true;
        if (--this.open === 0) this.maybeClose();
      };
      out.once('end', ended);
      out.once('close', ended);
    }
  }

  /** Send a signal to git (SIGTERM by default); false once it has exited. */
  kill(signal: NodeJS.Signals = 'SIGTERM'): boolean {
    if (this.exited) return false;
    this.send({ op: 'kill', id: this.id, signal });
    return true;
  }

  /** @internal one of git's pipes arrived. */
  attach(fd: 0 | 1, pid: number, socket: Socket): void {
    this.pid = pid;
    if (fd === 0) {
      // why: git going away closes its stdin; writes after that are dropped like a child's EPIPE.
      socket.on('error', () => this.stdin.destroy());
      socket.on('close', () => this.stdin.destroy());
      this.stdin.once('close', () => socket.end());
      socket.resume();
      this.stdin.pipe(socket);
    } else {
      socket.on('error', () => this.stdout.end());
      // why: a reader that gives up closes git's end too, so git stops writing (SIGPIPE) as with a child's pipe.
      this.stdout.once('close', () => socket.destroy());
      socket.pipe(this.stdout);
    }
    if (++this.fds === this.wanted) this.emit('spawn');
  }

  /** @internal git wrote to stderr. */
  stderrData(data: Buffer): void {
    if (!this.stderr.destroyed) this.stderr.write(data);
  }

  /** @internal git exited (and its stderr ended). */
  reportExit(code: number | null, signal: NodeJS.Signals | null): void {
    this.stderr.end();
    this.exited = true;
    this.exitCode = code;
    this.signalCode = signal;
    const emitExit = () => {
      this.exitEmitted = true;
      this.emit('exit', code, signal);
      this.maybeClose();
    };
    if (this.afterExit) void this.afterExit().catch(() => undefined).then(emitExit);
    else emitExit();
  }

  /** @internal git could not be started, or the launcher died. */
  failed(err: Error): void {
    const first = !this.exited;
    this.exited = true;
    this.emit('error', err);
    if (!first) return;
    this.exitEmitted = true;
    for (const s of [this.stdin, this.stdout, this.stderr]) s.destroy();
    this.maybeClose();
  }

  private maybeClose(): void {
    if (!this.exitEmitted || this.open > 0 || this.closed) return;
    this.closed = true;
    this.emit('close', this.exitCode, this.signalCode);
  }
}

/** The launcher of this thread. */
/**
 * Flags of the Node processes that run under git's data limit (the launcher and the push hooks).
 * why: since Node 22 V8 reserves a 512 MiB code range for its JIT at start, which RLIMIT_DATA
 * counts, so under a 256 MiB [git] PROCESS_MEMORY_LIMIT the launcher could start no git and a hook
 * could not start at all. They pass messages and make one HTTP call; without the JIT Node reserves
 * 50 MiB. Node 20 reserves little and would only warn about the flag.
 */
export const LEAN_NODE_FLAGS: string[] = Number(process.versions.node.split('.')[0]) >= 22 ? ['--jitless'] : [];

class Launcher {
  private readonly proc: ChildProcess;
  private readonly running = new Map<number, GitChild>();
  dead = false;

  constructor(memoryLimitBytes: number) {
    this.proc = spawn(process.execPath, ['--max-old-space-size=64', ...LEAN_NODE_FLAGS, path.join(__dirname, 'launcher-process.js')], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      // why: the launcher takes the data limit for itself at start, so every git it starts inherits it.
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', FORGE_GIT_DATA_LIMIT: String(memoryLimitBytes) },
    });
    this.proc.on('message', (msg: LauncherReport, handle?: unknown) => this.onReport(msg, handle));
    this.proc.once('exit', () => this.die(new Error('the git launcher exited')));
    this.proc.on('error', (err) => this.die(err));
    this.idle();
  }

  start(args: string[], opts: LaunchOptions, id: number): GitChild {
    // why: a git that gets no pipe at all (stdout to a file, no stdin) would never report its pid.
    const stdin = opts.stdin !== false || opts.stdoutFile !== undefined;
    const child = new GitChild(id, (req) => this.send(req), opts.stdoutFile !== undefined, stdin);
    this.running.set(id, child);
    this.busy();
    this.send({ op: 'spawn', id, args, cwd: opts.cwd, env: opts.env, nice: opts.nice ?? 0, stdin, stdoutFile: opts.stdoutFile, maxFileBytes: opts.maxFileBytes });
    return child;
  }

  private send(req: LauncherRequest): void {
    if (this.dead) return;
    this.proc.send(req, (err) => { if (err) this.die(err); });
  }

  private onReport(msg: LauncherReport, handle?: unknown): void {
    const child = this.running.get(msg.id);
    if (msg.op === 'fd') {
      const socket = new Socket({ handle, readable: true, writable: true } as ConstructorParameters<typeof Socket>[0]);
      if (child) child.attach(msg.fd, msg.pid, socket);
      else socket.destroy();
    } else if (msg.op === 'stderr') {
      child?.stderrData(Buffer.from(msg.data, 'base64'));
    } else if (msg.op === 'exit') {
      this.running.delete(msg.id);
      child?.reportExit(msg.code, msg.signal);
    } else {
      this.running.delete(msg.id);
      child?.failed(Object.assign(new Error(msg.message), { code: msg.code }));
    }
    if (this.running.size === 0) this.idle();
  }

  // why: an idle launcher must not keep a process (a CLI command, a test) alive.
  private idle(): void {
    this.proc.unref();
    (this.proc.channel as { unref?: () => void } | undefined)?.unref?.();
  }

  private busy(): void {
    this.proc.ref();
    (this.proc.channel as { ref?: () => void } | undefined)?.ref?.();
  }

  private die(err: Error): void {
    if (this.dead) return;
    this.dead = true;
    if (launcher === this) launcher = null;
    for (const child of this.running.values()) child.failed(err);
    this.running.clear();
    this.proc.kill('SIGKILL');
  }
}

let launcher: Launcher | null = null;
let nextId = 1;

/**
 * Start git with `args` through this thread's launcher (started on first use, restarted if it
 * died); every git it starts gets at most [git] PROCESS_MEMORY_LIMIT of data memory.
 */
export function launchGit(args: string[], opts: LaunchOptions): GitChild {
  if (!launcher || launcher.dead) launcher = new Launcher(settings().git.processMemoryLimit * 1024 * 1024);
  return launcher.start(args, opts, nextId++);
}
