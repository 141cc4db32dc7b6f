/**
 * `GET /attachments/{uuid}`: the download of an attachment (a release asset's
 * `browser_download_url`), streamed from disk. Access is the permission function's answer for the
 * attachment's repository and release; missing and hidden answer the same 404. The file is never
 * served as active content: nosniff, a sandboxing CSP, and `attachment` disposition for anything
 * but plain text, raster images and PDF.
 */
import express, { type Request, type Response, type NextFunction, type Router } from 'express';
import { authenticate } from '../middleware/auth';
import { ctxOf } from '../middleware/context';
import { sendAttachment } from '../middleware/send';
import { openDownload } from '../services/release/attachment.service';

/** The attachment download route. */
export function attachmentsRouter(): Router {
  const r = express.Router();
  const auth = authenticate();
  r.get('/attachments/:uuid', auth, (req: Request, res: Response, next: NextFunction) => {
    openDownload(ctxOf(req), req.principal, String(req.params.uuid)).then((d) => sendAttachment(req, res, d), next);
  });
  return r;
}
