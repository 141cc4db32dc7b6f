/**
 * The internal API, authorized by the instance's internal token: what the server-owned hooks call
 * over loopback (`/api/internal/hook/pre-receive` and `/proc-receive`; refusals
 * carry the message git prints to the pusher), and `/api/internal/cache/table-written`
 * ({"table": name}) for one who changed a table behind the server's back (SQL by hand, test
 * fixtures): every process drops what it cached from that table, as after its own writes.
 */
import crypto from 'node:crypto';
import express, { type Request, type Response, type NextFunction, type Router } from 'express';
import { settings } from '../config';
import { systemCtx, tableWritten } from '../db';
import { Unauthorized, Validation } from '../errors';
import { preReceive, type HookRequest } from '../services/git-serve/hook.service';
import { procReceive, type ProcReceiveRequest } from '../services/pull/agit.service';


function tokenMatches(header: string | undefined): boolean {
  const want = Buffer.from(`Bearer ${settings().security.internalToken}`);
  const got = Buffer.from(header ?? '');
  return want.length === got.length && crypto.timingSafeEqual(want, got);
}

function requireInternalToken(req: Request, _res: Response, next: NextFunction): void {
  next(tokenMatches(req.headers.authorization) ? undefined : new Unauthorized('invalid internal token'));
}

/** The internal routes; mount before the public API's authentication. */
export function internalRouter(): Router {
  const r = express.Router();
  r.use('/api/internal', requireInternalToken, express.json({ limit: '64mb' }));
  r.post('/api/internal/hook/pre-receive', (req: Request, res: Response, next: NextFunction) => {
    preReceive(req.body as HookRequest).then((after) => res.json(after ? { after } : {}), next);
  });
  r.post('/api/internal/hook/proc-receive', (req: Request, res: Response, next: NextFunction) => {
    procReceive(req.body as ProcReceiveRequest, systemCtx).then((answer) => res.json(answer), next);
  });
  r.post('/api/internal/cache/table-written', (req: Request, res: Response, next: NextFunction) => {
    const table = (req.body as { table?: unknown })?.table;
    if (typeof table !== 'string' || !/^\w+$/.test(table)) return next(new Validation('table: the name of a table'));
    // why: answered once every worker of this node has dropped what it cached, so the next read anywhere is fresh.
    tableWritten(table).then(() => res.json({}), next);
  });
  return r;
}
