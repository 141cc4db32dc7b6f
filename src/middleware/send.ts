/**
 * Writing downloads to a response, shared by the API routes and Gitea's web download paths, so both
 * send the same headers: archives, raw files (`/raw`, `/media`) and attachments (release assets).
 */
import path from 'node:path';
import { pipeline, type Readable } from 'node:stream';
import type { Request, Response } from 'express';
import type { ArchiveDownload } from '../services/archive/archive.service';
import type { AttachmentDownload } from '../services/release/attachment.service';

/**
 * Stream an archive. Headers go out with the first byte: a build that fails before it (a refused
 * archive) rejects with the response untouched, so the error handler answers it; one that fails
 * later can only cut the response short.
 */
export async function sendArchive(res: Response, a: ArchiveDownload, what: string): Promise<void> {
  res.status(200);
  res.setHeader('Content-Type', a.contentType);
  res.setHeader('Content-Disposition', `attachment; filename="${a.filename.replace(/["\\\r\n]/g, '_')}"`);
  if (a.size !== undefined) res.setHeader('Content-Length', String(a.size));
  await a.writeTo(res).catch((err: Error) => {
    if (!res.headersSent) {
      for (const h of ['Content-Type', 'Content-Disposition', 'Content-Length']) res.removeHeader(h);
      throw err;
    }
    if (!res.destroyed) console.error(`archive ${what}: ${err.message}`);
    res.destroy();
  });
}

/** A raw file (status, headers, body or none for a 304), as the content services prepared it. */
export function sendRawFile(req: Request, res: Response, f: { status: number; headers: Record<string, string>; body: Readable | null }): void {
  res.status(f.status);
  for (const [k, v] of Object.entries(f.headers)) res.setHeader(k, v);
  if (!f.body || req.method === 'HEAD') {
    f.body?.destroy();
    res.end();
    return;
  }
  pipeline(f.body, res, () => undefined);
}

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

/** An attachment, never as active content: nosniff, a sandboxing CSP, inline only for inert types. */
export function sendAttachment(req: Request, res: Response, d: AttachmentDownload): void {
  const inline = INLINE_TYPES[path.extname(d.row.name).toLowerCase()];
  res.status(200);
  res.setHeader('Content-Type', inline ?? 'application/octet-stream');
  res.setHeader('Content-Disposition', disposition(inline ? 'inline' : 'attachment', d.row.name));
  res.setHeader('Content-Length', String(d.size));
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Content-Security-Policy', "default-src 'none'; sandbox");
  res.setHeader('Cache-Control', 'private, max-age=300');
  res.setHeader('ETag', `"${d.row.uuid}"`);
  if (req.method === 'HEAD') {
    d.stream.destroy();
    res.end();
    return;
  }
  pipeline(d.stream, res, () => undefined);
}

/**
 * Answer 205 with a JSON body, as Gitea's notification routes do (Express's send empties a 205);
 * the route's own return then finds the response sent.
 */
export function sendResetContent(res: Response, body: unknown): void {
  res.status(205).setHeader('Content-Type', 'application/json; charset=utf-8');
  res.end(JSON.stringify(body));
}
