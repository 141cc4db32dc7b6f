/**
 * Matching user-supplied regular expressions (tag protection `/regex/` patterns) against names.
 * why: V8's regex engine backtracks; each match runs in a vm context with a deadline, which V8
 * interrupts inside the regex, so a pathological pattern costs one pool thread a bounded time and
 * the thread stays usable (terminating a thread that has native modules loaded is not safe).
 */
import vm from 'node:vm';
import { taskError } from '../errors';

/** Arguments of matchRegexes: the patterns, the names, and the time budget for all of them. */
export interface MatchRegexesArgs { regexes: { source: string; flags: string }[]; names: string[]; timeoutMs: number }

const context = vm.createContext({});
const script = new vm.Script('re.test(name)');

/**
 * result[i][j]: does regex i match name j (unanchored, as Go's MatchString)? Invalid regexes match
 * nothing. Running out of time is a 503 task error.
 */
export async function matchRegexes({ regexes, names, timeoutMs }: MatchRegexesArgs): Promise<boolean[][]> {
  const deadline = Date.now() + timeoutMs;
  return regexes.map(({ source, flags }) => {
    let re: RegExp;
    try {
      re = new RegExp(source, flags.replace(/[^imsu]/g, ''));
    } catch {
      return names.map(() => false);
    }
    return names.map((name) => {
      const left = deadline - Date.now();
      if (left <= 0) throw taskError(503, 'pattern matching ran out of time');
      context.re = re;
      context.name = name;
      try {
        return script.runInContext(context, { timeout: left }) === true;
      } catch {
        throw taskError(503, 'pattern matching ran out of time');
      }
    });
  });
}
