/**
 * The internal API the server-owned hooks call over loopback (`/api/internal/hook/pre-receive` and
 * `/post-receive`), authorized by the instance's internal token. Refusals carry the message git
 * prints to the pusher.
 */
import crypto from 'node:crypto';
import express, { type Request, type Response, type NextFunction, type Router } from 'express';
import { settings } from '../config';
import { Unauthorized } from '../errors';
import { preReceive, postReceive, type HookRequest } from '../services/git-push/hook.service';

function tokenMatches(header: string | undefined): boolean {
  const want = Buffer.from(`Bearer ${settings().security.internalToken}`);
  const got = Buffer.from(header ?? '');
  return want.length === got.length && crypto.timingSafeEqual(want, got);
}

function requireInternalToken(req: Request, _res: Response, next: NextFunction): void {
  next(tokenMatches(req.headers.authorization) ? undefined : new Unauthorized('invalid internal token'));
}

function hook(fn: (r: HookRequest) => Promise<void>) {
  return (req: Request, res: Response, next: NextFunction): void => {
    fn(req.body as HookRequest).then(() => res.json({}), next);
  };
}

/** The internal routes; mount before the public API's authentication. */
export function internalRouter(): Router {
  const r = express.Router();
  r.use('/api/internal', requireInternalToken, express.json({ limit: '64mb' }));
  r.post('/api/internal/hook/pre-receive', hook(preReceive));
  r.post('/api/internal/hook/post-receive', hook(postReceive));
  return r;
}
