/**
 * Rendering a large document off the event loop, within a time limit.
 * why: as for user regexes (patterns.ts), the deadline is a vm timeout, which V8 enforces inside any
 * JavaScript the script calls; terminating the thread instead is not safe with native modules loaded.
 */
import vm from 'node:vm';
import { render, type RenderInput } from '../../src/markup';
import { taskError } from '../errors';

/** Arguments of renderMarkup: the document and the time it may take. */
export interface RenderMarkupArgs { input: RenderInput; timeoutMs: number }

const context = vm.createContext({});
const script = new vm.Script('run()');

/** The sanitized HTML of a document; running out of time is a 422 task error. */
export async function renderMarkup({ input, timeoutMs }: RenderMarkupArgs): Promise<string> {
  context.run = () => render(input);
  try {
    return script.runInContext(context, { timeout: timeoutMs }) as string;
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') throw taskError(422, `the document took longer than ${timeoutMs / 1000} s to render`);
    throw err;
  } finally {
    context.run = undefined;
  }
}
