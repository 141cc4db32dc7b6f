/**
 * Large HTML a page places without copying it into the page's text: the template holds a marker for
 * each piece, and the page is written piece by piece, yielding to the event loop as it goes.
 * why: an issue of many long comments makes a page of tens of megabytes; built as one string and
 * sent at once, its copy and encoding held the event loop for a tenth of a second and its memory twice.
 */
import crypto from 'node:crypto';
import type { Response } from 'express';

// why: the event loop is given back after writing this long, and a write waits while the
// connection's buffer is full, so a page's memory is bounded by the buffer, not the page.
const SLICE_MS = 8;

/** Resolves when the response can take more, or the client is gone. */
function drained(res: Response): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/** The pieces of HTML one page places by marker. */
export class PageSlots {
  // why: a marker cannot be written by a user: it holds a random word of this page, and control characters.
  private readonly nonce = crypto.randomBytes(12).toString('hex');
  private readonly parts: (string | Buffer)[] = [];

  /** A marker that stands for `html` (text, or UTF-8 bytes) in the page. */
  put(html: string | Buffer): string {
    this.parts.push(html);
    return `\u0001${this.nonce}:${this.parts.length - 1}\u0001`;
  }

  /** Write `page` with each marker replaced by its HTML, then end the response. */
  async send(res: Response, page: string): Promise<void> {
    const marker = new RegExp(`\u0001${this.nonce}:(\\d+)\u0001`, 'g');
    let since = performance.now();
    let gone = false;
    res.once('close', () => { gone = true; });
    const write = async (s: string | Buffer) => {
      if (s.length === 0 || gone) return;
      if (!res.write(s)) await drained(res);
      if (performance.now() - since >= SLICE_MS) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        since = performance.now();
      }
    };
    let last = 0;
    for (const m of page.matchAll(marker)) {
      await write(page.slice(last, m.index));
      await write(this.parts[Number(m[1])] ?? '');
      last = m.index + m[0].length;
    }
    await write(page.slice(last));
    res.end();
  }
}
