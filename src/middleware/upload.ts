/**
 * Streaming file uploads for the asset API: a `multipart/form-data` body (the file in one named
 * field) or a raw body (the file itself). The file is handed to the consumer as a stream while the
 * request is still arriving, with backpressure, so nothing is buffered whole. When the consumer
 * gives up (too large, forbidden type) the rest of the request is read and thrown away so the
 * client still gets the answer.
 * why: our own small parser; neither busboy nor multer is a dependency of the project.
 */
import { PassThrough, type Readable } from 'node:stream';
import type { Request } from 'express';
import { BadRequest } from '../errors';

/** What the consumer of an upload receives; `fields` holds the text parts sent before the file. */
export type UploadConsumer<T> = (filename: string, data: Readable, fields: Record<string, string>) => Promise<T>;

const MAX_HEADER_BYTES = 16 * 1024;
// why: text parts (a form's hidden fields, a commit message) are small; a larger one is refused.
const MAX_FIELD_BYTES = 64 * 1024;
// why: after a refused upload we keep reading (so the client sees the answer) but not for ever.
const MAX_DISCARD_BYTES = 256 * 1024 * 1024;

/** The multipart boundary of a content type, or null when the body is not multipart/form-data. */
export function multipartBoundary(contentType: string | undefined): string | null {
  const ct = contentType ?? '';
  if (!/^multipart\/form-data/i.test(ct)) return null;
  const m = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(ct);
  if (!m) throw new BadRequest('multipart body without a boundary');
  return m[1] ?? m[2];
}

/** name and filename of a part's Content-Disposition header. */
function disposition(headers: string): { name: string | null; filename: string | null } {
  const line = headers.split('\r\n').find((h) => /^content-disposition:/i.test(h)) ?? '';
  const param = (key: string) => {
    const m = new RegExp(`;\\s*${key}="((?:[^"\\\\]|\\\\.)*)"`, 'i').exec(line) ?? new RegExp(`;\\s*${key}=([^;\\s]+)`, 'i').exec(line);
    return m ? m[1].replace(/\\(.)/g, '$1') : null;
  };
  const star = /;\s*filename\*=UTF-8''([^;\s]+)/i.exec(line);
  let filename = param('filename');
  if (star) {
    try { filename = decodeURIComponent(star[1]); } catch { /* keep the plain one */ }
  }
  return { name: param('name'), filename };
}

/** Writes into the consumer's stream with backpressure; switches to discarding once the consumer fails. */
class Sink<T> {
  private pass: PassThrough | null = null;
  private result: Promise<T> | null = null;
  private failed: unknown = null;
  constructor(private readonly consume: UploadConsumer<T>) {}

  get started(): boolean { return this.result !== null; }

  start(filename: string, fields: Record<string, string>): void {
    this.pass = new PassThrough();
    this.result = this.consume(filename, this.pass, fields);
    this.result.catch((err: unknown) => {
      this.failed = err ?? new Error('upload failed');
      this.pass?.destroy();
    });
  }

  async write(chunk: Buffer): Promise<void> {
    const p = this.pass;
    if (!p || this.failed || p.destroyed || chunk.length === 0) return;
    // why: a destroyed stream never emits 'drain' again and may have emitted 'close' already.
    if (!p.write(chunk) && !p.destroyed) {
      await new Promise<void>((resolve) => {
        const done = () => { p.off('drain', done); p.off('close', done); resolve(); };
        p.once('drain', done);
        p.once('close', done);
      });
    }
  }

  end(): void {
    if (!this.failed) this.pass?.end();
    this.pass = null;
  }

  /** The upload broke off: the consumer's stream errors, so nothing partial is kept. */
  abort(err: Error): void {
    this.pass?.destroy(err);
    this.pass = null;
  }

  get discarding(): boolean { return this.failed !== null; }

  async finish(): Promise<T> {
    if (!this.result) throw new BadRequest('no file in the upload');
    return this.result;
  }
}

/**
 * After a refused upload, the rest of the request is read and thrown away (bounded), in the same
 * read loop; returns false when the request was cut off instead.
 */
function discard(req: Request, seen: number): boolean {
  if (seen <= MAX_DISCARD_BYTES) return true;
  req.destroy();
  return false;
}

/** A raw body upload: the whole body is the file. */
export async function readRawUpload<T>(req: Request, filename: string, consume: UploadConsumer<T>): Promise<T> {
  const sink = new Sink(consume);
  sink.start(filename, {});
  let seen = 0;
  await guarded(sink, async () => {
    for await (const chunk of req as AsyncIterable<Buffer>) {
      seen += chunk.length;
      if (sink.discarding) {
        if (!discard(req, seen)) break;
        continue;
      }
      await sink.write(chunk);
    }
  });
  sink.end();
  return sink.finish();
}

/** Run the reading loop; if it breaks (client gone, bad body), the consumer's stream fails too. */
async function guarded<T>(sink: Sink<T>, loop: () => Promise<void>): Promise<void> {
  try {
    await loop();
  } catch (err) {
    const e = err instanceof Error ? err : new Error(String(err));
    sink.abort(e);
    if (sink.started) await sink.finish().catch(() => undefined);
    throw e;
  }
}

/**
 * A multipart/form-data upload: the first part named `field` with a filename is the file; other
 * files are skipped. `consume` gets the part's filename and the text parts that came before it
 * (a browser sends a form's parts in their order, so a hidden CSRF field placed first is there).
 */
export async function readMultipartUpload<T>(req: Request, boundary: string, fileField: string, consume: UploadConsumer<T>): Promise<T> {
  const delimiter = Buffer.from(`\r\n--${boundary}`);
  const sink = new Sink(consume);
  // why: a leading CRLF lets the first boundary match the same delimiter as the others.
  let buf: Buffer = Buffer.from('\r\n');
  let state: 'preamble' | 'after' | 'headers' | 'body' | 'end' = 'preamble';
  let inFile = false;
  let seen = 0;
  const fields: Record<string, string> = Object.create(null) as Record<string, string>;
  let field: { name: string; parts: Buffer[]; size: number } | null = null;
  const collect = (b: Buffer) => {
    if (!field || b.length === 0) return;
    field.size += b.length;
    if (field.size > MAX_FIELD_BYTES) throw new BadRequest(`multipart field "${field.name}" is too large`);
    field.parts.push(Buffer.from(b));
  };

  const step = async (): Promise<boolean> => {
    if (state === 'preamble' || state === 'body') {
      const at = buf.indexOf(delimiter);
      if (at < 0) {
        // keep a tail that could be the start of a delimiter
        const keep = Math.min(buf.length, delimiter.length - 1);
        if (state === 'body' && inFile) await sink.write(buf.subarray(0, buf.length - keep));
        if (state === 'body') collect(buf.subarray(0, buf.length - keep));
        buf = buf.subarray(buf.length - keep);
        return false;
      }
      if (state === 'body' && inFile) {
        await sink.write(buf.subarray(0, at));
        sink.end();
        inFile = false;
      }
      if (state === 'body' && field) {
        collect(buf.subarray(0, at));
        fields[field.name] = Buffer.concat(field.parts).toString('utf8');
        field = null;
      }
      buf = buf.subarray(at + delimiter.length);
      state = 'after';
      return true;
    }
    if (state === 'after') {
      if (buf.length < 2) return false;
      if (buf[0] === 0x2d && buf[1] === 0x2d) { state = 'end'; return false; }
      const eol = buf.indexOf('\r\n');
      if (eol < 0) return false;
      buf = buf.subarray(eol + 2);
      state = 'headers';
      return true;
    }
    if (state === 'headers') {
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) {
        if (buf.length > MAX_HEADER_BYTES) throw new BadRequest('multipart part headers are too large');
        return false;
      }
      const { name, filename } = disposition(buf.subarray(0, end).toString('utf8'));
      buf = buf.subarray(end + 4);
      inFile = !sink.started && name === fileField && filename !== null;
      if (inFile) sink.start(filename!, { ...fields });
      else if (filename === null && name !== null && !sink.started) field = { name, parts: [], size: 0 };
      state = 'body';
      return true;
    }
    return false;
  };

  await guarded(sink, async () => {
    for await (const chunk of req as AsyncIterable<Buffer>) {
      seen += chunk.length;
      if (sink.discarding) {
        if (!discard(req, seen)) return;
        continue;
      }
      if (state === 'end') continue;
      buf = buf.length ? Buffer.concat([buf, chunk]) : chunk;
      while (await step()) { /* consume what the buffer holds */ }
    }
    if (sink.discarding) return;
    if (inFile) throw new BadRequest('multipart body ended inside the file');
  });
  if (!sink.started) throw new BadRequest(`multipart body has no file in field "${fileField}"`);
  return sink.finish();
}

/** A stream read whole into memory, or null (the stream destroyed) once it passes `max` bytes. */
export async function readCapped(stream: Readable, max: number): Promise<Buffer | null> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += (chunk as Buffer).length;
    if (size > max) {
      stream.destroy();
      return null;
    }
    parts.push(chunk as Buffer);
  }
  return Buffer.concat(parts);
}
