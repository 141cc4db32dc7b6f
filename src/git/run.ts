/**
 * The one way the forge runs git: argv arrays (never a shell), an environment built from scratch
 * (clients may contribute only GIT_PROTOCOL), a timeout, and a kill when the caller aborts (for
 * example when an HTTP client disconnects). Use `spawnGit` to stream, `runGit` to collect output.
 */
import os from 'node:os';
import path from 'node:path';
import { settings } from '../config';
import { BadRequest, RepoUnavailable, TooLarge } from '../errors';
import { currentCancellation } from './cancel';
import { launchGit, type GitChild } from './launcher';

export type { GitChild } from './launcher';

/** How to run one git command. */
export interface GitOptions {
  /** Repository (bare) to run in, passed as --git-dir. */
  gitDir?: string;
  cwd?: string;
  /** Data for stdin (runGit only): bytes, or a stream piped in (another git's output). */
  input?: string | Buffer | NodeJS.ReadableStream;
  /** Kill the process after this long (default [git.timeout] DEFAULT). */
  timeoutMs?: number;
  /**
   * Killed when this aborts. By default: when the client of the read request this runs for goes
   * away (see ./cancel; work started through `outsideRequest` has no such client).
   */
  signal?: AbortSignal;
  /** runGit only: the most bytes of stdout kept (default 64 MB); more kills git and throws TooLarge. */
  maxOutputBytes?: number;
  /** The largest file git may write (its stdoutFile), in bytes; beyond it git dies of SIGXFSZ. */
  maxFileBytes?: number;
  /** The client's Git-Protocol header / GIT_PROTOCOL env; validated, never anything else from a client. */
  gitProtocol?: string;
  /** Server-chosen variables (hook context, object directories); never client input. */
  env?: Record<string, string>;
  /** Work nobody waits on interactively (archives, diff stats): git runs at a lower CPU priority. */
  background?: boolean;
  /** Write stdout to this file instead of the `stdout` stream (spawnGit only). */
  stdoutFile?: string;
  /** spawnGit only: false gives git no stdin (it reads end-of-file), which saves passing a pipe. */
  stdin?: boolean;
  /** runGit only: exit codes besides 0 that are answers, not failures (`merge-tree` exits 1 for conflicts). */
  answerCodes?: number[];
}

/** A git command that exited non-zero. */
export class GitError extends Error {
  constructor(public readonly args: string[], public readonly code: number | null, public readonly stderr: string) {
    super(`git ${args[0]} failed (${code}): ${stderr.trim().split('\n').slice(-3).join(' / ')}`);
  }
}

// why: git says these when the object database itself is unreadable (a truncated or corrupt pack,
// a broken loose object); such a failure is the storage's fault, never "no such object".
const DAMAGE = /packfile .* (?:cannot be accessed|does not match index|is truncated|is far too short)|end of packfile .* is unavailable|is corrupt|inflate: data stream error|unable to unpack|bad packed object|bad object header|object file .* is empty|invalid object type|premature end of pack file|improper packfile/i;

/** Is this git stderr the report of a damaged object database? */
export function reportsDamage(stderr: string): boolean {
  return DAMAGE.test(stderr);
}

/** The repository a git directory holds, as `owner/name(.wiki)` relative to the storage root (never the host path). */
export function repoLabel(gitDir: string): string {
  const rel = path.relative(path.resolve(settings().repository.root), gitDir);
  return rel.startsWith('..') ? path.basename(gitDir) : rel.replace(/\.git$/, '');
}

/** The error for a repository whose directory is gone. */
export function missingRepo(gitDir: string): RepoUnavailable {
  return new RepoUnavailable(repoLabel(gitDir), 'its directory is missing', `directory ${gitDir} does not exist`);
}

/** The error for a repository whose objects git cannot read. */
export function damagedRepo(gitDir: string, stderr: string): RepoUnavailable {
  return new RepoUnavailable(repoLabel(gitDir), 'its object database is damaged', stderr.trim().split('\n').slice(-5).join(' / '));
}

/** Did git die for want of memory (its data limit, [git] PROCESS_MEMORY_LIMIT)? */
export function ranOutOfMemory(stderr: string): boolean {
  return /out of memory/i.test(stderr);
}

/** The error for an answer that git cannot compute within [git] PROCESS_MEMORY_LIMIT. */
export function needsTooMuchMemory(what: string): TooLarge {
  return new TooLarge(`${what} needs more memory than [git] PROCESS_MEMORY_LIMIT (${settings().git.processMemoryLimit} MB) allows`);
}

/**
 * The error for a git command that failed (exit code `code`, `stderr`) in `gitDir`: the
 * repository's damage, want of memory (413), or the plain GitError.
 */
export function gitFailure(args: string[], code: number | null, stderr: string, gitDir?: string): Error {
  if (gitDir && reportsDamage(stderr)) return damagedRepo(gitDir, stderr);
  if (ranOutOfMemory(stderr)) return needsTooMuchMemory(`the answer of git ${args[0]}`);
  return new GitError(args, code, stderr);
}

/**
 * For `.catch(gitRefused)`: git exiting non-zero (no such ref, not a repository object) means null;
 * anything else (a missing or damaged repository, output too large) still fails.
 */
export function gitRefused(err: unknown): null {
  if (err instanceof GitError) return null;
  throw err;
}

/** The default bound of runGit's collected output. */
const MAX_OUTPUT_BYTES = 64 * 1024 * 1024;

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
    // why: into a pipe, git flushes after every line of rev-list or log unless told not to: the
    // 20,000 ids of a history came in 7,000 reads and took three times as long as git itself.
    // Answers that must arrive at once (cat-file --batch, diff-tree --stdin) flush on their own.
    GIT_FLUSH: '0',
    ...(opts.env ?? {}),
  };
  const proto = safeGitProtocol(opts.gitProtocol);
  if (proto) env.GIT_PROTOCOL = proto;
  return env;
}

/**
 * Start git and stream its stdio. The caller must consume stdout and stderr. git is started by the
 * launcher process (./launcher), never forked from the server itself.
 */
export function spawnGit(args: string[], opts: GitOptions = {}): GitChild {
  const argv = opts.gitDir ? [`--git-dir=${opts.gitDir}`, ...args] : args;
  // why: never run in the server's own working directory, where git would find and use the forge's checkout.
  const cwd = opts.cwd ?? opts.gitDir ?? os.tmpdir();
  const child = launchGit(argv, {
    cwd, env: gitEnv(opts), nice: opts.background ? settings().git.backgroundNiceness : 0, stdoutFile: opts.stdoutFile, maxFileBytes: opts.maxFileBytes,
    stdin: opts.stdin,
  });
  const signal = opts.signal ?? currentCancellation();
  const stop = () => child.kill('SIGKILL');
  const timer = setTimeout(stop, opts.timeoutMs ?? settings().gitTimeout.default * 1000);
  timer.unref();
  if (signal?.aborted) stop();
  signal?.addEventListener('abort', stop, { once: true });
  const done = () => {
    clearTimeout(timer);
    signal?.removeEventListener('abort', stop);
  };
  child.once('exit', done);
  child.once('close', done);
  child.on('error', () => undefined);
  return child;
}

/**
 * Turn a git child's start failure into the error to answer: a repository directory that does not
 * exist is named as such (git never ran), anything else passes through.
 */
export function startFailure(err: Error & { code?: string }, gitDir: string | undefined): Error {
  return err.code === 'ENOCWD' && gitDir ? missingRepo(gitDir) : err;
}

/**
 * Run git to completion; resolves with stdout, throws GitError on a non-zero exit (RepoUnavailable
 * when the repository is missing or damaged, TooLarge past `maxOutputBytes`).
 */
export function runGit(args: string[], opts: GitOptions = {}): Promise<{ stdout: Buffer; stderr: string; code: number }> {
  const gitDir = opts.gitDir ?? opts.cwd;
  const max = opts.maxOutputBytes ?? MAX_OUTPUT_BYTES;
  return new Promise((resolve, reject) => {
    // why: each pipe is handed over from the launcher with an acknowledged message; git given no input needs no stdin.
    const child = spawnGit(args, { ...opts, stdin: opts.input !== undefined });
    const out: Buffer[] = [];
    let size = 0;
    let overflow = false;
    let err = '';
    child.stdout.on('data', (d: Buffer) => {
      if (overflow) return;
      size += d.length;
      if (size > max) {
        // why: a tree or diff of a crafted repository can be endless; what the server keeps in memory is bounded.
        overflow = true;
        out.length = 0;
        child.kill('SIGKILL');
        return;
      }
      out.push(d);
    });
    child.stderr.on('data', (d: Buffer) => { if (err.length < 65_536) err += d.toString(); });
    child.once('error', (e: Error) => reject(startFailure(e, gitDir)));
    child.once('close', (code) => {
      // why: git may read around an unreadable object and still exit 0 ("missing"); a damage report always fails.
      if (overflow) reject(new TooLarge(`the output of git ${args[0]} is larger than the server's limit of ${max} bytes`));
      else if ((code === 0 || opts.answerCodes?.includes(code ?? -1)) && !(gitDir && reportsDamage(err))) resolve({ stdout: Buffer.concat(out), stderr: err, code: code ?? 0 });
      else reject(gitFailure(args, code, err, gitDir));
    });
    child.stdin.on('error', () => undefined);
    if (opts.input && typeof opts.input === 'object' && 'pipe' in opts.input) opts.input.pipe(child.stdin);
    else child.stdin.end(opts.input ?? undefined);
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
