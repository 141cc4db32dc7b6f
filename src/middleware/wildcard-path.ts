/**
 * Routes whose last parameter is a path with slashes (Gitea's `*`): `/contents/{filepath}`,
 * `/contents-ext/{filepath}`, `/raw/{filepath}`, `/media/{filepath}` and `/git/refs/{ref}`. The slashes
 * of that tail are percent-encoded before routing, so the tsoa route's single-segment parameter
 * matches it, and Express decodes it back into the full path.
 */
import type { Request, Response, NextFunction } from 'express';

const TAIL = /^(\/repos\/[^/]+\/[^/]+\/(?:contents|contents-ext|raw|media|git\/refs))\/(.+)$/;

/** Encode the slashes of a wildcard route's path tail (runs before the API routes). */
export function wildcardPaths(req: Request, _res: Response, next: NextFunction): void {
  const q = req.url.indexOf('?');
  const pathname = q < 0 ? req.url : req.url.slice(0, q);
  const m = TAIL.exec(pathname);
  if (m) {
    const tail = m[2].replace(/\/+$/, '');
    req.url = (tail ? `${m[1]}/${tail.replace(/\//g, '%2F')}` : m[1]) + (q < 0 ? '' : req.url.slice(q));
  }
  next();
}
