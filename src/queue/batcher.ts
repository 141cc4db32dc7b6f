/**
 * Group commit for a hot path: calls that arrive while a flush runs wait and go together in the
 * next one. why: at load, a statement (or a transaction) per call costs a round trip per call to
 * the database; a flush per round trip costs one for all the calls that queued during the last.
 * Idle, a call waits only for the current turn of the event loop.
 */
export interface Batcher<T, R> {
  (item: T): Promise<R>;
}

/**
 * A batcher over `flush`, which handles up to `max` items at a time and answers one result per
 * item, in order. A flush that throws fails every call of its batch with the error.
 */
export function batcher<T, R>(flush: (items: T[]) => Promise<R[]>, max = 200): Batcher<T, R> {
  let queue: { item: T; resolve: (r: R) => void; reject: (err: unknown) => void }[] = [];
  let running = false;
  const drain = async () => {
    while (queue.length) {
      const batch = queue.slice(0, max);
      queue = queue.slice(max);
      try {
        const out = await flush(batch.map((b) => b.item));
        batch.forEach((b, i) => b.resolve(out[i]));
      } catch (err) {
        for (const b of batch) b.reject(err);
      }
    }
    running = false;
  };
  return (item) => new Promise<R>((resolve, reject) => {
    queue.push({ item, resolve, reject });
    if (running) return;
    running = true;
    // why: the calls made in this turn of the event loop join the first flush.
    setImmediate(() => { void drain(); });
  });
}
