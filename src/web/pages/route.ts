/**
 * Small wrappers the page routes share: async handlers whose errors reach the HTML error page,
 * JSON routes for the page script (errors as Gitea's `{message}`), and the signed-in guard.
 */
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { settings } from '../../config';
import { HttpError, NotFound } from '../../errors';
import type { UserModel } from '../../models/user.model';
import { ctxOf } from '../../middleware/context';
import { bodyGuard } from '../../middleware/input-guard';
import { repoAssignment, type RepoContext } from '../../services/repo/context';

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

/** The repository of a `/:owner/:repo/...` page, as the caller may see it (404 like the API). */
export function pageRepo(req: Request): Promise<RepoContext> {
  return repoAssignment(ctxOf(req), req.principal, String(req.params.owner), String(req.params.repo));
}

/** The `:index` of an issue or pull request page (404 for anything but a positive integer). */
export function pageIndex(req: Request): number {
  const n = Number(req.params.index);
  if (!Number.isInteger(n) || n < 1) throw new NotFound();
  return n;
}

/** The path of a repository's pages, `/{sub}/{owner}/{repo}`. */
export function repoHome(rc: { owner: { name: string }; repo: { name: string } }): string {
  return `${new URL(settings().server.rootUrl).pathname}${rc.owner.name}/${rc.repo.name}`;
}

/** A list page's `?page=` (1 when absent or bad). */
export function pageNumber(req: Request): number {
  return Math.max(1, Math.floor(Number(req.query.page)) || 1);
}

/** A list page's `?state=`: open (the default), closed or all. */
export function listState(req: Request): 'open' | 'closed' | 'all' {
  return req.query.state === 'closed' ? 'closed' : req.query.state === 'all' ? 'all' : 'open';
}
