/**
 * The Piscina worker pool (workers/index.ts): typed task calls, and errors thrown by tasks turned
 * back into the HttpError classes. Started on first use in each process.
 */
import os from 'node:os';
import path from 'node:path';
import { Piscina } from 'piscina';
import { HttpError } from '../errors';
import { parseTaskError } from '../../workers/errors';
import type * as Tasks from '../../workers/index';

type TaskName = keyof typeof Tasks;
type TaskArg<N extends TaskName> = Parameters<(typeof Tasks)[N]>[0];
type TaskResult<N extends TaskName> = Awaited<ReturnType<(typeof Tasks)[N]>>;

let pool: Piscina | null = null;

/** Threads per process: FORGE_POOL_THREADS, else the number of cores (at least 2). */
function threads(): number {
  const n = Number(process.env.FORGE_POOL_THREADS);
  return Number.isInteger(n) && n > 0 ? n : Math.max(2, os.availableParallelism());
}

function thePool(): Piscina {
  pool ??= new Piscina({
    filename: path.resolve(__dirname, '../../workers/index.js'),
    minThreads: 1,
    maxThreads: threads(),
    idleTimeout: 60_000,
  });
  return pool;
}

/** Run task `name` in a worker thread; a task's marked error becomes the matching HttpError. */
export async function runTask<N extends TaskName>(name: N, arg: TaskArg<N>, signal?: AbortSignal): Promise<TaskResult<N>> {
  try {
    return (await thePool().run(arg, { name, signal })) as TaskResult<N>;
  } catch (err) {
    const marked = parseTaskError(err);
    if (marked) {
      const e = new HttpError(marked.status, marked.message);
      // why: a server-side failure reported by a task (a damaged repository) is logged like one raised here.
      e.log = marked.status >= 500;
      throw e;
    }
    throw err;
  }
}

/** Stop the pool's threads (process shutdown, tests). */
export async function closePool(): Promise<void> {
  const p = pool;
  pool = null;
  await p?.destroy();
}
