/**
 * Gitea's web download paths, which scripts and READMEs link to: `/{owner}/{repo}/archive/{ref}.{ext}`,
 * `/{owner}/{repo}/raw/{branch|tag|commit}/{ref}/{path}` (and `/raw/{path}`), the same under
 * `/media/` (LFS objects behind pointers), and `/{owner}/{repo}/releases/download/{tag}/{name}`.
 * Each calls the service of its API form, so the permission function, the headers and the refusals
 * are the same; a token or Basic credentials open private repositories, and a repository the caller
 * cannot read answers 404 like a missing one.
 */
import express, { type Request, type Response, type NextFunction, type Router, type RequestHandler } from 'express';
import { authenticate } from '../middleware/auth';
import { ctxOf } from '../middleware/context';
import { sendArchive, sendAttachment, sendRawFile } from '../middleware/send';
import { codeRepo } from '../services/content/access';
import { mediaFile, rawFile, type RefKind } from '../services/content/raw.service';
import { repoAssignment } from '../services/repo/context';
import { openArchive } from '../services/archive/archive.service';
import { openReleaseDownload } from '../services/release/attachment.service';

type Handler = (req: Request, res: Response) => Promise<void>;

/** An async handler whose failure goes to the one error handler. */
function route(fn: Handler): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => { fn(req, res).catch(next); };
}

const param = (req: Request, name: string) => String(req.params[name]);
/** The rest of the path after a route's fixed part (Express's `*`). */
const rest = (req: Request) => String((req.params as unknown as Record<string, string>)[0] ?? '');

/** Serve a file's bytes, or with `media` the LFS object its pointer names. */
function file(media: boolean, kind?: RefKind): Handler {
  return async (req, res) => {
    const ctx = ctxOf(req);
    const cr = await codeRepo(ctx, req.principal, param(req, 'owner'), param(req, 'repo'));
    const ifNoneMatch = req.header('if-none-match');
    const f = media ? await mediaFile(ctx, cr, rest(req), undefined, ifNoneMatch, kind) : await rawFile(cr, rest(req), undefined, ifNoneMatch, kind);
    sendRawFile(req, res, f);
  };
}

/** The download routes; mount after the API, git and LFS routers. */
export function downloadsRouter(): Router {
  const r = express.Router();
  const auth = authenticate('otp', { sessions: true });
  const repo = '/:owner/:repo';
  r.get(`${repo}/archive/*`, auth, route(async (req, res) => {
    const rc = await repoAssignment(ctxOf(req), req.principal, param(req, 'owner'), param(req, 'repo'));
    await sendArchive(res, await openArchive(rc, rest(req)), `${rc.owner.name}/${rc.repo.name}/${rest(req)}`);
  }));
  for (const area of ['raw', 'media'] as const) {
    for (const kind of ['branch', 'tag', 'commit'] as const) r.get(`${repo}/${area}/${kind}/*`, auth, route(file(area === 'media', kind)));
    r.get(`${repo}/${area}/*`, auth, route(file(area === 'media')));
  }
  r.get(`${repo}/releases/download/*`, auth, route(async (req, res) => {
    // why: a tag may contain slashes (release/v1); the asset's name is the last segment.
    const path = rest(req);
    const cut = path.lastIndexOf('/');
    const d = await openReleaseDownload(ctxOf(req), req.principal, param(req, 'owner'), param(req, 'repo'), path.slice(0, Math.max(cut, 0)), path.slice(cut + 1));
    sendAttachment(req, res, d);
  }));
  return r;
}
