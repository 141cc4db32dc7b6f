/**
 * Asset uploads (`POST /repos/{owner}/{repo}/releases/{id}/assets`) keep their body unread: the
 * controller streams it to disk (multipart or raw), so no body parser may buffer it first. Mount on
 * the API router before the body parsers.
 */
import type { Request, Response, NextFunction, RequestHandler } from 'express';

const UPLOAD = /^\/repos\/[^/]+\/[^/]+\/releases\/[^/]+\/assets\/?(\?.*)?$/;

/** The middleware. */
export function streamedUploads(): RequestHandler {
  return (req: Request, _res: Response, next: NextFunction) => {
    // why: body-parser skips a request already marked as parsed; the upload is read as a stream instead.
    if (req.method === 'POST' && UPLOAD.test(req.url)) (req as Request & { _body?: boolean })._body = true;
    next();
  };
}
