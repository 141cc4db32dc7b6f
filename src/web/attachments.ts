/**
 * `GET /attachments/{uuid}`: the download of an attachment (the `browser_download_url` of a release
 * asset or an issue or comment attachment), streamed from disk. Access is the permission
 * function's answer for the attachment's repository and its release or issue; an attachment
 * linked to nothing yet is its uploader's alone; missing and hidden answer the same 404. The file is never
 * served as active content: nosniff, a sandboxing CSP, and `attachment` disposition for anything
 * but plain text, raster images and PDF.
 */
import express, { type Request, type Response, type NextFunction, type Router } from 'express';
import { authenticate } from '../middleware/auth';
import { ctxOf } from '../middleware/context';
import { sendAttachment } from '../middleware/send';
import { openAttachmentDownload } from '../services/issue/attachment.service';

/** The attachment download route. */
export function attachmentsRouter(): Router {
  const r = express.Router();
  const auth = authenticate('otp', { sessions: true });
  r.get('/attachments/:uuid', auth, (req: Request, res: Response, next: NextFunction) => {
    openAttachmentDownload(ctxOf(req), req.principal, String(req.params.uuid)).then((d) => sendAttachment(req, res, d), next);
  });
  return r;
}
