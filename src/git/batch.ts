/**
 * Long-running git commands that answer requests written to their stdin (`cat-file --batch`,
 * `diff-tree --stdin`), one process per recently used repository and command, so a request costs a
 * pipe round trip instead of a process start. Requests to one process are answered in order; idle
 * processes exit after a while and at most MAX_OPEN stay per command.
 * why: starting git costs milliseconds, more than reading or diffing fifty commits.
 */
import { TooLarge } from '../errors';
import { outsideRequest } from './cancel';
import { damagedRepo, gitFailure, reportsDamage, spawnGit, startFailure, type GitChild } from './run';

const MAX_OPEN = 32;
const IDLE_MS = 30_000;

/** One request: what to write, and a parser fed git's output until it has its whole answer. */
export interface BatchJob<T> {
  input: string;
  /** Consume the answer from the start of `buf`: bytes used and the result when complete, or null to wait for more. */
  parse(buf: Buffer): { used: number; result?: T } | null;
}

/** The most bytes one answer may buffer; past it the process is stopped and the job fails with TooLarge. */
const MAX_ANSWER_BYTES = 64 * 1024 * 1024;

interface Pending { job: BatchJob<unknown>; resolve: (v: unknown) => void; reject: (e: Error) => void }

class BatchProcess {
  private readonly child: GitChild;
  private buf = Buffer.alloc(0);
  private queue: Pending[] = [];
  private idle: NodeJS.Timeout | null = null;
  dead = false;

  private stderr = '';
  private failed = false;

  constructor(private readonly gitDir: string, args: string[], background: boolean, private readonly onExit: () => void) {
    // why: the process serves many requests; it is not killed with the client of the one that started it.
    this.child = outsideRequest(() => spawnGit(args, { gitDir, timeoutMs: 24 * 3600_000, background }));
    this.child.stdout.on('data', (d: Buffer) => this.feed(d));
    this.child.stderr.on('data', (d: Buffer) => this.noteStderr(d));
    this.child.stdin.on('error', () => undefined);
    this.child.once('error', (err: Error) => this.fail(startFailure(err, gitDir)));
    this.child.once('close', (code) => this.fail(gitFailure(args, code, this.stderr, gitDir)));
    this.touch();
  }

  /**
   * git reports an unreadable object on stderr and may still answer "missing" on stdout; once the
   * object database is known to be damaged, every pending answer fails with that rather than
   * pretending the objects do not exist (callers confirm "missing" answers, see ./cat-file).
   */
  private noteStderr(d: Buffer): void {
    if (this.stderr.length < 65_536) this.stderr += d.toString();
    if (!this.failed && reportsDamage(this.stderr)) {
      this.fail(damagedRepo(this.gitDir, this.stderr));
      this.child.kill('SIGKILL');
    }
  }

  private touch(): void {
    if (this.idle) clearTimeout(this.idle);
    this.idle = setTimeout(() => this.close(), IDLE_MS);
    this.idle.unref();
  }

  run<T>(job: BatchJob<T>): Promise<T> {
    this.touch();
    return new Promise((resolve, reject) => {
      this.queue.push({ job, resolve: resolve as (v: unknown) => void, reject });
      this.child.stdin.write(job.input);
    });
  }

  private feed(chunk: Buffer): void {
    if (this.failed) return;
    this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
    while (this.queue.length > 0) {
      const step = this.queue[0].job.parse(this.buf);
      if (!step) {
        // why: an answer for a crafted repository (a commit changing millions of paths) can be endless; stop it.
        if (this.buf.length > MAX_ANSWER_BYTES) {
          this.fail(new TooLarge(`the answer of git is larger than the server's limit of ${MAX_ANSWER_BYTES} bytes`));
          this.child.kill('SIGKILL');
        }
        return;
      }
      this.buf = this.buf.subarray(step.used);
      if ('result' in step) this.queue.shift()!.resolve(step.result);
    }
  }

  private fail(err: Error): void {
    if (this.failed) return;
    this.failed = true;
    this.dead = true;
    this.buf = Buffer.alloc(0);
    if (this.idle) clearTimeout(this.idle);
    for (const p of this.queue.splice(0)) p.reject(err);
    this.onExit();
  }

  close(): void {
    if (this.dead) return;
    this.dead = true;
    this.child.stdin.end();
    this.onExit();
  }
}

/** A kind of long-running git command: its arguments, and whether it is background work. */
export class BatchCommand {
  private readonly procs = new Map<string, BatchProcess>();

  constructor(private readonly args: string[], private readonly background = false) {
    commands.push(this);
  }

  /** Run `job` on this command's process for the repository at `gitDir`. */
  run<T>(gitDir: string, job: BatchJob<T>): Promise<T> {
    return this.process(gitDir).run(job);
  }

  /**
   * Start this command's process for the repository now, when a job for it is sure to follow.
   * why: git's start-up then overlaps the work that decides the job (a commit page's ids).
   */
  prepare(gitDir: string): void {
    this.process(gitDir);
  }

  /** The live process for `gitDir`, started when there is none. */
  private process(gitDir: string): BatchProcess {
    let p = this.procs.get(gitDir);
    if (!p || p.dead) {
      const created: BatchProcess = new BatchProcess(gitDir, this.args, this.background, () => {
        if (this.procs.get(gitDir) === created) this.procs.delete(gitDir);
      });
      p = created;
      this.procs.set(gitDir, p);
      if (this.procs.size > MAX_OPEN) this.procs.values().next().value?.close();
    } else {
      // why: Map order is the eviction order; a used process moves to the end.
      this.procs.delete(gitDir);
      this.procs.set(gitDir, p);
    }
    return p;
  }

  /** Stop the processes of a repository, or of every repository under a directory. */
  close(dir: string): void {
    for (const [gitDir, p] of this.procs) if (gitDir === dir || gitDir.startsWith(`${dir}/`)) p.close();
  }
}

const commands: BatchCommand[] = [];

/** Stop every long-running git of a repository, or of every repository under a directory (before it is moved or deleted). */
export function closeRepoProcesses(dir: string): void {
  for (const c of commands) c.close(dir);
}
