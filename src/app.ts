/**
 * Express assembly: request id, parsers, CORS, authentication, the tsoa API routes, the web UI,
 * and the one error handler that writes Gitea's error body.
 */
import crypto from 'node:crypto';
import http from 'node:http';
import { isTrustedProxy, trustProxy } from './middleware/proxy';
import express, { type Request, type Response, type NextFunction, type Express } from 'express';
import { RegisterRoutes } from './generated/routes';
import { settings } from './config';
import { authenticate } from './middleware/auth';
import { greedyParams } from './middleware/greedy-params';
import { registerLiteralFirst } from './middleware/route-order';
import { streamedUploads } from './middleware/streamed-uploads';
import { bodyGuard, guardRowIds, inputGuard } from './middleware/input-guard';
import { RequestCancellation, withCancellation } from './git/cancel';
import { mapError, renamedLocation } from './errors/mapper';
import { NotFound } from './errors';
import { webRouter } from './web';
import { gitHttpRouter } from './web/git-http';
import { internalRouter } from './web/internal';
import { lfsRouter } from './web/lfs';
import { oauth2Router } from './web/oauth2';
import { attachmentsRouter } from './web/attachments';
import { avatarsRouter } from './web/avatars';
import { healthRouter } from './web/health';
import { downloadsRouter } from './web/downloads';
import { runnerRpcHandler, runnerUnaryCall } from './web/runner-rpc';
import { artifactsRouter } from './web/artifacts';
import { packagesRouter } from './web/packages';
import { jsonLines, log } from './log';
import { accessLogHook } from './log/access';
import { countingQueries, type QueryTally } from './db/query-count';

/** The HTTP server of one worker process, serving the Express application. */
export function createWebServer(): http.Server {
  const app = buildApp();
  // why: Express's init middleware gives every request and response the app's prototypes with
  // Object.setPrototypeOf. On objects built by Node's plain classes, V8 then kept about 2 KB of
  // every request alive through two scavenges (99.9% of what survived one survived the next), so
  // it was all promoted: at 2,500 requests/s the old generation filled into a 30-70 ms full
  // collection every few seconds. Built from these classes, the objects already have those
  // prototypes and Express's call changes nothing.
  class ExpressRequest extends http.IncomingMessage {}
  class ExpressResponse extends http.ServerResponse {}
  for (const [cls, proto] of [[ExpressRequest, express.request], [ExpressResponse, express.response]] as const) {
    Object.setPrototypeOf(cls.prototype, proto);
    Object.defineProperty(cls.prototype, 'app', { value: app, configurable: true, enumerable: true, writable: true });
  }
  app.request = ExpressRequest.prototype as Express['request'];
  app.response = ExpressResponse.prototype as Express['response'];
  const access = accessLogHook(ExpressResponse.prototype);
  const countQueries = !!access && jsonLines();
  // why: a runner's unary call skips Express: a thousand runners polling make it the most frequent request.
  return http.createServer({ IncomingMessage: ExpressRequest, ServerResponse: ExpressResponse }, (req, res) => {
    assignRequestId(req as Request, res);
    access?.(req, res);
    if (!countQueries) {
      if (!runnerUnaryCall(req, res)) app(req, res);
      return;
    }
    // why: the JSON access line reports how many statements the request sent (docs/logging.md); the
    // tally follows the request's async work. Counted only for that line: a store on every request
    // costs every promise it makes a little.
    const tally: QueryTally = { n: 0 };
    (res as unknown as { forgeQueries: QueryTally }).forgeQueries = tally;
    countingQueries(tally, () => { if (!runnerUnaryCall(req, res)) app(req, res); });
  });
}

/**
 * Every request's id: the client's X-Request-Id (at most 64 characters) or a new one, answered in
 * X-Request-Id; a logged 500 and the request's access line name it. Set before anything else, so
 * the runners' calls that skip Express have one too.
 */
function assignRequestId(req: Request, res: http.ServerResponse): void {
  req.requestId = (req.headers['x-request-id'] as string | undefined)?.slice(0, 64) || crypto.randomUUID();
  res.setHeader('X-Request-Id', req.requestId);
}

/** The worker's private loopback server for its hooks: the internal API only. */
export function createInternalServer(): http.Server {
  const app = express();
  app.disable('x-powered-by');
  app.use(internalRouter());
  app.use((req: Request, _res: Response, next: NextFunction) => next(new NotFound()));
  app.use(errorHandler());
  return http.createServer(app);
}

/**
 * A text body that is a JSON object is read as JSON. why: Gitea decodes JSON bodies whatever their
 * content type, and clients rely on it (gitea-js sends some bodies, such as IssueMeta, as text/plain).
 */
function jsonInText(req: Request, _res: Response, next: NextFunction): void {
  if (typeof req.body === 'string' && !req.rawText && /^\s*\{/.test(req.body)) {
    try { req.body = JSON.parse(req.body); } catch { /* not JSON: the route sees the text */ }
  }
  next();
}

/** The one error handler: Gitea's body for every failure; a 500 hides internals from non-admins and is logged. */
function errorHandler() {
  const s = settings();
  return (err: unknown, req: Request, res: Response, _next: NextFunction) => {
    const swaggerUrl = `${s.server.rootUrl}api/swagger`;
    const out = mapError(err, swaggerUrl, !!req.principal?.user?.isAdmin);
    if (out.log) log.error(`[${req.requestId ?? '-'}] ${req.method} ${req.originalUrl}:`, err);
    if (res.headersSent) {
      res.destroy();
      return;
    }
    // why: as Gitea, a path under an account's old name answers 307 to the same path under the new one.
    const moved = renamedLocation(err, req.originalUrl);
    if (moved) {
      res.redirect(307, moved);
      return;
    }
    for (const [k, v] of Object.entries(out.headers)) res.setHeader(k, v);
    res.status(out.status).json(out.body);
  };
}

/** Build the Express application of one worker process. */
function buildApp(): Express {
  const app = express();
  const s = settings();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'extended');
  // why: X-Forwarded-For and -Proto count only from the configured proxies (security class 24).
  app.set('trust proxy', trustProxy);
  // why: reading the list once now makes a bad REVERSE_PROXY_TRUSTED_PROXIES stop the start, not fail a request.
  isTrustedProxy('127.0.0.1');

  // why: a malformed escape or a NUL must be refused before any router decodes it or a query carries it to the database.
  app.use(inputGuard());
  // why: git started for a read dies with its client (a crafted tree can keep git busy for hours);
  // writes run to their end, so a change is never cut between git and the database.
  app.use((req: Request, res: Response, next: NextFunction) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    const cancellation = new RequestCancellation();
    res.once('close', () => { if (!res.writableFinished) cancellation.cancel(); });
    withCancellation(cancellation, next);
  });

  app.use(internalRouter());
  app.use(healthRouter());
  app.use('/api/actions', runnerRpcHandler());
  // why: before /api/v1: the raw artifact download there is authorized by its signature, not by the API's authentication.
  app.use(artifactsRouter());
  // why: uploads to the registries are streamed to disk as they arrive; no body parser may take them first.
  app.use(packagesRouter());

  const api = express.Router();
  api.use((req: Request, res: Response, next: NextFunction) => {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('Access-Control-Expose-Headers', 'Link, X-Total-Count, X-Page, X-PerPage, X-Total, X-PageCount, X-HasMore, X-Gitea-Warning, X-Forge-Warning');
    if (req.method === 'OPTIONS') {
      res.setHeader('Access-Control-Allow-Methods', 'GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS');
      res.setHeader('Access-Control-Allow-Headers', 'Authorization, Content-Type, Sudo, X-Gitea-OTP');
      res.status(204).end();
      return;
    }
    next();
  });
  api.use(greedyParams);
  // why: file contents travel base64-encoded in JSON, so the contents routes take bodies up to [repository.upload] FILE_MAX_SIZE.
  const contentsLimit = Math.max(10 * 1048576, Math.ceil(s.repositoryUpload.fileMaxSize * 1048576 * 4 / 3) + 1048576);
  api.use(/^\/repos\/[^/]+\/[^/]+\/contents(\/|$)/, express.json({ limit: contentsLimit, strict: false, type: ['application/json', 'application/*+json'] }));
  api.use(streamedUploads());
  // why: the raw Markdown endpoint reads its body as text whatever its type (Gitea reads it raw), JSON-looking or not.
  api.use('/markdown/raw', express.text({ limit: '10mb', type: () => true }), (req: Request, _res: Response, next: NextFunction) => { req.rawText = true; next(); });
  // why: an inbox checks its body's Digest against the very bytes sent, so it keeps them raw (at most [federation] MAX_SIZE MiB).
  api.use(/^\/activitypub\/user-id\/[^/]+\/inbox$/, express.raw({ limit: s.federation.maxSize * 1048576, type: () => true }));
  api.use(express.json({ limit: '10mb', strict: false, type: ['application/json', 'application/*+json'] }));
  api.use(express.text({ limit: '10mb', type: 'text/plain' }));
  api.use(jsonInText);
  api.use(bodyGuard());
  guardRowIds(api, ['id', 'attachment_id']);
  api.use(authenticate());
  registerLiteralFirst(api, RegisterRoutes);
  api.use((req: Request, _res: Response, next: NextFunction) => next(new NotFound()));
  app.use('/api/v1', api);

  // why: the OAuth2 endpoints clients call (token, userinfo, keys, discovery) take no session or CSRF token.
  app.use(oauth2Router());
  app.use(lfsRouter());
  app.use(attachmentsRouter());
  app.use(gitHttpRouter());
  app.use(avatarsRouter());
  app.use(downloadsRouter());
  app.use(webRouter());

  // why: one error handler for everything, so every failure has Gitea's body and no 500 leaks internals.
  app.use(errorHandler());
  return app;
}
