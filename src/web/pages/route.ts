/**
 * Small wrappers the page routes share: async handlers whose errors reach the HTML error page,
 * JSON routes for the page script (errors as Gitea's `{message}`), and the signed-in guard.
 */
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { settings } from '../../config';
import { HttpError } from '../../errors';
import type { UserModel } from '../../models/user.model';
import { bodyGuard } from '../../middleware/input-guard';

type Handler = (req: Request, res: Response) => Promise<unknown>;

/** An async page handler; a thrown error renders the error page. */
export function page(fn: Handler): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => { fn(req, res).catch(next); };
}

/** An async JSON handler for the page script; a thrown HttpError answers `{message}` with its status. */
export function jsonRoute(fn: Handler): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    fn(req, res).catch((err: unknown) => {
      if (err instanceof HttpError && !res.headersSent) res.status(err.status).json({ message: err.message });
      else next(err);
    });
  };
}

/** A small JSON body, checked like the API's. */
export function jsonBody(): RequestHandler[] {
  return [express.json({ limit: '64kb' }), bodyGuard()];
}

/** A page for signed-in users: the user, or a redirect to sign in that comes back here (then null). */
export function signedIn(req: Request, res: Response): UserModel | null {
  const user = req.web.principal.user;
  if (user) return user;
  res.redirect(303, `${settings().server.rootUrl}user/login?redirect_to=${encodeURIComponent(req.originalUrl)}`);
  return null;
}
