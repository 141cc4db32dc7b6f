/**
 * Git LFS over HTTP under `/{owner}/{repo}(.git)/info/lfs`: the batch API, basic transfer
 * (PUT/GET objects, verify) and the locking API, as Gitea routes them. Everything answers 404 while
 * [server] LFS_START_SERVER is off. Callers authenticate like git over HTTP (Basic with a password or
 * token, or a token header) or with an LFS bearer token minted for one repository and operation.
 */
import http from 'node:http';
import { pipeline } from 'node:stream';
import express, { type Request, type Response, type NextFunction, type Router, type RequestHandler } from 'express';
import { settings } from '../config';
import { HttpError, NotFound, Unauthorized, Validation, BadRequest } from '../errors';
import { renamedLocation } from '../errors/mapper';
import { authenticate } from '../middleware/auth';
import { bodyGuard } from '../middleware/input-guard';
import { ctxOf } from '../middleware/context';
import { LFS_AUTH_HEADERS, principalForLfsToken } from '../services/lfs/access';
import { verifyLfsToken, type LfsGrant } from '../services/lfs/token';
import { openObject } from '../services/lfs/content-store';
import { LFS_MEDIA_TYPE, lfsBatch, lfsDownloadable, lfsUpload, lfsVerify, type LfsCaller } from '../services/lfs/objects.service';
import { createLock, listLocks, unlock, verifyLocks, type LockView } from '../services/lfs/locks.service';
import { toLfsLock } from '../convert/lfs';
import type { LfsErrorBody } from '../api/lfs';
import { log } from '../log';

const NAME = /^[A-Za-z0-9_.-]+$/;
const BASE = '/:owner/:repo/info/lfs';

function send(res: Response, status: number, body: unknown): void {
  res.status(status).type(LFS_MEDIA_TYPE).send(JSON.stringify(body));
}

/** The caller of this request (set by `identify`). */
function caller(req: Request, res: Response): LfsCaller {
  const owner = req.params.owner;
  const repo = req.params.repo.replace(/\.git$/i, '');
  // why: names that cannot exist answer like a missing repository.
  if (!NAME.test(owner) || !NAME.test(repo)) throw new NotFound('Not Found');
  return { ctx: ctxOf(req), p: req.principal, grant: (res.locals.lfsGrant as LfsGrant | undefined) ?? null, owner, repo, authorization: req.headers.authorization };
}

/** 404 for every LFS route while the LFS server is off. */
function enabled(_req: Request, _res: Response, next: NextFunction): void {
  next(settings().server.lfsStartServer ? undefined : new NotFound('Not Found'));
}

/**
 * An LFS bearer token (`Bearer`/`token` with a dotted value) identifies the caller for this one repository;
 * any other credentials go through the usual authentication.
 */
function identify(): RequestHandler {
  // why: git clients cannot send a one-time code; with a second factor on, the password is refused (a token works).
  const auth = authenticate('refuse');
  return (req, res, next) => {
    const m = /^(?:bearer|token)\s+(\S+\.\S+)$/i.exec(req.headers.authorization ?? '');
    if (!m) { auth(req, res, next); return; }
    const grant = verifyLfsToken(m[1]);
    // why: like Gitea, a dotted token that is not ours falls through to the usual token check.
    if (!grant) { auth(req, res, next); return; }
    principalForLfsToken(ctxOf(req), grant).then((p) => {
      if (!p) throw new Unauthorized('Unauthorized');
      req.principal = p;
      res.locals.lfsGrant = grant;
      next();
    }).catch(next);
  };
}

/** Gitea's CheckAcceptMediaType: JSON endpoints need `Accept: application/vnd.git-lfs+json`. */
function acceptLfs(req: Request, _res: Response, next: NextFunction): void {
  const accept = String(req.headers.accept ?? '').split(';')[0].trim().toLowerCase();
  next(accept === LFS_MEDIA_TYPE ? undefined : new HttpError(415, 'Unsupported Media Type'));
}

/**
 * A JSON body of any content type; unparsable JSON is `onError` (400, or 422 for verify as in
 * Gitea), a NUL in any string 422. `limit` bounds what is parsed at all (bytes or '10mb').
 */
function jsonBody(onError: () => HttpError = () => new BadRequest('Bad Request'), limit: number | string = '10mb'): RequestHandler {
  const parse = express.json({ type: () => true, limit, strict: false });
  const guard = bodyGuard();
  return (req, res, next) => parse(req, res, (err?: unknown) => {
    const e = err as { type?: string; status?: number } | undefined;
    if (e?.type === 'entity.parse.failed') { next(onError()); return; }
    if (err) { next(err); return; }
    guard(req, res, next);
  });
}

/**
 * The body bound of a batch request: room for [server] LFS_MAX_BATCH_SIZE objects.
 * why: a body is parsed in one piece on the event loop; a batch that may not be answered is not parsed.
 */
function batchBodyLimit(): number | string {
  const max = settings().server.lfsMaxBatchSize;
  return max > 0 ? Math.max(256 * 1024, max * 256) : '10mb';
}

function wrap(fn: (req: Request, res: Response) => Promise<void>): RequestHandler {
  return (req, res, next) => { fn(req, res).catch(next); };
}

const lockOut = (v: LockView) => toLfsLock(v.lock, v.ownerName);

async function download(req: Request, res: Response): Promise<void> {
  const meta = await lfsDownloadable(caller(req, res), req.params.oid);
  let from = 0;
  let to = meta.size - 1;
  let status = 200;
  const m = /^bytes=(\d+)-(\d*)/.exec(String(req.headers.range ?? ''));
  if (m) {
    from = Number(m[1]);
    if (from >= meta.size) throw new HttpError(416, 'Requested Range Not Satisfiable');
    const end = m[2] === '' ? to : Number(m[2]);
    if (end >= from && end < to) to = end;
    status = 206;
    res.setHeader('Content-Range', `bytes ${from}-${to}/${meta.size}`);
    res.setHeader('Access-Control-Expose-Headers', 'Content-Range');
  }
  if (req.params.filename) {
    const name = Buffer.from(req.params.filename, 'base64url').toString('utf8');
    const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
    res.setHeader('Content-Disposition', `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`);
    res.setHeader('Access-Control-Expose-Headers', 'Content-Disposition');
  }
  res.status(status);
  res.setHeader('Content-Type', 'application/octet-stream');
  res.setHeader('Content-Length', String(Math.max(0, to + 1 - from)));
  if (req.method === 'HEAD' || meta.size === 0) { res.end(); return; }
  pipeline(openObject(meta.oid, from, to), res, () => undefined);
}

async function upload(req: Request, res: Response): Promise<void> {
  const size = req.params.size ?? (req.headers['content-length'] as string | undefined);
  await lfsUpload(caller(req, res), req.params.oid, size, req);
  res.status(200).end();
}

/** Errors as LFS JSON with the request id; 401 carries the Basic challenge. */
function lfsErrors(err: unknown, req: Request, res: Response, _next: NextFunction): void {
  if (res.headersSent) { res.destroy(); return; }
  // why: as Gitea (and as git over HTTP here), a repository under an account's old name answers 307 to the new one; git-lfs follows it.
  const moved = renamedLocation(err, req.originalUrl);
  if (moved) { res.redirect(307, moved); return; }
  let status = 500;
  let message = 'Internal Server Error';
  let headers: Record<string, string> = {};
  if (err instanceof HttpError) {
    ({ status, message, headers } = err);
  } else if (typeof (err as { status?: unknown })?.status === 'number' && (err as { status: number }).status < 500) {
    status = (err as { status: number }).status;
    message = http.STATUS_CODES[status] ?? 'Bad Request';
  } else {
    log.error(`[${req.requestId}] ${req.method} ${req.originalUrl}:`, err);
  }
  if (status === 401) headers = { ...headers, ...LFS_AUTH_HEADERS };
  for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  const body: LfsErrorBody = { message, request_id: req.requestId };
  send(res, status, body);
}

/** The LFS routes; mount before the git smart HTTP router. */
export function lfsRouter(): Router {
  const r = express.Router();
  r.use(BASE, enabled, identify());
  r.post(`${BASE}/objects/batch`, acceptLfs, jsonBody(undefined, batchBodyLimit()), wrap(async (req, res) => send(res, 200, await lfsBatch(caller(req, res), req.body))));
  r.put(`${BASE}/objects/:oid/:size`, wrap(upload));
  r.put(`${BASE}/objects/:oid`, wrap(upload));
  r.get(`${BASE}/objects/:oid/:filename`, wrap(download));
  r.get(`${BASE}/objects/:oid`, wrap(download));
  const verify = wrap(async (req, res) => { await lfsVerify(caller(req, res), req.body); send(res, 200, { message: 'OK' }); });
  // why: Gitea's verify link is info/lfs/verify; objects/verify is accepted too for clients that build it.
  for (const p of [`${BASE}/verify`, `${BASE}/objects/verify`]) r.post(p, acceptLfs, jsonBody(() => new Validation('Oid or size are invalid')), verify);
  r.get(`${BASE}/locks`, acceptLfs, wrap(async (req, res) => {
    const out = await listLocks(caller(req, res), req.query as Record<string, unknown>);
    send(res, 200, { locks: out.locks.map(lockOut), ...(out.next ? { next_cursor: out.next } : {}) });
  }));
  r.post(`${BASE}/locks`, acceptLfs, jsonBody(), wrap(async (req, res) => {
    const out = await createLock(caller(req, res), req.body);
    if (out.created) send(res, 201, { lock: lockOut(out.view) });
    else send(res, 409, { lock: lockOut(out.view), message: 'already created lock', request_id: req.requestId });
  }));
  r.post(`${BASE}/locks/verify`, acceptLfs, jsonBody(), wrap(async (req, res) => {
    const out = await verifyLocks(caller(req, res), req.body, req.query as Record<string, unknown>);
    send(res, 200, { ours: out.ours.map(lockOut), theirs: out.theirs.map(lockOut), ...(out.next ? { next_cursor: out.next } : {}) });
  }));
  r.post(`${BASE}/locks/:lid/unlock`, acceptLfs, jsonBody(), wrap(async (req, res) => {
    send(res, 200, { lock: lockOut(await unlock(caller(req, res), req.params.lid, req.body)) });
  }));
  r.all([BASE, `${BASE}/*`], (_req, _res, next) => next(new NotFound('Not Found')));
  r.use(BASE, lfsErrors);
  return r;
}
