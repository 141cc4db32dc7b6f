/**
 * The order in which the API's routes are tried. tsoa registers its controllers in file order, so
 * `/repos/issues/search` could land after `/repos/{owner}/{repo}` and `/issues/comments` after
 * `/issues/{index}`, and the parameter would take the literal. Routes are re-ordered so that at
 * the first segment where two routes differ, a literal segment is tried before a parameter (and a
 * segment mixing parameters with literal text before a bare parameter).
 */
import type { Router } from 'express';

interface Layer { route?: { path: string } }

/**
 * Segment kinds of a route path: 0 for a literal, 1 for parameters with literal text between them
 * (`:index.:diffType`), 2 for a bare parameter, which would also take what the others match.
 */
function kinds(path: string): number[] {
  return path.split('/').filter(Boolean).map((s) => (!s.startsWith(':') ? 0 : /^:\w+$/.test(s) ? 2 : 1));
}

function compare(a: number[], b: number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i] - b[i];
  // why: a total order (routes of different lengths never match the same path, so this part only keeps the sort consistent).
  return a.length - b.length;
}

/** Run `register` on `router`, then order the routes it added literal-first (stable otherwise). */
export function registerLiteralFirst(router: Router, register: (r: Router) => void): void {
  const stack = (router as unknown as { stack: Layer[] }).stack;
  const start = stack.length;
  register(router);
  const added = stack.splice(start);
  // why: Array.prototype.sort is stable, so routes that cannot compete keep tsoa's order.
  added.sort((x, y) => compare(kinds(x.route?.path ?? ''), kinds(y.route?.path ?? '')));
  stack.push(...added);
}
