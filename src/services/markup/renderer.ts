/**
 * Where documents render: a little text on the event loop, everything else in the worker pool in
 * batches; for pages, the HTML is kept in a bounded per-process cache keyed by everything it depends
 * on, so a page seen again renders nothing, and readers asking for the same document at the same
 * time share one render.
 */
import crypto from 'node:crypto';
import { settings } from '../../config';
import { Validation } from '../../errors';
import { WeightedLru } from '../../git/lru';
import { referenceCandidates, render, type RenderInput } from '../../markup';
import { runTask } from '../../pool';

// why: up to this much text (in one call) renders on the event loop: a few milliseconds even for
// text made to be slow (a dense task list or table); more goes to the pool, so no render holds the
// loop for long.
const INLINE_MAX_CHARS = 2 * 1024;
// why: a batch is one pool task; documents go together up to this size (or count), so a page of many
// small documents costs a few messages and a page of many large ones spreads over the threads.
const BATCH_MAX_CHARS = 64 * 1024;
const BATCH_MAX_DOCS = 64;
// why: one call keeps at most this many batches in the pool at once, so one large page does not fill
// the pool's queue ahead of every other request's tasks.
const BATCHES_IN_FLIGHT = 2;
// why: the HTML of page documents is kept up to this many bytes of UTF-8 per process; a document
// whose HTML alone is over an eighth of that is not kept, so one huge document cannot empty the cache.
const CACHE_MAX_BYTES = 64 * 1024 * 1024;
const CACHE_MAX_ENTRY_BYTES = CACHE_MAX_BYTES / 8;
// why: the event loop's own work per document (hashing, cache look-ups) yields after this long.
const SLICE_MS = 8;

// why: the candidates of this many texts' worth of names and ids (a few MB at most).
const CANDIDATES_MAX_WEIGHT = 256 * 1024;

// why: HTML is kept and handed out as UTF-8 bytes: a page writes the same bytes for every reader,
// with no copy and no encoding per request, and they lie outside the JavaScript heap.
const cache = new WeightedLru<Buffer>(CACHE_MAX_BYTES, (html) => html.length + 100);
const encoder = new TextEncoder();
/** Page renders under way, by key. */
const inFlight = new Map<string, Promise<Buffer>>();

/**
 * How a call renders. `page`: the HTML is kept and shared, and a document that runs out of time
 * shows as its escaped text instead of failing the page. `once` (the API, previews): nothing is
 * kept, and running out of time is a 422.
 */
export type RenderUse = 'page' | 'once';

/**
 * The cache key of a document: everything its HTML depends on. why: the reader enters only through
 * `mentionable` and `commits`, which the caller cuts down to the names and ids this text holds, so
 * two readers share an entry exactly when their HTML is the same.
 */
export function renderKey(input: RenderInput): string {
  const facts = JSON.stringify([
    input.mode, input.filePath ?? '', input.breaks ?? false, input.plain ?? false, input.textOnly ?? false, input.links.app, input.links.repo ?? '', input.links.branchPath ?? '', input.links.treePath ?? '',
    [...(input.mentionable ?? [])].sort(), Object.entries(input.commits ?? {}).sort(([a], [b]) => (a < b ? -1 : 1)),
  ]);
  return crypto.createHash('sha256').update(facts).update('\0').update(hashOf(input)).digest('base64');
}

/** The hash of each input's text, made once per input. */
const textHashes = new WeakMap<RenderInput, string>();

function hashOf(input: RenderInput): string {
  let h = textHashes.get(input);
  if (h === undefined) textHashes.set(input, (h = crypto.createHash('sha256').update(input.text).digest('base64')));
  return h;
}

// why: finding a text's `@names` and hex words costs several times its hash, and every view of a
// page needs them (they decide the reader's facts); they depend on the text alone.
const candidates = new WeightedLru<{ users: string[]; shas: string[] }>(CANDIDATES_MAX_WEIGHT, (c) => 64 + c.users.length + c.shas.length);

/** The `@name` and commit-id candidates of a document's text (at most `max` of each), kept by the text's hash. */
export function candidatesOf(input: RenderInput, max: number): { users: string[]; shas: string[] } {
  const key = `${max}\0${hashOf(input)}`;
  const hit = candidates.get(key);
  if (hit) return hit;
  const c = referenceCandidates(input.text);
  const out = { users: c.users.slice(0, max), shas: c.shas.slice(0, max) };
  candidates.set(key, out);
  return out;
}

/** Yields to the event loop once `SLICE_MS` of work has run since the last yield. */
export class Slicer {
  private since = performance.now();

  /** Yield if this slice is used up. */
  async tick(): Promise<void> {
    if (performance.now() - this.since < SLICE_MS) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.since = performance.now();
  }
}

/** A document this call renders itself: its key and every index of the call that has it. */
interface Job { key: string; input: RenderInput; at: number[] }

/** The sanitized HTML of each input, in order, as UTF-8. */
export async function renderAll(inputs: RenderInput[], use: RenderUse): Promise<Buffer[]> {
  const out = new Array<Buffer>(inputs.length);
  const waits: Promise<void>[] = [];
  const jobs = new Map<string, Job>();
  const slicer = new Slicer();
  for (let i = 0; i < inputs.length; i++) {
    const key = renderKey(inputs[i]);
    const job = jobs.get(key);
    const hit = use === 'page' && !job ? cache.get(key) : undefined;
    const running = use === 'page' && !job && hit === undefined ? inFlight.get(key) : undefined;
    if (job) job.at.push(i);
    else if (hit !== undefined) out[i] = hit;
    else if (running) waits.push(running.then((html) => { out[i] = html; }));
    else jobs.set(key, { key, input: inputs[i], at: [i] });
    await slicer.tick();
  }
  const todo = [...jobs.values()];
  const place = (job: Job, html: Buffer) => { for (const i of job.at) out[i] = html; };
  if (todo.reduce((n, j) => n + j.input.text.length, 0) <= INLINE_MAX_CHARS) {
    for (const job of todo) {
      // why: bytes of its own (not a view of Buffer's shared slab), as the pool's are, for the cache to keep.
      const bytes = encoder.encode(render(job.input));
      const html = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      place(job, html);
      if (use === 'page') keep(job.key, html);
    }
  } else {
    waits.push(renderInPool(todo, use, place));
  }
  await Promise.all(waits);
  return out;
}

function keep(key: string, html: Buffer): void {
  if (html.length <= CACHE_MAX_ENTRY_BYTES) cache.set(key, html);
}

/** Split jobs into batches of at most BATCH_MAX_CHARS of text (a larger document alone) and BATCH_MAX_DOCS documents. */
function batchesOf(jobs: Job[]): Job[][] {
  const batches: Job[][] = [];
  let chars = 0;
  for (const job of jobs) {
    const last = batches[batches.length - 1];
    const n = job.input.text.length;
    if (!last || chars + n > BATCH_MAX_CHARS || last.length >= BATCH_MAX_DOCS) {
      batches.push([job]);
      chars = n;
    } else {
      last.push(job);
      chars += n;
    }
  }
  return batches;
}

/** Render `jobs` in the pool, at most BATCHES_IN_FLIGHT batches at a time; a page's jobs are shared with readers who ask meanwhile. */
async function renderInPool(jobs: Job[], use: RenderUse, place: (job: Job, html: Buffer) => void): Promise<void> {
  const settle = new Map<string, { resolve: (html: Buffer) => void; reject: (err: unknown) => void }>();
  if (use === 'page') {
    for (const { key } of jobs) {
      const p = new Promise<Buffer>((resolve, reject) => settle.set(key, { resolve, reject }));
      // why: nobody may be waiting for it; a failed render must not become an unhandled rejection.
      p.catch(() => undefined);
      inFlight.set(key, p);
    }
  }
  const done = (key: string, result: { html: Buffer } | { err: unknown }) => {
    const s = settle.get(key);
    if (!s) return;
    settle.delete(key);
    inFlight.delete(key);
    if ('html' in result) s.resolve(result.html);
    else s.reject(result.err);
  };
  const timeoutMs = settings().markup.renderTimeout * 1000;
  const batches = batchesOf(jobs);
  let next = 0;
  const worker = async () => {
    while (next < batches.length) {
      const batch = batches[next++];
      try {
        const results = await runTask('renderMarkupBatch', { inputs: batch.map((j) => j.input), timeoutMs });
        batch.forEach((job, k) => {
          const r = results[k];
          if (!r.rendered && use === 'once') throw new Validation(`the document took longer than ${timeoutMs / 1000} s to render`);
          // why: a Buffer view of the bytes the thread sent, without a copy.
          const html = Buffer.from(r.html.buffer, r.html.byteOffset, r.html.byteLength);
          place(job, html);
          if (r.rendered && use === 'page') keep(job.key, html);
          done(job.key, { html });
        });
      } catch (err) {
        for (const job of batch) done(job.key, { err });
        throw err;
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(BATCHES_IN_FLIGHT, batches.length) }, worker));
  } finally {
    // why: batches never sent (another failed first) leave no waiter hanging.
    for (const key of [...settle.keys()]) done(key, { err: new Error('the render was abandoned') });
  }
}
