/**
 * Rendering a large document off the event loop, within a time limit.
 * why: as for user regexes (patterns.ts), the deadline is a vm timeout, which V8 enforces inside any
 * JavaScript the script calls; terminating the thread instead is not safe with native modules loaded.
 */
import vm from 'node:vm';
import { highlightFile as highlight, plainText, render, type RenderInput } from '../../src/markup';
import { taskError } from '../errors';

/** Arguments of renderMarkup: the document and the time it may take. */
export interface RenderMarkupArgs { input: RenderInput; timeoutMs: number }

const context = vm.createContext({});
const encoder = new TextEncoder();
const script = new vm.Script('run()');

/** Run `fn` within `timeoutMs`; null when time ran out. */
function bounded<T>(fn: () => T, timeoutMs: number): T | null {
  context.run = fn;
  try {
    return script.runInContext(context, { timeout: timeoutMs }) as T;
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') return null;
    throw err;
  } finally {
    context.run = undefined;
  }
}

/** The sanitized HTML of a document; running out of time is a 422 task error. */
export async function renderMarkup({ input, timeoutMs }: RenderMarkupArgs): Promise<string> {
  const html = bounded(() => render(input), timeoutMs);
  if (html === null) throw taskError(422, `the document took longer than ${timeoutMs / 1000} s to render`);
  return html;
}

/** Arguments of renderMarkupBatch: the documents of one page and the time each may take. */
export interface RenderBatchArgs { inputs: RenderInput[]; timeoutMs: number }

/** One document of a batch: its HTML as UTF-8, and whether it rendered (false: its text escaped, out of time). */
export interface BatchResult { html: Uint8Array; rendered: boolean }

/**
 * The sanitized HTML of several documents, each within `timeoutMs`. why: a page of many documents is
 * sent in a few batches, not one task per document; one document that runs out of time shows as its
 * escaped text and does not take the others (or the page) down with it.
 */
export async function renderMarkupBatch({ inputs, timeoutMs }: RenderBatchArgs): Promise<BatchResult[]> {
  return inputs.map((input) => {
    const html = bounded(() => render(input), timeoutMs);
    // why: TextEncoder gives each document bytes of its own; a small Buffer would be a view of a shared
    // slab, which the message would carry whole and the cache would keep alive.
    return html === null ? { html: encoder.encode(plainText(input.text)), rendered: false } : { html: encoder.encode(html), rendered: true };
  });
}

/** Arguments of highlightFile: a text file, its name (for its language) and the time it may take. */
export interface HighlightArgs { text: string; fileName: string; timeoutMs: number }

/** A source file highlighted, or null when that took too long (the page shows it plain). */
export async function highlightFile({ text, fileName, timeoutMs }: HighlightArgs): Promise<ReturnType<typeof highlight> | null> {
  return bounded(() => highlight(text, fileName), timeoutMs);
}
