/**
 * `GET /attachments/{uuid}`: the download of an attachment (a release asset's
 * `browser_download_url`), streamed from disk. Access is the permission function's answer for the
 * attachment's repository and release; missing and hidden answer the same 404. The file is never
 * served as active content: nosniff, a sandboxing CSP, and `attachment` disposition for anything
 * but plain text, raster images and PDF.
 */
import path from 'node:path';
import { pipeline } from 'node:stream';
import express, { type Request, type Response, type NextFunction, type Router } from 'express';
import { authenticate } from '../middleware/auth';
import { ctxOf } from '../middleware/context';
import { openDownload } from '../services/release/attachment.service';

// why: only types a browser cannot run script from are shown inline; everything else is a download.
const INLINE_TYPES: Record<string, string> = {
  '.png': 'image/png', '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.gif': 'image/gif', '.webp': 'image/webp', '.bmp': 'image/bmp',
  '.pdf': 'application/pdf', '.txt': 'text/plain; charset=utf-8', '.log': 'text/plain; charset=utf-8', '.md': 'text/plain; charset=utf-8',
  '.csv': 'text/plain; charset=utf-8', '.json': 'text/plain; charset=utf-8', '.patch': 'text/plain; charset=utf-8', '.diff': 'text/plain; charset=utf-8',
};

/** Content-Disposition with an ASCII fallback and the UTF-8 name. */
function disposition(kind: 'inline' | 'attachment', name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

async function download(req: Request, res: Response): Promise<void> {
  const d = await openDownload(ctxOf(req), req.principal, String(req.params.uuid));
  const inline = INLINE_TYPES[path.extname(d.row.name).toLowerCase()];
  res.status(200);
  res.setHeader('Content-Type', inline ?? 'application/octet-stream');
  res.setHeader('Content-Disposition', disposition(inline ? 'inline' : 'attachment', d.row.name));
  res.setHeader('Content-Length', String(d.size));
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Content-Security-Policy', "default-src 'none'; sandbox");
  res.setHeader('Cache-Control', 'private, max-age=300');
  if (req.method === 'HEAD') {
    d.stream.destroy();
    res.end();
    return;
  }
  pipeline(d.stream, res, () => undefined);
}

/** The attachment download route. */
export function attachmentsRouter(): Router {
  const r = express.Router();
  const auth = authenticate();
  r.get('/attachments/:uuid', auth, (req: Request, res: Response, next: NextFunction) => { download(req, res).catch(next); });
  return r;
}
