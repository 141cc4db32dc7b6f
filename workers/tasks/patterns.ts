/**
 * Matching user-supplied regular expressions (tag protection `/regex/` patterns) against names.
 * why: V8's regex engine backtracks; here a pathological pattern only stalls one pool thread,
 * which the caller's time limit terminates, never the event loop.
 */

/** Arguments of matchRegexes. */
export interface MatchRegexesArgs { regexes: { source: string; flags: string }[]; names: string[] }

/** result[i][j]: does regex i match name j (unanchored, as Go's MatchString)? Invalid regexes match nothing. */
export async function matchRegexes({ regexes, names }: MatchRegexesArgs): Promise<boolean[][]> {
  return regexes.map(({ source, flags }) => {
    let re: RegExp;
    try {
      re = new RegExp(source, flags.replace(/[^imsu]/g, ''));
    } catch {
      return names.map(() => false);
    }
    return names.map((n) => re.test(n));
  });
}
