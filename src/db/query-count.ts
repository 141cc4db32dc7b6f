/**
 * How many statements a request sent to the database: the web server runs each request inside a
 * tally (while the access log is on in JSON), every statement adds one to the tally of the request
 * it runs for, and the JSON access line reports it (`queries`). Statements outside any request (the outbox,
 * scheduled work) count nowhere. A read answered by a cache sends none.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** One request's count. */
export interface QueryTally { n: number }

const scope = new AsyncLocalStorage<QueryTally>();

/** Run `fn` (and everything it starts) counting its statements into `tally`. */
export function countingQueries<T>(tally: QueryTally, fn: () => T): T {
  return scope.run(tally, fn);
}

/** A statement is being sent: count it for the request it runs for, if any. */
export function noteQuery(): void {
  const t = scope.getStore();
  if (t) t.n++;
}
