/**
 * Request-scoped cancellation: the HTTP layer runs each read request inside `withCancellation`
 * with a signal that aborts when its client goes away, and every git child started on that
 * request's behalf is killed with it (src/git/run.ts) unless it outlives requests by design
 * (long-running batch processes, shared archive builds).
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** Something that gives a signal: an AbortSignal's holder. */
interface SignalSource { readonly signal: AbortSignal }

const scope = new AsyncLocalStorage<SignalSource>();

/**
 * A request's cancellation, whose AbortController is made only when someone asks for its signal.
 * why: most reads start no git child; making a controller and its signal for every request cost
 * more than a percent of a cached read.
 */
export class RequestCancellation implements SignalSource {
  private ac: AbortController | null = null;
  private cancelled = false;

  /** The signal, aborted once the request is cancelled (at once if it already was). */
  get signal(): AbortSignal {
    if (!this.ac) {
      this.ac = new AbortController();
      if (this.cancelled) this.ac.abort();
    }
    return this.ac.signal;
  }

  /** The client went away. */
  cancel(): void {
    this.cancelled = true;
    this.ac?.abort();
  }
}

/** Run `fn` (and everything it starts) under `source`'s signal. */
export function withCancellation<T>(source: SignalSource, fn: () => T): T {
  return scope.run(source, fn);
}

/** The signal of the request this code runs for, if any. */
export function currentCancellation(): AbortSignal | undefined {
  return scope.getStore()?.signal;
}

/** Run `fn` outside any request's scope: what it starts outlives the request (shared processes, cache builds). */
export function outsideRequest<T>(fn: () => T): T {
  return scope.exit(fn);
}
