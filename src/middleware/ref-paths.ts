/**
 * Request shaping for the ref and asset routes, mounted before the body parsers:
 * - branch and tag names may contain `/` (`/branches/feature/x`, `/tags/release/1.0`); the tail of
 *   those paths is re-encoded as one segment so the `{branch}`/`{tag}` parameter receives it whole;
 * - asset uploads (`POST .../releases/{id}/assets`) keep their body unread: the controller streams
 *   it (multipart or raw), so no parser may buffer it first.
 */
import type { Request, Response, NextFunction, RequestHandler } from 'express';

const WILDCARD = /^\/repos\/([^/]+)\/([^/]+)\/(branches|tags)\/(.+)$/;
const UPLOAD = /^\/repos\/[^/]+\/[^/]+\/releases\/[^/]+\/assets\/?$/;

/** The middleware; mount on the API router before the body parsers. */
export function refPaths(): RequestHandler {
  return (req: Request, _res: Response, next: NextFunction) => {
    const q = req.url.indexOf('?');
    const pathname = q < 0 ? req.url : req.url.slice(0, q);
    const query = q < 0 ? '' : req.url.slice(q);
    const m = WILDCARD.exec(pathname);
    if (m && m[4].includes('/')) req.url = `/repos/${m[1]}/${m[2]}/${m[3]}/${m[4].split('/').join('%2F')}${query}`;
    // why: body-parser skips a request already marked as parsed; the upload is read as a stream instead.
    if (req.method === 'POST' && UPLOAD.test(pathname)) (req as Request & { _body?: boolean })._body = true;
    next();
  };
}
