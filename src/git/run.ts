/**
 * The one way the forge runs git: argv arrays (never a shell), an environment built from scratch
 * (clients may contribute only GIT_PROTOCOL), a timeout, and a kill when the caller aborts (for
 * example when an HTTP client disconnects). Use `spawnGit` to stream, `runGit` to collect output.
 */
import os from 'node:os';
import { BadRequest } from '../errors';
import { launchGit, type GitChild } from './launcher';

export type { GitChild } from './launcher';

/** How to run one git command. */
export interface GitOptions {
  /** Repository (bare) to run in, passed as --git-dir. */
  gitDir?: string;
  cwd?: string;
  /** Data for stdin (runGit only). */
  input?: string | Buffer;
  /** Kill the process after this long (default 10 minutes). */
  timeoutMs?: number;
  /** Killed when this aborts. */
  signal?: AbortSignal;
  /** The client's Git-Protocol header / GIT_PROTOCOL env; validated, never anything else from a client. */
  gitProtocol?: string;
  /** Server-chosen variables (hook context, object directories); never client input. */
  env?: Record<string, string>;
  /** Work nobody waits on interactively (archives, diff stats): git runs at a lower CPU priority. */
  background?: boolean;
  /** Write stdout to this file instead of the `stdout` stream (spawnGit only). */
  stdoutFile?: string;
}

/** A git command that exited non-zero. */
export class GitError extends Error {
  constructor(public readonly args: string[], public readonly code: number | null, public readonly stderr: string) {
    super(`git ${args[0]} failed (${code}): ${stderr.trim().split('\n').slice(-3).join(' / ')}`);
  }
}

const GIT_PROTOCOL = /^version=[0-2](:[\w=.-]+)*$/;

/** The client's GIT_PROTOCOL value when it is well-formed (`version=N[:key=value...]`), else undefined. */
export function safeGitProtocol(value: string | undefined): string | undefined {
  return value && GIT_PROTOCOL.test(value) ? value : undefined;
}

/** The environment every git child gets. */
export function gitEnv(opts: GitOptions = {}): Record<string, string> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    HOME: process.env.FORGE_GIT_HOME ?? '/nonexistent',
    LANG: 'C.UTF-8',
    // why: the server owns all configuration; nothing from /etc/gitconfig or ~/.gitconfig applies.
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    GIT_NO_REPLACE_OBJECTS: '1',
    ...(opts.env ?? {}),
  };
  const proto = safeGitProtocol(opts.gitProtocol);
  if (proto) env.GIT_PROTOCOL = proto;
  return env;
}

// why: the kernel shares CPU by weight; a dozen archive builds at niceness 10 together still
// outweigh the server's event loop, at 19 they do not.
const BACKGROUND_NICE = 19;

/**
 * Start git and stream its stdio. The caller must consume stdout and stderr. git is started by the
 * launcher process (./launcher), never forked from the server itself.
 */
export function spawnGit(args: string[], opts: GitOptions = {}): GitChild {
  const argv = opts.gitDir ? [`--git-dir=${opts.gitDir}`, ...args] : args;
  // why: never run in the server's own working directory, where git would find and use the forge's checkout.
  const cwd = opts.cwd ?? opts.gitDir ?? os.tmpdir();
  const child = launchGit(argv, { cwd, env: gitEnv(opts), nice: opts.background ? BACKGROUND_NICE : 0, stdoutFile: opts.stdoutFile });
  const stop = () => child.kill('SIGKILL');
  const timer = setTimeout(stop, opts.timeoutMs ?? 600_000);
  timer.unref();
  if (opts.signal?.aborted) stop();
  opts.signal?.addEventListener('abort', stop, { once: true });
  const done = () => {
    clearTimeout(timer);
    opts.signal?.removeEventListener('abort', stop);
  };
  child.once('exit', done);
  child.once('close', done);
  child.on('error', () => undefined);
  return child;
}

/** Run git to completion; resolves with stdout, throws GitError on a non-zero exit. */
export function runGit(args: string[], opts: GitOptions = {}): Promise<{ stdout: Buffer; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawnGit(args, opts);
    const out: Buffer[] = [];
    let err = '';
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => { if (err.length < 65_536) err += d.toString(); });
    child.once('error', reject);
    child.once('close', (code) => {
      if (code === 0) resolve({ stdout: Buffer.concat(out), stderr: err });
      else reject(new GitError(args, code, err));
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(opts.input ?? undefined);
  });
}

/**
 * Refuse a user-supplied ref, revision or path that git could read as an option or that carries
 * control characters (leading `-`, NUL, CR, LF). Returns the value for chaining.
 */
export function assertSafeGitArg(value: string, what = 'ref'): string {
  if (typeof value !== 'string' || value === '' || value.startsWith('-') || /[\0\r\n]/.test(value)) {
    throw new BadRequest(`invalid ${what}: ${JSON.stringify(value)}`);
  }
  return value;
}
