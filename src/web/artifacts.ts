/**
 * Artifacts over HTTP outside the tsoa API:
 * - the twirp service `github.actions.results.api.v1.ArtifactService` at
 *   `/twirp/github.actions.results.api.v1.ArtifactService/{method}` (JSON in and out, Bearer runtime
 *   token; errors as twirp's `{code, msg}`), and its signed byte endpoints `UploadArtifact` (PUT)
 *   and `DownloadArtifact` (GET);
 * - `GET /api/v1/repos/{owner}/{repo}/actions/artifacts/{id}/zip/raw`, the signed download the
 *   REST API's `/zip` redirects to (Gitea's error body on failure).
 */
import express, { type Request, type Response, type NextFunction, type Router } from 'express';
import { pipeline } from 'node:stream/promises';
import { HttpError } from '../errors';
import { ctxOf } from '../middleware/context';
import {
  artifactCaller, createArtifact, deleteRunArtifact, downloadByServiceUrl, finalizeArtifact, listRunArtifacts, rawArtifactDownload, signedArtifactUrl,
  uploadArtifactPart, type ArtifactCaller,
} from '../services/actions/artifact.service';

const BASE = '/twirp/github.actions.results.api.v1.ArtifactService';
const MAX_BODY = 1 << 20;

const METHODS: Record<string, (c: ArtifactCaller, body: Record<string, unknown>) => Promise<unknown>> = {
  CreateArtifact: createArtifact, FinalizeArtifact: finalizeArtifact, ListArtifacts: listRunArtifacts,
  GetSignedArtifactURL: signedArtifactUrl, DeleteArtifact: deleteRunArtifact,
};

const TWIRP: Record<number, string> = { 400: 'invalid_argument', 401: 'unauthenticated', 403: 'permission_denied', 404: 'not_found', 409: 'already_exists', 413: 'out_of_range' };

/** Answer a failure as twirp does: the HTTP status of its code and `{code, msg}`. */
function twirpError(res: Response, err: unknown): void {
  const status = err instanceof HttpError ? err.status : 500;
  if (status >= 500) console.error('artifact service:', err);
  res.status(TWIRP[status] ? status : 500).json({ code: TWIRP[status] ?? 'internal', msg: status >= 500 ? 'internal error' : (err as Error).message });
}

/** The artifact routes. */
export function artifactsRouter(): Router {
  const r = express.Router();
  const text = express.text({ type: () => true, limit: MAX_BODY });
  r.post(`${BASE}/:method`, text, (req: Request, res: Response) => {
    const method = METHODS[String(req.params.method)];
    (async () => {
      if (!method) throw new HttpError(404, `no method ${String(req.params.method)}`);
      let body: unknown;
      try { body = JSON.parse(typeof req.body === 'string' && req.body ? req.body : '{}'); } catch { throw new HttpError(400, 'the body is not JSON'); }
      if (!body || typeof body !== 'object' || Array.isArray(body)) throw new HttpError(400, 'the body is not a JSON object');
      res.json(await method(await artifactCaller(req.headers.authorization), body as Record<string, unknown>));
    })().catch((err: unknown) => twirpError(res, err));
  });
  r.put(`${BASE}/UploadArtifact`, (req: Request, res: Response) => {
    const readText = () => new Promise<string>((resolve, reject) => text(req, res, (err?: unknown) => (err ? reject(err) : resolve(String(req.body ?? '')))));
    uploadArtifactPart(req.query, req, readText).then(() => res.status(201).end(), (err: unknown) => twirpError(res, err));
  });
  r.get(`${BASE}/DownloadArtifact`, (req: Request, res: Response) => {
    downloadByServiceUrl(req.query).then(async (f) => {
      res.status(200).setHeader('Content-Type', 'application/zip');
      res.setHeader('Content-Length', String(f.size));
      await pipeline(f.stream, res);
    }, (err: unknown) => twirpError(res, err)).catch((err: unknown) => res.destroy(err as Error));
  });
  r.get('/api/v1/repos/:owner/:repo/actions/artifacts/:id/zip/raw', (req: Request, res: Response, next: NextFunction) => {
    const q = (k: string) => (typeof req.query[k] === 'string' ? (req.query[k] as string) : '');
    rawArtifactDownload(ctxOf(req), String(req.params.owner), String(req.params.repo), Number(req.params.id), q('sig'), q('expires')).then(async (f) => {
      res.status(200).setHeader('Content-Type', 'application/zip');
      res.setHeader('Content-Length', String(f.size));
      res.setHeader('Content-Disposition', `attachment; filename="${f.name.replace(/["\\]/g, '_')}.zip"; filename*=UTF-8''${encodeURIComponent(f.name)}.zip`);
      await pipeline(f.stream, res);
    }, next).catch((err: unknown) => res.destroy(err as Error));
  });
  return r;
}
