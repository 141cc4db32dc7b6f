/**
 * Errors a task throws for the caller to answer with an HTTP status. Only an Error's message
 * survives the trip back from a worker thread, so the status travels in a marked prefix that
 * src/pool turns back into the typed error.
 */

const MARK = /^\[forge-status (\d{3})\] /;

/** An error that becomes an HTTP error of `status` in the caller. */
export function taskError(status: number, message: string): Error {
  return new Error(`[forge-status ${status}] ${message}`);
}

/** The status and message of a marked error, or null for any other error. */
export function parseTaskError(err: unknown): { status: number; message: string } | null {
  const msg = err instanceof Error ? err.message : typeof err === 'string' ? err : '';
  const m = MARK.exec(msg);
  return m ? { status: Number(m[1]), message: msg.slice(m[0].length) } : null;
}

/**
 * A task whose HTTP errors (thrown by the shared git helpers: a damaged repository, an answer too
 * large) keep their status across the thread boundary.
 */
export function keepingStatus<A, R>(task: (arg: A) => Promise<R>): (arg: A) => Promise<R> {
  return async (arg: A) => {
    try {
      return await task(arg);
    } catch (err) {
      const status = (err as { status?: unknown })?.status;
      if (err instanceof Error && typeof status === 'number' && !parseTaskError(err)) throw taskError(status, err.message);
      throw err;
    }
  };
}
