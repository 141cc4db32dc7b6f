/**
 * Request-scoped cancellation: the HTTP layer runs each read request inside `withCancellation`
 * with a signal that aborts when its client goes away, and every git child started on that
 * request's behalf is killed with it (src/git/run.ts) unless it outlives requests by design
 * (long-running batch processes, shared archive builds).
 */
import { AsyncLocalStorage } from 'node:async_hooks';

const scope = new AsyncLocalStorage<AbortSignal>();

/** Run `fn` (and everything it starts) under `signal`. */
export function withCancellation<T>(signal: AbortSignal, fn: () => T): T {
  return scope.run(signal, fn);
}

/** The signal of the request this code runs for, if any. */
export function currentCancellation(): AbortSignal | undefined {
  return scope.getStore();
}

/** Run `fn` outside any request's scope: what it starts outlives the request (shared processes, cache builds). */
export function outsideRequest<T>(fn: () => T): T {
  return scope.exit(fn);
}
