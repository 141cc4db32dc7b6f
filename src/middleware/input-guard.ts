/**
 * Bytes no handler should ever see, refused once for every route before routing: a path segment
 * that is not valid percent-encoded UTF-8 or holds a NUL (404: no name can contain it), a NUL in
 * a query value or in a JSON or form body (422 naming the field), and numeric path ids beyond the
 * database's integer range (404: no such row can exist). Form bodies reach handlers as plain
 * strings, the first value of a repeated field winning, as Go's FormValue does for Gitea.
 */
import express, { type Request, type Response, type NextFunction, type RequestHandler } from 'express';
import { NotFound, Validation } from '../errors';

/** The largest id a row can have (the columns are 32-bit integers on PostgreSQL). */
export const MAX_ROW_ID = 2_147_483_647;

/** Is every segment of the raw path valid percent-encoded UTF-8 without NUL? */
function pathIsClean(rawPath: string): boolean {
  for (const segment of rawPath.split('/')) {
    if (!segment.includes('%')) continue;
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      return false;
    }
    if (decoded.includes('\0')) return false;
  }
  return true;
}

/** The dotted name of the first string (value or key) in `v` that holds a NUL, or null. */
function findNul(v: unknown, at = ''): string | null {
  if (typeof v === 'string') return v.includes('\0') ? at || 'body' : null;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const hit = findNul(v[i], `${at}[${i}]`);
      if (hit) return hit;
    }
    return null;
  }
  if (v && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) {
      const name = at ? `${at}.${k}` : k;
      if (k.includes('\0')) return name;
      const hit = findNul(x, name);
      if (hit) return hit;
    }
  }
  return null;
}

/** App-level guard for the path and the query string; mount first. */
export function inputGuard(): RequestHandler {
  return (req: Request, _res: Response, next: NextFunction) => {
    const q = req.url.indexOf('?');
    const rawPath = q < 0 ? req.url : req.url.slice(0, q);
    if (rawPath.includes('\0') || !pathIsClean(rawPath)) return next(new NotFound());
    const field = findNul(req.query);
    if (field) return next(new Validation(`query parameter ${field}: must not contain a NUL character`));
    next();
  };
}

/** After a body parser: refuse a NUL anywhere in the parsed body. */
export function bodyGuard(): RequestHandler {
  return (req: Request, _res: Response, next: NextFunction) => {
    const field = findNul(req.body);
    next(field ? new Validation(`${field}: must not contain a NUL character`) : undefined);
  };
}

/** Route parameters that name a row by number: beyond the integer range, no row can match. */
export function guardRowIds(router: express.Router, names: string[]): void {
  for (const name of names) {
    router.param(name, (_req, _res, next, value: string) => {
      next(/^\d+$/.test(value) && Number(value) > MAX_ROW_ID ? new NotFound() : undefined);
    });
  }
}

/**
 * A urlencoded form body as a map of strings: a repeated field keeps its first value, so a handler
 * reading `body.user_name` always gets a string or undefined.
 */
export function formBody(limit = '64kb'): RequestHandler[] {
  const parse = express.urlencoded({ extended: false, limit });
  const flatten: RequestHandler = (req, _res, next) => {
    const raw = (req.body ?? {}) as Record<string, unknown>;
    const out: Record<string, string> = Object.create(null) as Record<string, string>;
    for (const [k, v] of Object.entries(raw)) {
      const first = Array.isArray(v) ? v[0] : v;
      if (typeof first === 'string') out[k] = first;
    }
    req.body = out;
    next();
  };
  return [parse, flatten, bodyGuard()];
}
