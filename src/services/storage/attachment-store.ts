/**
 * Attachment files on disk: `<[attachment] PATH>/<uuid[0]>/<uuid[1]>/<uuid>` as Gitea lays them
 * out. An upload streams into a temporary file (size counted, type checked on its first bytes) and
 * is renamed into place only when complete, so a reader never sees half a file.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { settings } from '../../config';
import { BadRequest, TooLarge } from '../../errors';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The file of an attachment uuid (the uuid is checked, so the path stays under the root). */
export function attachmentPath(uuid: string): string {
  if (!UUID.test(uuid)) throw new BadRequest('invalid attachment uuid');
  return path.join(settings().attachment.path, uuid[0], uuid[1], uuid);
}

/** Gitea's message for a refused file type. */
export const FORBIDDEN_TYPE = 'This file cannot be uploaded or modified due to a forbidden file extension or type.';

const HTML_TAGS = ['<!DOCTYPE HTML', '<HTML', '<HEAD', '<SCRIPT', '<IFRAME', '<H1', '<DIV', '<FONT', '<TABLE', '<A', '<STYLE', '<TITLE', '<B', '<BODY', '<BR', '<P', '<!--'];

/** The media type of content from its first bytes (the signatures of Go's http.DetectContentType that matter here). */
export function sniffType(head: Buffer): string {
  const starts = (sig: string | number[], at = 0) => {
    const b = typeof sig === 'string' ? Buffer.from(sig, 'latin1') : Buffer.from(sig);
    return head.length >= at + b.length && b.equals(head.subarray(at, at + b.length));
  };
  if (starts('%PDF-')) return 'application/pdf';
  if (starts([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (starts([0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (starts('GIF87a') || starts('GIF89a')) return 'image/gif';
  if (starts('RIFF') && starts('WEBPVP', 8)) return 'image/webp';
  if (starts('BM')) return 'image/bmp';
  if (starts([0x50, 0x4b, 0x03, 0x04])) return 'application/zip';
  if (starts([0x1f, 0x8b, 0x08])) return 'application/x-gzip';
  if (starts('%!PS-Adobe-')) return 'application/postscript';
  // eslint-disable-next-line no-control-regex
  const text = head.toString('latin1').replace(/^[\t\n\x0c\r ]+/, '');
  const upper = text.slice(0, 16).toUpperCase();
  if (HTML_TAGS.some((t) => upper.startsWith(t) && /^[ >]$/.test(text.charAt(t.length) || ' '))) return 'text/html; charset=utf-8';
  if (text.startsWith('<?xml')) return 'text/xml; charset=utf-8';
  // eslint-disable-next-line no-control-regex
  if (!/[\x00-\x08\x0b\x0e-\x1a\x1c-\x1f]/.test(head.toString('latin1'))) return 'text/plain; charset=utf-8';
  return 'application/octet-stream';
}

/**
 * Gitea's upload.Verify: with an allow-list (comma or `|` separated: `.ext`, `type/sub`, `type/*`,
 * `*\/*`), the file's extension or sniffed type must be on it; an empty list allows everything.
 * `head` null checks the name only (renames).
 */
export function typeAllowed(head: Buffer | null, fileName: string, allowedTypes: string): boolean {
  const allowed = allowedTypes.replace(/\|/g, ',').split(',').map((e) => e.trim().toLowerCase()).filter(Boolean);
  if (allowed.length === 0) return true;
  const mime = head ? sniffType(head).split(';')[0].trim() : '';
  const ext = path.extname(fileName).toLowerCase();
  const noContent = !head || head.length <= 1;
  return allowed.some((entry) => entry === '*/*'
    || (entry.startsWith('.') && entry === ext)
    || (!noContent && (entry === mime || (/^[a-z]+\/\*$/.test(entry) && mime.startsWith(entry.slice(0, -1))))));
}

/** Limits of one upload. */
export interface UploadLimits { maxBytes: number; allowedTypes: string }

/** A stored upload. */
export interface StoredFile { uuid: string; size: number }

const SNIFF_BYTES = 1024;

/**
 * Stream `data` into a new attachment file named `name` (the name decides the extension check).
 * Throws 413 past maxBytes (when > 0) and 400 for a refused type; nothing is left on disk then.
 */
export async function storeUpload(data: Readable, name: string, limits: UploadLimits): Promise<StoredFile> {
  const root = settings().attachment.path;
  const tmpDir = path.join(root, 'tmp');
  await fsp.mkdir(tmpDir, { recursive: true });
  const tmp = path.join(tmpDir, `upload-${crypto.randomBytes(12).toString('hex')}`);
  const fh = await fsp.open(tmp, 'wx', 0o600);
  let size = 0;
  let head = Buffer.alloc(0);
  let checked = false;
  const check = () => {
    checked = true;
    if (!typeAllowed(head, name, limits.allowedTypes)) throw new BadRequest(FORBIDDEN_TYPE);
  };
  try {
    for await (const chunk of data as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (limits.maxBytes > 0 && size > limits.maxBytes) throw new TooLarge(`attachment exceeds limit ${limits.maxBytes}`);
      if (!checked) {
        head = Buffer.concat([head, chunk.subarray(0, SNIFF_BYTES - head.length)]);
        if (head.length >= SNIFF_BYTES) check();
      }
      await fh.write(chunk);
    }
    if (!checked) check();
    await fh.sync();
    await fh.close();
    const uuid = crypto.randomUUID();
    const final = attachmentPath(uuid);
    await fsp.mkdir(path.dirname(final), { recursive: true });
    await fsp.rename(tmp, final);
    return { uuid, size };
  } catch (err) {
    await fh.close().catch(() => undefined);
    await fsp.rm(tmp, { force: true });
    throw err;
  }
}

/** Open an attachment's file for streaming, with its size; null when the file is missing. */
export async function openAttachmentFile(uuid: string): Promise<{ stream: Readable; size: number } | null> {
  const file = attachmentPath(uuid);
  const st = await fsp.stat(file).catch(() => null);
  if (!st?.isFile()) return null;
  return { stream: fs.createReadStream(file), size: st.size };
}

/** Remove attachment files (missing ones are fine); failures are logged, never thrown. */
export async function removeAttachmentFiles(uuids: string[]): Promise<void> {
  for (const uuid of uuids) {
    try {
      await fsp.rm(attachmentPath(uuid), { force: true });
    } catch (err) {
      console.error(`removing attachment ${uuid}:`, err);
    }
  }
}
